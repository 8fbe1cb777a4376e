/// One HTTP/2 request being assembled, then answered. Owned strongly by ``NGHTTP2Connection``
/// (never retained through nghttp2, which does not report streams still open when a session is
/// deleted) and pooled, so the steady state allocates little.
final class NGHTTP2Stream {
    @exclusivity(unchecked) var id: Int32 = 0
    @exclusivity(unchecked) var method = ""
    @exclusivity(unchecked) var scheme: String?
    @exclusivity(unchecked) var authority: String?
    @exclusivity(unchecked) var path = ""
    @exclusivity(unchecked) var headers = HTTPHeaderList(capacity: 8)
    @exclusivity(unchecked) var body: [UInt8] = []
    @exclusivity(unchecked) var headerListSize = 0
    @exclusivity(unchecked) var limitExceeded: RequestLimit?
    /// The request went to the responder; later DATA is discarded.
    @exclusivity(unchecked) var dispatched = false
    /// A response was submitted (so a late deferred completion is ignored).
    @exclusivity(unchecked) var responded = false
    /// The header list broke the limit: the rest of the block is not read (nghttp2 resets the
    /// stream after it), so the answer goes out as HEADERS only.
    @exclusivity(unchecked) var headersAborted = false
    /// The body broke the limit: once the answer is out, the stream is reset with NO_ERROR so
    /// the client stops sending (RFC 9113 §8.1) and no more window is granted for it.
    @exclusivity(unchecked) var resetAfterResponse = false
    /// The body of the submitted response, read by nghttp2's data provider.
    @exclusivity(unchecked) var responseBody: [UInt8] = []
    @exclusivity(unchecked) var responseOffset = 0

    init() {}

    /// Moves the assembled request out of the stream (its strings and arrays change hands without
    /// a retain; the stream keeps empty ones).
    func takeRequest() -> HTTPServerRequest {
        var headers = HTTPHeaderList(capacity: 8)
        swap(&headers, &self.headers)
        return HTTPServerRequest(
            method: Self.take(&method, leaving: ""),
            scheme: Self.take(&scheme, leaving: nil),
            authority: Self.take(&authority, leaving: nil),
            path: Self.take(&path, leaving: ""),
            headers: headers,
            body: Self.take(&body, leaving: []),
            limitExceeded: limitExceeded,
            streamID: id
        )
    }

    private static func take<Value>(_ value: inout Value, leaving empty: Value) -> Value {
        var taken = empty
        swap(&taken, &value)
        return taken
    }

    /// Makes the object reusable for another stream.
    func reset() {
        id = 0
        method = ""
        scheme = nil
        authority = nil
        path = ""
        headers.fields.removeAll(keepingCapacity: true)
        body.removeAll(keepingCapacity: true)
        headerListSize = 0
        limitExceeded = nil
        dispatched = false
        responded = false
        headersAborted = false
        resetAfterResponse = false
        responseBody = []
        responseOffset = 0
    }
}
