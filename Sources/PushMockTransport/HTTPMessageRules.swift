/// The rules a request must keep to be a well-formed HTTP/2 message (RFC 9113 §8.2–8.3): field
/// names and values, pseudo-header fields, `content-length` against the DATA received. nghttp2
/// checks them when its "HTTP messaging" is on; the server turns that off
/// (`nghttp2_option_set_no_http_messaging`) and checks them here instead, with the same outcome
/// for every request: these are nghttp2 1.52's `nghttp2_http.c` and `nghttp2_helper.c`, ported
/// rule for rule (server side; a server that never enables extended CONNECT, so `:protocol` is
/// never allowed). What changes is the cost: nghttp2 looks each byte of each field up in a
/// table, on every request, which was a tenth of a push's instructions; here long values are
/// checked sixteen bytes at a time. `HTTPMessageRulesTests` holds the two to the same answers,
/// nghttp2's own checks being the reference.
///
/// One per stream, in ``NGHTTP2Stream``; ``reset()`` makes it ready for the next.
struct HTTPMessageRules {
    /// nghttp2's `NGHTTP2_HTTP_FLAG_…` bits that a server uses.
    struct Flags: OptionSet {
        let rawValue: UInt32
        static let authority = Flags(rawValue: 1)
        static let path = Flags(rawValue: 1 << 1)
        static let method = Flags(rawValue: 1 << 2)
        static let scheme = Flags(rawValue: 1 << 3)
        static let host = Flags(rawValue: 1 << 4)
        static let pseudoHeaderDisallowed = Flags(rawValue: 1 << 6)
        static let methodConnect = Flags(rawValue: 1 << 7)
        static let methodHead = Flags(rawValue: 1 << 8)
        static let methodOptions = Flags(rawValue: 1 << 9)
        static let pathRegular = Flags(rawValue: 1 << 11)
        static let pathAsterisk = Flags(rawValue: 1 << 12)
        static let schemeHTTP = Flags(rawValue: 1 << 13)
        static let requestHeaders: Flags = [.method, .path, .scheme]
    }

    private(set) var flags: Flags = []
    /// The `content-length` field's value, or -1 when there is none.
    private(set) var contentLength: Int64 = -1
    /// DATA bytes received so far.
    private(set) var receivedLength: Int64 = 0

    mutating func reset() {
        self = HTTPMessageRules()
    }

    // MARK: Fields (nghttp2_http_on_header, http_request_on_header)

    /// What a field of the request's header block (`trailer`: of its trailers) is, and whether
    /// it leaves the request well formed. With `lenientWhitespace`, a regular field's value may
    /// start or end with a space or a tab.
    ///
    /// nghttp2 would drop a regular field with a bad name or value and go on, if the session had
    /// an invalid-header callback; without one (the server sets none) such a field makes the
    /// request malformed, as an uppercase name or a misplaced pseudo-header does.
    enum Verdict: Equatable {
        case malformed
        case regular
        /// A well-formed pseudo-header field, so that its name is matched once.
        case pseudo(NGHTTP2Stream.PseudoField)
    }

    @inline(__always)
    mutating func field(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, trailer: Bool, lenientWhitespace: Bool) -> Verdict {
        guard let first = name.first else { return .malformed }
        if first == UInt8(ascii: ":") {
            return pseudoField(name: name, value: value, trailer: trailer).map { .pseudo($0) } ?? .malformed
        }
        return regularField(name: name, value: value, lenientWhitespace: lenientWhitespace) ? .regular : .malformed
    }

    @inline(__always)
    private mutating func regularField(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, lenientWhitespace: Bool) -> Bool {
        guard Self.isFieldName(name) else { return false }
        let special = Self.specialField(name)
        let goodValue =
            special == .host
            ? Self.isAuthority(value)
            : (lenientWhitespace || !Self.hasEdgeWhitespace(value)) && Self.isFieldValue(value)
        guard goodValue else { return false }
        flags.insert(.pseudoHeaderDisallowed)
        switch special {
        case .none: return true
        case .host: return check(.host, value)
        case .contentLength:
            guard contentLength == -1 else { return false }
            contentLength = Self.parseCount(value)
            return contentLength != -1
        case .connectionSpecific: return false
        case .te: return Self.equalsIgnoringCase(value, "trailers")
        }
    }

    /// A pseudo-header field: which it is, or nil when the request is malformed.
    private mutating func pseudoField(
        name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, trailer: Bool
    ) -> NGHTTP2Stream.PseudoField? {
        // nghttp2 checks the value by the field's kind first (a bad one is malformed), then the
        // field's place: never in trailers, never after a regular field. Any other pseudo-header
        // (`:protocol` included: extended CONNECT is not enabled) is malformed either way.
        guard let field = Self.pseudoName(name) else { return nil }
        switch field {
        case .method: guard !value.isEmpty, Self.methodChars.containsAll(value) else { return nil }
        case .path: guard Self.isPath(value) else { return nil }
        case .authority: guard Self.isAuthority(value) else { return nil }
        case .scheme: guard Self.isScheme(value) else { return nil }
        }
        guard !trailer, !flags.contains(.pseudoHeaderDisallowed), check(Self.flag(of: field), value) else { return nil }
        switch field {
        case .method:
            if Self.equals(value, "HEAD") {
                flags.insert(.methodHead)
            } else if Self.equals(value, "CONNECT") {
                flags.insert(.methodConnect)
            } else if Self.equals(value, "OPTIONS") {
                flags.insert(.methodOptions)
            }
        case .path:
            if value[0] == UInt8(ascii: "/") {
                flags.insert(.pathRegular)
            } else if value.count == 1, value[0] == UInt8(ascii: "*") {
                flags.insert(.pathAsterisk)
            }
        case .scheme:
            if Self.equalsIgnoringCase(value, "http") || Self.equalsIgnoringCase(value, "https") {
                flags.insert(.schemeHTTP)
            }
        case .authority: break
        }
        return field
    }

