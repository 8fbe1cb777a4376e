/// A response for the transport to send.
///
/// A `nil` body is sent on HTTP/2 as a single HEADERS frame with END_STREAM (no empty DATA frame,
/// which some clients, such as aioapns, cannot handle) and on HTTP/1.1 with `content-length: 0`.
public struct HTTPServerResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields, without `:status` and without `content-length` (the transport adds it).
    public var headers: HTTPHeaderList
    /// The body, or `nil` for a header-only response.
    public var body: [UInt8]?

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaderList = [], body: [UInt8]? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response: `content-type: application/json` and the given UTF-8 body.
    public static func json(status: Int, _ json: String, headers: HTTPHeaderList = []) -> HTTPServerResponse {
        var all = headers
        all.append("content-type", "application/json")
        return HTTPServerResponse(status: status, headers: all, body: Array(json.utf8))
    }
}
