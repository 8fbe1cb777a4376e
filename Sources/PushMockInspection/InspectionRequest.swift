import PushMockCore

/// A request to the inspection port, transport-neutral: the server adapts what the transport
/// received. The target is parsed once, here.
public struct InspectionRequest: Sendable {
    /// The method.
    public var method: String
    /// The path without the query.
    public var path: String
    /// The path's segments (empty ones dropped).
    public var segments: [Substring]
    /// Query items in order, percent-decoded.
    public var query: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]
    /// Header fields with lower-case names.
    public var headers: [(name: String, value: String)]
    /// `:authority` (HTTP/2) or `Host`.
    public var host: String?

    /// Creates a request from a request target such as `/api/v1/deliveries?limit=5`.
    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [], authority: String? = nil) {
        self.method = method
        self.body = body
        self.headers = headers
        self.host = authority ?? headers.first { $0.name == "host" }?.value
        if let mark = target.firstIndex(of: "?") {
            self.path = String(target[..<mark])
            self.query = target[target.index(after: mark)...].split(separator: "&").map { item in
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (PercentDecoding.queryValue(parts[0]), parts.count > 1 ? PercentDecoding.queryValue(parts[1]) : "")
            }
        } else {
            self.path = target
            self.query = []
        }
        self.segments = path.split(separator: "/")
    }

    /// `reveal=1` (or `true`): show recorded credentials as received. With an inspection token
    /// configured, only requests that presented it get this far.
    public var reveal: Bool {
        query.contains { $0.name == "reveal" && ($0.value == "1" || $0.value == "true") }
    }

    /// The first value of header `name` (lower-case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// The last value of query item `name`.
    public func queryValue(_ name: String) -> String? {
        query.last { $0.name == name }?.value
    }
}
