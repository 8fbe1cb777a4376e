/// One HTTP/2 request being assembled, then answered. Owned strongly by ``NGHTTP2Connection``
/// (never retained through nghttp2, which does not report streams still open when a session is
/// deleted) and pooled, so the steady state allocates little.
final class NGHTTP2Stream {
    @exclusivity(unchecked) var id: Int32 = 0
    @exclusivity(unchecked) var method = ""
    @exclusivity(unchecked) var scheme: String?
    @exclusivity(unchecked) var authority: String?
    @exclusivity(unchecked) var path = ""
    /// The fields received so far, in order, in memory of the stream's own: appending to an
    /// `Array` stored in a class checked the buffer's uniqueness on every field (~1.4% of an APNs
    /// push); the request gets them in one move (``takeRequest()``).
    @exclusivity(unchecked) private var fields: UnsafeMutablePointer<HeaderField>
    @exclusivity(unchecked) private var fieldCapacity: Int
    @exclusivity(unchecked) private var fieldCount = 0
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

    init() {
        fieldCapacity = 8
        fields = .allocate(capacity: fieldCapacity)
    }

    deinit {
        fields.deinitialize(count: fieldCount)
        fields.deallocate()
    }

    /// Appends a received field.
    @inline(__always)
    func appendField(name: String, value: String) {
        if fieldCount == fieldCapacity {
            growFields()
        }
        (fields + fieldCount).initialize(to: HeaderField(name: name, value: value))
        fieldCount += 1
    }

    private func growFields() {
        let larger = UnsafeMutablePointer<HeaderField>.allocate(capacity: fieldCapacity * 2)
        larger.moveInitialize(from: fields, count: fieldCount)
        fields.deallocate()
        fields = larger
        fieldCapacity *= 2
    }

    /// Moves the fields received so far into an array of their own (the stream keeps none).
    private func takeFields() -> HTTPHeaderList {
        let count = fieldCount
        fieldCount = 0
        defer { shrinkFields() }
        guard count > 0 else { return HTTPHeaderList() }
        // Moved one by one into reserved room: `Array(unsafeUninitializedCapacity:)` allocates
        // through the standard library's unspecialized path, which looks the storage type up at
        // run time (about 300 instructions more a request, measured with callgrind).
        var taken: [HeaderField] = []
        taken.reserveCapacity(count)
        for index in 0..<count {
            taken.append((fields + index).move())
        }
        return HTTPHeaderList(taken)
    }

    /// A pooled stream does not keep the room a request with very many fields made it grow to.
    private func shrinkFields() {
        guard fieldCount == 0, fieldCapacity > 32 else { return }
        fields.deallocate()
        fieldCapacity = 8
        fields = .allocate(capacity: fieldCapacity)
    }

    /// Moves the assembled request out of the stream (its strings and arrays change hands without
    /// a retain; the stream keeps empty ones).
    func takeRequest() -> HTTPServerRequest {
        let headers = takeFields()
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
        fields.deinitialize(count: fieldCount)
        fieldCount = 0
        shrinkFields()
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
