/// A complete request as the transport hands it to a responder: head, body (read up to the
/// configured cap) and what limits it broke.
public struct HTTPServerRequest: Sendable {
    /// `:method` (HTTP/2) or the request line's method (HTTP/1.1).
    public var method: String
    /// `:scheme`, when sent.
    public var scheme: String?
    /// `:authority` (HTTP/2) or `host` (HTTP/1.1), when sent.
    public var authority: String?
    /// `:path` (HTTP/2) or the request target (HTTP/1.1), query included.
    public var path: String
    /// Regular header fields in arrival order, duplicates preserved, pseudo-headers excluded.
    public var headers: HTTPHeaderList
    /// The body bytes, at most ``ListenerConfiguration/maxRequestBodySize`` of them.
    public var body: [UInt8]
    /// Set when the request broke a transport limit; the body or headers are then incomplete.
    public var limitExceeded: RequestLimit?
    /// The HTTP/2 stream id, or `nil` on HTTP/1.1.
    public var streamID: Int32?

    /// Only here to tell the implicit memberwise initializer (which the public one below calls)
    /// apart from the public one; it takes no space.
    private var memberwise: Void = ()
}

// The public initializer hands the fields to the implicit memberwise one: an initializer that
// assigns them one by one builds the value on the stack, then copies it out and destroys the
// original (Swift 6.3 at -O: a retain and a release per reference-counted field). See `Delivery`
// and docs/performance.md.
extension HTTPServerRequest {
    /// Creates a request (tests and the HTTP/1.1 path build them directly).
    public init(
        method: String,
        scheme: String? = nil,
        authority: String? = nil,
        path: String,
        headers: HTTPHeaderList = [],
        body: [UInt8] = [],
        limitExceeded: RequestLimit? = nil,
        streamID: Int32? = nil
    ) {
        self.init(
            method: method, scheme: scheme, authority: authority, path: path, headers: headers, body: body,
            limitExceeded: limitExceeded, streamID: streamID, memberwise: ()
        )
    }
}

/// A transport limit a request went over. The responder still answers it (usually 413 or 431),
/// and the connection stays usable.
public enum RequestLimit: Sendable, Hashable {
    /// The body was longer than the cap; the rest is discarded without being buffered.
    case bodySize(limit: Int)
    /// The header list was larger than `SETTINGS_MAX_HEADER_LIST_SIZE`.
    case headerListSize(limit: Int)
}
