/// A request for ``HTTPClientPool``: method, absolute URL (`http` or `https`), header fields and
/// an optional body (nil sends none; an empty one sends `content-length: 0`).
public struct ClientRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?

    public init(method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// A whole answer: its status, header fields (names lowercased) and body.
public struct ClientResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the field `name` (lowercase).
    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
}

/// Why ``HTTPClientPool`` got no answer: a URL it cannot use, a connection that failed or closed,
/// TLS that failed (the description carries the TLS library's reason), a stream the server reset,
/// the deadline, or cancellation.
public struct HTTPClientFailure: Error, CustomStringConvertible, Equatable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }

    public static let cancelled = HTTPClientFailure("the request was cancelled")
    public static let shutDown = HTTPClientFailure("the HTTP client is shut down")
}
