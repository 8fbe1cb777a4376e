import Foundation

/// A transport-neutral HTTP answer of the inspection port (the server adapts it to the wire).
public struct InspectionResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// The content type of `body`.
    public var contentType: String
    /// Header fields besides `content-type` (`allow`, `www-authenticate`, `cache-control`).
    public var headers: [Header]
    /// The body.
    public var body: [UInt8]

    /// One header field.
    public struct Header: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Creates a response.
    public init(status: Int, contentType: String = "application/json", headers: [Header] = [], body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// `value` as JSON (sorted keys, slashes unescaped) with `status`; a 500 when it cannot be
    /// encoded: an encoding failure is a server error, never a 200.
    public static func json(_ status: Int, _ value: some Encodable) -> InspectionResponse {
        guard let body = encoded(value) else { return InspectionError.encodingFailed.response }
        return InspectionResponse(status: status, body: body)
    }

    /// `value` in the API's JSON encoding, on one line; nil when it cannot be encoded.
    public static func encoded(_ value: some Encodable) -> [UInt8]? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try? Array(encoder.encode(value))
    }

    /// The value of header `name`, or `content-type`.
    public func header(_ name: String) -> String? {
        name == "content-type" ? contentType : headers.first { $0.name == name }?.value
    }
}