    /// nghttp2's `check_pseudo_header`: the first of its kind, with a value.
    private mutating func check(_ flag: Flags, _ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !flags.contains(flag), !value.isEmpty else { return false }
        flags.insert(flag)
        return true
    }

    // MARK: Frames (nghttp2_http_on_request_headers, _on_trailer_headers, _on_data_chunk, _on_remote_end_stream)

    /// Whether a complete HEADERS frame (`trailer`: the trailers) leaves the request well formed.
    mutating func headersEnded(trailer: Bool, endStream: Bool) -> Bool {
        if trailer {
            guard endStream else { return false }
        } else if flags.contains(.methodConnect) {
            guard flags.isDisjoint(with: [.scheme, .path]), flags.contains(.authority) else { return false }
            contentLength = -1
        } else {
            guard flags.isSuperset(of: .requestHeaders), !flags.isDisjoint(with: [.authority, .host]) else { return false }
            // `:path` is `/…`, or `*` for OPTIONS, when the scheme is http or https.
            guard !flags.contains(.schemeHTTP) || flags.contains(.pathRegular) || flags.isSuperset(of: [.methodOptions, .pathAsterisk])
            else { return false }
        }
        return !endStream || streamEnded()
    }

    /// Counts `count` DATA bytes: false when they go past `content-length`.
    mutating func data(_ count: Int) -> Bool {
        receivedLength += Int64(count)
        return contentLength == -1 || receivedLength <= contentLength
    }

    /// Whether the body received matches `content-length`, at END_STREAM.
    func streamEnded() -> Bool {
        contentLength == -1 || contentLength == receivedLength
    }

    // MARK: Names

    static func flag(of field: NGHTTP2Stream.PseudoField) -> Flags {
        switch field {
        case .method: .method
        case .path: .path
        case .authority: .authority
        case .scheme: .scheme
        }
    }

    enum SpecialField { case none, host, contentLength, connectionSpecific, te }

    /// Which pseudo-header `name` (with its colon) is; nil for any other.
    @inline(__always)
    static func pseudoName(_ name: UnsafeBufferPointer<UInt8>) -> NGHTTP2Stream.PseudoField? {
        switch name.count {
        case 5: equals(name, ":path") ? .path : nil
        case 7: equals(name, ":method") ? .method : equals(name, ":scheme") ? .scheme : nil
        case 10: equals(name, ":authority") ? .authority : nil
        default: nil
        }
    }

    /// The regular fields nghttp2 gives rules of their own (its header tokens), by length first.
    @inline(__always)
    static func specialField(_ name: UnsafeBufferPointer<UInt8>) -> SpecialField {
        // Each of them starts with one of these letters; most names a sender sends (`apns-…`,
        // `authorization`) do not.
        switch name[0] {
        case UInt8(ascii: "t"), UInt8(ascii: "h"), UInt8(ascii: "u"), UInt8(ascii: "c"), UInt8(ascii: "k"), UInt8(ascii: "p"): break
        default: return .none
        }
        return switch name.count {
        case 2: equals(name, "te") ? .te : .none
        case 4: equals(name, "host") ? .host : .none
        case 7: equals(name, "upgrade") ? .connectionSpecific : .none
        case 10: equals(name, "connection") || equals(name, "keep-alive") ? .connectionSpecific : .none
        case 14: equals(name, "content-length") ? .contentLength : .none
        case 16: equals(name, "proxy-connection") ? .connectionSpecific : .none
        case 17: equals(name, "transfer-encoding") ? .connectionSpecific : .none
        default: .none
        }
    }

    @inline(__always)
    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount && NGHTTP2Stream.same(bytes.baseAddress!, literal.utf8Start, bytes.count)
    }

    /// Whether `bytes` are `lowercase` (letters only), in either case.
    @inline(__always)
    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        for index in bytes.indices where bytes[index] | 0x20 != lowercase.utf8Start[index] {
            return false
        }
        return true
    }

    /// nghttp2's `parse_uint`: decimal digits only, at least one, within Int64; -1 otherwise.
    static func parseCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64 {
        guard !bytes.isEmpty else { return -1 }
        var count: Int64 = 0
        for byte in bytes {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return -1 }
            let (times, overflow) = count.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(digit))
            guard !overflow, !overflow2 else { return -1 }
            count = sum
        }
        return count
    }
}
