import CNGHTTP2
import PushMockTestSupport
import Testing

@testable import PushMockTransport

/// ``HTTPMessageRules`` against nghttp2's own HTTP messaging checks, which it replaces: the same
/// answer for every byte of every kind of field, and the same outcome on the wire for every kind
/// of malformed request.
@Suite("HTTP/2 message rules, as nghttp2 checks them")
struct HTTPMessageRulesTests {
    typealias Connection = NGHTTP2ConnectionTests

    // MARK: Characters

    /// `bytes` of `count` copies of `filler` with `byte` at `offset`.
    static func bytes(_ count: Int, _ byte: UInt8, at offset: Int, filler: UInt8) -> [UInt8] {
        var bytes = [UInt8](repeating: filler, count: count)
        bytes[offset] = byte
        return bytes
    }

    static let lengths = [1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 200]

    @Test("every byte at the start, middle and end of every length: the same answer as nghttp2's checks")
    func characters() {
        var compared = 0
        for count in Self.lengths {
            for offset in Set([0, count / 2, count - 1]) {
                for byte in UInt8.min...UInt8.max {
                    let name = Self.bytes(count, byte, at: offset, filler: UInt8(ascii: "a"))
                    let value = Self.bytes(count, byte, at: offset, filler: UInt8(ascii: "v"))
                    name.withUnsafeBufferPointer { name in
                        if name[0] != UInt8(ascii: ":") {
                            #expect(
                                HTTPMessageRules.isFieldName(name) == (nghttp2_check_header_name(name.baseAddress, count) != 0),
                                "\(byte) at \(offset) of \(count)")
                        }
                    }
                    value.withUnsafeBufferPointer { value in
                        let base = value.baseAddress
                        #expect(
                            HTTPMessageRules.isFieldValue(value) == (nghttp2_check_header_value(base, count) != 0), "\(byte) at \(offset) of \(count)"
                        )
                        let strict = !HTTPMessageRules.hasEdgeWhitespace(value) && HTTPMessageRules.isFieldValue(value)
                        #expect(strict == (nghttp2_check_header_value_rfc9113(base, count) != 0), "\(byte) at \(offset) of \(count)")
                        #expect(HTTPMessageRules.isPath(value) == (nghttp2_check_path(base, count) != 0), "\(byte) at \(offset) of \(count)")
                        #expect(
                            HTTPMessageRules.isAuthority(value) == (nghttp2_check_authority(base, count) != 0), "\(byte) at \(offset) of \(count)")
                        #expect(HTTPMessageRules.methodChars.containsAll(value) == (nghttp2_check_method(base, count) != 0))
                    }
                    compared += 1
                }
            }
        }
        #expect(compared > 10_000)
    }

    @Test(
        "content-length digits as nghttp2 parses them",
        arguments: [
            ("0", 0), ("42", 42), ("9223372036854775807", Int64.max), ("9223372036854775808", -1), ("", -1), ("-1", -1), ("1 ", -1),
            ("+1", -1), ("0x10", -1), ("007", 7),
        ] as [(String, Int64)])
    func contentLength(text: String, expected: Int64) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBufferPointer { HTTPMessageRules.parseCount($0) } == expected)
    }

    // MARK: Requests on the wire

    /// A header field, HPACK literal without indexing, new name (RFC 7541 §6.2.2), raw bytes.
    static func field(_ name: [UInt8], _ value: [UInt8]) -> [UInt8] {
        func length(_ count: Int) -> [UInt8] {
            count < 127 ? [UInt8(count)] : [0x7F, UInt8(count - 127)]
        }
        return [0x00] + length(name.count) + name + length(value.count) + value
    }

    static func field(_ name: String, _ value: String) -> [UInt8] {
        field(Array(name.utf8), Array(value.utf8))
    }

    /// `:method`, `:scheme`, `:path`, `:authority` as a sender usually sends them.
    static let pseudo: [(String, String)] = [(":method", "POST"), (":scheme", "https"), (":path", "/3/device/a"), (":authority", "localhost")]

    static func block(_ fields: [(String, String)]) -> [UInt8] {
        fields.flatMap { field($0.0, $0.1) }
    }

    static func headers(_ stream: UInt32, _ fields: [(String, String)], endStream: Bool = true) -> [UInt8] {
        Connection.headers(stream: stream, block: block(fields), endStream: endStream)
    }

    static func data(_ stream: UInt32, _ text: String, endStream: Bool = true) -> [UInt8] {
        Connection.data(stream: stream, bytes: Array(text.utf8), endStream: endStream)
    }

    /// A request with one more field after the usual pseudo-headers.
    static func with(_ name: String, _ value: String) -> [UInt8] {
        headers(1, pseudo + [(name, value)])
    }

    static func with(_ name: [UInt8], _ value: [UInt8]) -> [UInt8] {
        Connection.headers(stream: 1, block: block(pseudo) + field(name, value), endStream: true)
    }

    /// The usual request with `fields` in place of the pseudo-headers.
    static func only(_ fields: [(String, String)]) -> [UInt8] {
        headers(1, fields)
    }

    /// Each case: its frames (after the preface and SETTINGS), and how many requests nghttp2
    /// lets through, so that a case tests what it says whatever the port does.
    static let cases: [(String, [UInt8], Int)] = [
        ("a plain request", headers(1, pseudo + [("apns-topic", "com.example"), ("authorization", "bearer abc")]), 1),
        ("a body with a matching content-length", headers(1, pseudo + [("content-length", "5")], endStream: false) + data(1, "hello"), 1),
        ("a body shorter than content-length", headers(1, pseudo + [("content-length", "6")], endStream: false) + data(1, "hello"), 0),
        ("a body longer than content-length", headers(1, pseudo + [("content-length", "4")], endStream: false) + data(1, "hello"), 0),
        (
            "a body longer than content-length in its second DATA frame",
            headers(1, pseudo + [("content-length", "6")], endStream: false) + data(1, "hel", endStream: false) + data(1, "lo!!"), 0
        ),
        (
            "a body longer than content-length, the stream still open",
            headers(1, pseudo + [("content-length", "2")], endStream: false) + data(1, "hello", endStream: false), 0
        ),
        ("content-length on a request with no body", headers(1, pseudo + [("content-length", "5")]), 0),
        ("content-length 0 on a request with no body", headers(1, pseudo + [("content-length", "0")]), 1),
        ("content-length twice", headers(1, pseudo + [("content-length", "0"), ("content-length", "0")]), 0),
        ("content-length not a number", with("content-length", "abc"), 0),
        ("content-length negative", with("content-length", "-1"), 0),
        ("content-length empty", with("content-length", ""), 0),
        ("content-length past Int64", with("content-length", "99999999999999999999"), 0),
        ("no :method", only([(":scheme", "https"), (":path", "/a"), (":authority", "x")]), 0),
        ("no :scheme", only([(":method", "POST"), (":path", "/a"), (":authority", "x")]), 0),
        ("no :path", only([(":method", "POST"), (":scheme", "https"), (":authority", "x")]), 0),
        ("no :authority and no host", only([(":method", "POST"), (":scheme", "https"), (":path", "/a")]), 0),
        ("host in place of :authority", only([(":method", "POST"), (":scheme", "https"), (":path", "/a"), ("host", "x")]), 1),
        ("host and :authority", headers(1, pseudo + [("host", "localhost")]), 1),
        ("host twice", headers(1, pseudo + [("host", "a"), ("host", "a")]), 0),
        ("host empty", with("host", ""), 0),
        ("host with a quote", with("host", "a\"b"), 0),
        (":path twice", headers(1, pseudo + [(":path", "/b")]), 0),
        (":path empty", only([(":method", "POST"), (":scheme", "https"), (":path", ""), (":authority", "x")]), 0),
        (":path with a space", only([(":method", "POST"), (":scheme", "https"), (":path", "/a b"), (":authority", "x")]), 0),
        (":path without a slash", only([(":method", "POST"), (":scheme", "https"), (":path", "a"), (":authority", "x")]), 0),
        (":path without a slash, scheme not http", only([(":method", "POST"), (":scheme", "foo"), (":path", "a"), (":authority", "x")]), 1),
        (":path * for OPTIONS", only([(":method", "OPTIONS"), (":scheme", "https"), (":path", "*"), (":authority", "x")]), 1),
        (":path * for GET", only([(":method", "GET"), (":scheme", "https"), (":path", "*"), (":authority", "x")]), 0),
        (":scheme HTTPS", only([(":method", "GET"), (":scheme", "HTTPS"), (":path", "a"), (":authority", "x")]), 0),
        (":scheme starting with a digit", only([(":method", "GET"), (":scheme", "1x"), (":path", "/"), (":authority", "x")]), 0),
        (":scheme with + - .", only([(":method", "GET"), (":scheme", "a+b-c.d"), (":path", "x"), (":authority", "x")]), 1),
        (":method with a space", only([(":method", "PO ST"), (":scheme", "https"), (":path", "/"), (":authority", "x")]), 0),
        (":method empty", only([(":method", ""), (":scheme", "https"), (":path", "/"), (":authority", "x")]), 0),
        (":authority empty", only([(":method", "GET"), (":scheme", "https"), (":path", "/"), (":authority", "")]), 0),
        (":authority with a space", only([(":method", "GET"), (":scheme", "https"), (":path", "/"), (":authority", "a b")]), 0),
        ("CONNECT with :authority only", only([(":method", "CONNECT"), (":authority", "x:443")]), 1),
        ("CONNECT with a :path", only([(":method", "CONNECT"), (":authority", "x:443"), (":path", "/")]), 0),
        ("CONNECT without :authority", only([(":method", "CONNECT"), ("host", "x:443")]), 0),
        ("HEAD", only([(":method", "HEAD"), (":scheme", "https"), (":path", "/"), (":authority", "x")]), 1),
        (
            "a pseudo-header after a regular field",
            headers(1, [(":method", "POST"), ("x-a", "1"), (":scheme", "https"), (":path", "/"), (":authority", "x")]), 0
        ),
        ("an unknown pseudo-header", headers(1, pseudo + [(":foo", "1")]), 0),
        (":protocol", headers(1, pseudo + [(":protocol", "websocket")]), 0),
        ("a bare colon", headers(1, pseudo + [(":", "1")]), 0),
        ("an uppercase name", with("Apns-Topic", "x"), 0),
        ("a long uppercase name", with("X-Cloud-Trace-Context", "x"), 0),
        ("a long name", with("x-cloud-trace-context", "abc/1;o=1"), 1),
        ("a long name with underscores", with("x_custom_header_with_underscores", "1"), 1),
        ("a long name with @ late", with("x-custom-header-with-at@", "1"), 0),
        ("a name with a space", with("x a", "1"), 0),
        ("a name with 0x80", with([0x78, 0x80], Array("1".utf8)), 0),
        ("an empty name", with([], Array("1".utf8)), 0),
        ("a value with NUL", with(Array("x-a".utf8), [0x61, 0x00, 0x62]), 0),
        ("a value with CR", with("x-a", "a\rb"), 0),
        ("a value with LF", with("x-a", "a\nb"), 0),
        ("a value with DEL", with(Array("x-a".utf8), [0x61, 0x7F]), 0),
        ("a value with a tab inside", with("x-a", "a\tb"), 1),
        ("a value with bytes over 127", with(Array("x-a".utf8), [0xC3, 0xA9, 0xFF]), 1),
        ("a value with a leading space", with("x-a", " a"), 0),
        ("a value with a trailing tab", with("x-a", "a\t"), 0),
        ("a long value with a control byte in its last piece", with("authorization", String(repeating: "b", count: 40) + "\u{1}x"), 0),
        ("a long value with a control byte in its first piece", with("authorization", "b\u{1}" + String(repeating: "b", count: 40)), 0),
        ("a long value, all good", with("authorization", "bearer " + String(repeating: "eyJhbGciOiJFUzI1NiJ9.", count: 9)), 1),
        ("connection", with("connection", "keep-alive"), 0),
        ("keep-alive", with("keep-alive", "1"), 0),
        ("proxy-connection", with("proxy-connection", "1"), 0),
        ("transfer-encoding", with("transfer-encoding", "chunked"), 0),
        ("upgrade", with("upgrade", "h2c"), 0),
        ("te: trailers", with("te", "trailers"), 1),
        ("te: TRAILERS", with("te", "TRAILERS"), 1),
        ("te: gzip", with("te", "gzip"), 0),
        ("priority", with("priority", "u=1"), 1),
        (
            "trailers",
            headers(1, pseudo + [("content-length", "2")], endStream: false) + data(1, "hi", endStream: false)
                + headers(1, [("x-checksum", "1")]), 1
        ),
        ("trailers without END_STREAM", headers(1, pseudo, endStream: false) + headers(1, [("x-checksum", "1")], endStream: false), 0),
        ("a pseudo-header in trailers", headers(1, pseudo, endStream: false) + headers(1, [(":path", "/x")]), 0),
        (
            "content-length again in trailers",
            headers(1, pseudo + [("content-length", "0")], endStream: false) + headers(1, [("content-length", "0")]), 0
        ),
        (
            "a malformed request between two good ones", headers(1, pseudo) + headers(3, pseudo + [("Bad", "1")]) + headers(5, pseudo), 2
        ),
    ]

    /// What a connection did with `frames`: the requests it dispatched, the streams it closed, what
    /// it reported as invalid, and every frame it wrote.
    static func outcome(of frames: [UInt8], lenient: Bool, nghttp2Checks: Bool) -> [String] {
        let recorder = Connection.Recorder()
        let connection = NGHTTP2Connection(
            settings: .init(), maxBodySize: 1000, lenientFieldWhitespace: lenient, nghttp2ChecksMessages: nghttp2Checks, delegate: recorder)
        recorder.respond = { stream in
            connection.submitResponse(streamID: stream.id, response: HTTPServerResponse(status: 200))
        }
        _ = Connection.output(connection)
        var lines = ["receive: \(Connection.feed(connection, Connection.start + frames))"]
        for request in recorder.requests {
            let fields = request.headers.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
            lines.append("request \(request.method) \(request.scheme ?? "-") \(request.authority ?? "-") \(request.path) [\(fields)] \(request.body)")
        }
        lines += Connection.frames(in: Connection.output(connection)).map { "frame \($0.type) \($0.flags) \($0.stream) \($0.payload)" }
        lines += recorder.closed.map { "closed \($0.0) \($0.1)" }
        lines.append("invalid \(recorder.invalidErrors)")
        return lines
    }

    @Test("a request and the wire after it are the same as with nghttp2's checks", arguments: cases.indices)
    func sameOutcome(index: Int) {
        let (name, frames, requests) = Self.cases[index]
        for lenient in [false, true] {
            let reference = Self.outcome(of: frames, lenient: lenient, nghttp2Checks: true)
            let ported = Self.outcome(of: frames, lenient: lenient, nghttp2Checks: false)
            #expect(ported == reference, "\(name), lenient: \(lenient)")
            let leniencyMatters = name.contains("leading space") || name.contains("trailing tab")
            let expected = lenient && leniencyMatters ? 1 : requests
            #expect(reference.filter { $0.hasPrefix("request ") }.count == expected, "\(name), lenient: \(lenient): \(reference)")
        }
    }

    @Test("a malformed request is reset with PROTOCOL_ERROR and reported, by either")
    func malformedIsReset() {
        for nghttp2Checks in [true, false] {
            let lines = Self.outcome(of: Self.with("Apns-Topic", "x"), lenient: false, nghttp2Checks: nghttp2Checks)
            // RST_STREAM (type 3) on stream 1 with PROTOCOL_ERROR (1), and nghttp2's NGHTTP2_ERR_HTTP_HEADER reported.
            #expect(lines.contains("frame 3 0 1 [0, 0, 0, 1]"), "\(lines)")
            #expect(lines.contains("invalid [\(NGHTTP2_ERR_HTTP_HEADER.rawValue)]"), "\(lines)")
        }
    }
}
