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

    /// What the transport sends for this response: itself when its status is final (200–599),
    /// else a 500 saying so. A 1xx head must not be followed by a body, and NIO's HTTP/1.1 encoder
    /// traps when one is; no responder's mistake may end the process or break a stream.
    /// 204, 205 and 304 never carry a body (RFC 9110 §15.3.5, §15.3.6, §15.4.5): whoever produced
    /// one (a fault, an upstream answer passed through), it is left out, or a client reading the
    /// connection would fall out of step.
    public var final: HTTPServerResponse {
        if Self.forbidsBody(status) && body != nil {
            var bare = self
            bare.body = nil
            bare.headers = HTTPHeaderList(headers.filter { $0.name != "content-type" })
            return bare
        }
        if status >= 200 && status <= 599 { return self }
        return .json(
            status: 500, #"{"reason":"InternalServerError","description":"the server produced status \#(status), which is not a final status"}"#)
    }

    /// Whether a response with `status` must have no body.
    public static func forbidsBody(_ status: Int) -> Bool {
        status == 204 || status == 205 || status == 304
    }

    /// A JSON response: `content-type: application/json` and the given UTF-8 body.
    public static func json(status: Int, _ json: String, headers: HTTPHeaderList = []) -> HTTPServerResponse {
        var all = headers
        all.append("content-type", "application/json")
        return HTTPServerResponse(status: status, headers: all, body: Array(json.utf8))
    }
}
