import Glibc

/// One HTTP/2 request being assembled, then answered. Owned strongly by ``NGHTTP2Connection``
/// (never retained through nghttp2, which does not report streams still open when a session is
/// deleted) and pooled, so the steady state allocates little.
final class NGHTTP2Stream {
    @exclusivity(unchecked) var id: Int32 = 0
    /// The pseudo-header fields, kept from request to request as the fields are (`received` says
    /// which this request carried).
    @exclusivity(unchecked) private var method = ""
    @exclusivity(unchecked) private var scheme = ""
    @exclusivity(unchecked) private var authority = ""
    @exclusivity(unchecked) private var path = ""
    @exclusivity(unchecked) private var received: UInt8 = 0
    /// The fields received so far (the first `fieldCount`), kept from request to request: a
    /// pooled stream's next request on the same connection usually carries the same fields in the
    /// same places (topic, push type, priority, the provider token or bearer), and a field whose
    /// bytes equal the one already in its place is left there, so that it costs no lookup,
    /// retain, release or allocation (``receiveField(name:value:recent:)``). The request shares
    /// the array (``takeRequest()``); by the time the stream is reused its copy is gone, so the
    /// array is unique again and is changed in place.
    @exclusivity(unchecked) private var fields: [HeaderField] = []
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
    /// The request's HTTP/2 message rules, checked as its fields and DATA arrive.
    @exclusivity(unchecked) var rules = HTTPMessageRules()
    /// The request broke them: its stream is being reset, and nothing more of it is taken.
    @exclusivity(unchecked) var malformed = false
    /// The body of the submitted response, read by nghttp2's data provider.
    @exclusivity(unchecked) var responseBody: [UInt8] = []
    @exclusivity(unchecked) var responseOffset = 0

    /// Fields of a header list larger than this (in bytes, as HTTP/2 counts them) are not kept
    /// for the next request: a pooled stream holds at most about this much.
    static let keptHeaderListSize = 4096

    /// Takes a received field: kept as it is when the last request had the same one in this
    /// place, otherwise made from `recent`'s strings.
    @inline(__always)
    func receiveField(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, recent: RecentHeaderValues) {
        defer { fieldCount += 1 }
        if fieldCount < fields.count {
            if Self.equals(fields[fieldCount].name, name) && Self.equals(fields[fieldCount].value, value) { return }
            let known = recent.name(name)
            fields[fieldCount] = HeaderField(name: known.text, value: recent.text(value), knownName: known.name)
        } else {
            let known = recent.name(name)
            fields.append(HeaderField(name: known.text, value: recent.text(value), knownName: known.name))
        }
    }

    /// A request's pseudo-header field.
    enum PseudoField: UInt8 {
        case method = 1
        case scheme = 2
        case authority = 4
        case path = 8
    }

    /// Takes a received pseudo-header field: kept as it is when the last request had the same.
    @inline(__always)
    func receivePseudoField(_ field: PseudoField, value: UnsafeBufferPointer<UInt8>, recent: RecentHeaderValues) {
        received |= field.rawValue
        switch field {
        case .method: Self.keep(&method, value, recent: recent)
        case .scheme: Self.keep(&scheme, value, recent: recent)
        case .authority: Self.keep(&authority, value, recent: recent)
        case .path: Self.keep(&path, value, recent: recent)
        }
    }

    @inline(__always)
    private static func keep(_ text: inout String, _ bytes: UnsafeBufferPointer<UInt8>, recent: RecentHeaderValues) {
        if !equals(text, bytes) { text = recent.text(bytes) }
    }

    /// The pseudo-header field `field` if this request carried it.
    @inline(__always)
    private func pseudoField(_ field: PseudoField, _ text: String) -> String? {
        received & field.rawValue != 0 ? text : nil
    }

    /// Whether `text`'s UTF-8 is `bytes`.
    @inline(__always)
    private static func equals(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard text.utf8.count == bytes.count else { return false }
        guard let base = bytes.baseAddress else { return true }
        return text.utf8.withContiguousStorageIfAvailable { same($0.baseAddress!, base, bytes.count) } ?? false
    }

    /// Whether the `count` bytes at `a` and at `b` are the same: up to 32 (most names and values)
    /// compared here a word at a time, the last word overlapping the one before it; longer ones
    /// (a provider token, a bearer) by `memcmp`. The call to `memcmp` cost more than the
    /// comparison for a short field, and a request has about twenty.
    @inline(__always)
    static func same(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        if count > 32 { return memcmp(a, b, count) == 0 }
        guard count >= 8 else {
            for offset in 0..<count where a[offset] != b[offset] {
                return false
            }
            return true
        }
        func word(_ base: UnsafePointer<UInt8>, _ offset: Int) -> UInt64 {
            UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
        }
        var offset = 0
        while offset < count - 8 {
            guard word(a, offset) == word(b, offset) else { return false }
            offset += 8
        }
        return word(a, count - 8) == word(b, count - 8)
    }

    /// The fields received, for the request: the stream's own array, shared (this request's
    /// fields; what a longer last request left after them is dropped).
    private func takeFields() -> HTTPHeaderList {
        if fieldCount < fields.count { fields.removeSubrange(fieldCount...) }
        fieldCount = 0
        guard headerListSize <= Self.keptHeaderListSize else {
            var taken: [HeaderField] = []
            swap(&taken, &fields)
            return HTTPHeaderList(taken)
        }
        return HTTPHeaderList(fields)
    }

    /// Moves the assembled request out of the stream (its body changes hands without a retain; the
    /// stream keeps an empty one), sharing the fields and pseudo-header fields with it.
    func takeRequest() -> HTTPServerRequest {
        let headers = takeFields()
        return HTTPServerRequest(
            method: pseudoField(.method, method) ?? "",
            scheme: pseudoField(.scheme, scheme),
            authority: pseudoField(.authority, authority),
            path: pseudoField(.path, path) ?? "",
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
        // The fields stay for the next request to compare with (the counts say none is received).
        received = 0
        fieldCount = 0
        if headerListSize > Self.keptHeaderListSize {
            fields = []
            (method, scheme, authority, path) = ("", "", "", "")
        }
        body.removeAll(keepingCapacity: true)
        headerListSize = 0
        limitExceeded = nil
        dispatched = false
        responded = false
        headersAborted = false
        resetAfterResponse = false
        rules.reset()
        malformed = false
        responseBody = []
        responseOffset = 0
    }
}
