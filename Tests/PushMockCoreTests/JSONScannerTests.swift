import PushMockBytes
import PushMockCore
import Testing

@Suite("The byte-level JSON scanner is strict RFC 8259")
struct JSONScannerTests {
    static func kind(_ text: String) -> JSONScanner.Kind? {
        Array(text.utf8).withByteView { JSONScanner($0).validate() }
    }

    @Test(
        "valid documents are accepted with their kind",
        arguments: [
            (#"{}"#, JSONScanner.Kind.object), (#" {"a":1} "#, .object), (#"[1,2.5,-3e10,true,false,null,"x"]"#, .array),
            (#""\u00e9\n\"""#, .string), ("0", .number), ("-0.5E+2", .number), ("null", .null),
            (#"{"aps":{"alert":{"title":"Hi ✓","loc-args":["a","b"]},"badge":0}}"#, .object),
        ])
    func valid(_ text: String, _ expected: JSONScanner.Kind) {
        #expect(Self.kind(text) == expected)
    }

    @Test(
        "invalid documents are refused",
        arguments: [
            "", "{", #"{"a":1,}"#, "[1,]", "{'a':1}", #"{"a" 1}"#, "01", "1.", ".5", "+1", "tru", "nul",
            #""\x""#, "\"a\u{01}\"", #"{"a":1}{"#, "NaN", #"{"a":1} x"#, "[1 2]", #""\u12G4""#,
        ])
    func invalid(_ text: String) {
        #expect(Self.kind(text) == nil, "\(text) should be refused")
    }

    @Test("invalid UTF-8 inside strings is refused")
    func invalidUTF8() {
        for bytes: [UInt8] in [[0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22], [0x22, 0xFF, 0x22]] {
            #expect(bytes.withByteView { JSONScanner($0).validate() } == nil)
        }
        #expect(Array("\"é€😀\"".utf8).withByteView { JSONScanner($0).validate() } == .string)
    }

    @Test("nesting deeper than the limit is refused instead of exhausting the stack")
    func depthLimit() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(Self.kind(deep) == nil)
        let fine = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        #expect(Self.kind(fine) == .array)
    }

    @Test("members, strings, integers and duplicates (last one wins)")
    func members() {
        let text = #"{"aps":{"timestamp":1767225600,"event":"up\u0064ate","big":12345678901234567890,"n":-5,"d":1.5,"b":true},"a":1,"a":2}"#
        Array(text.utf8).withByteView { bytes in
            let scanner = JSONScanner(bytes)
            guard let root = scanner.root, let aps = scanner.member("aps", in: root) else {
                Issue.record("no aps")
                return
            }
            #expect(scanner.member("timestamp", in: aps).flatMap(scanner.int64(at:)) == 1_767_225_600)
            #expect(scanner.member("event", in: aps).flatMap(scanner.string(at:)) == "update")
            #expect(scanner.member("big", in: aps).flatMap(scanner.int64(at:)) == nil, "overflow is not an Int64")
            #expect(scanner.member("n", in: aps).flatMap(scanner.int64(at:)) == -5)
            #expect(scanner.member("d", in: aps).flatMap(scanner.int64(at:)) == nil)
            #expect(scanner.member("d", in: aps).flatMap(scanner.double(at:)) == 1.5)
            #expect(scanner.member("b", in: aps).flatMap(scanner.bool(at:)) == true)
            #expect(scanner.member("a", in: root).map(scanner.text(of:)) == "2")
            #expect(scanner.keys(of: root) == ["aps", "a", "a"])
            #expect(scanner.member("missing", in: root) == nil)
        }
    }
}

@Suite("base64url")
struct Base64URLTests {
    @Test("round-trips every length, with and without padding")
    func roundTrip() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(($0 * 37 + 11) % 256) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("="))
            #expect(!encoded.contains("+") && !encoded.contains("/"))
            #expect(Base64URL.decode(Substring(encoded)) == bytes)
        }
        #expect(Base64URL.decode("QQ==") == [0x41])
    }

    @Test("refuses characters outside the alphabet and impossible lengths")
    func invalid() {
        #expect(Base64URL.decode("a+b/") == nil)
        #expect(Base64URL.decode("abcde") == nil)
        #expect(Base64URL.decode("QQ=A") == nil)
    }
}

@Suite("The scanner's eight-bytes-at-a-time string run")
struct JSONScannerRunTests {
    @Test("a quote, an escape, a control character or a multi-byte character at any offset of a long string is seen")
    func specialsAtEveryOffset() {
        func kind(_ bytes: [UInt8]) -> JSONScanner.Kind? { bytes.withByteView { JSONScanner($0).validate() } }
        for offset in 0..<40 {
            let before = [UInt8](repeating: UInt8(ascii: "x"), count: offset)
            let after = [UInt8](repeating: UInt8(ascii: "y"), count: 40 - offset)
            let quote = UInt8(ascii: "\"")
            #expect(kind([quote] + before + Array(#"\""#.utf8) + after + [quote]) == .string, "escaped quote at \(offset)")
            #expect(kind([quote] + before + Array(#"\u00e9"#.utf8) + after + [quote]) == .string, "\\u escape at \(offset)")
            #expect(kind([quote] + before + Array(#"\q"#.utf8) + after + [quote]) == nil, "bad escape at \(offset)")
            #expect(kind([quote] + before + [0x0A] + after + [quote]) == nil, "raw newline at \(offset)")
            #expect(kind([quote] + before + Array("é€😀".utf8) + after + [quote]) == .string, "UTF-8 at \(offset)")
            #expect(kind([quote] + before + [0xC0, 0xAF] + after + [quote]) == nil, "overlong UTF-8 at \(offset)")
            // The string ends early: what follows is not JSON.
            #expect(kind([quote] + before + [quote] + after + [quote]) == nil, "quote at \(offset)")
            #expect(kind([quote] + before + after) == nil, "unterminated, \(offset) bytes in")
            #expect(kind(Array(#"{"k":""#.utf8) + before + after + Array(#""}"#.utf8)) == .object, "member value of \(40) bytes")
        }
    }
}

@Suite("Object keys compared with names")
struct JSONTapeKeyTests {
    @Test("a key matches its name however it is escaped, and a key shorter than a name never matches it")
    func escapedAndShortKeys() throws {
        let text = Array(#"{"to\u006ben":1,"tok":2,"token":3,"t\u006f":4,"\u0074":5,"tokens":6}"#.utf8)
        let names = try text.withByteView { bytes -> [[String]] in
            let tape = try #require(JSONTape(JSONScanner(bytes)))
            var matches: [[String]] = []
            tape.forEachMember(of: tape.root) { key, _ in
                matches.append(["token", "tok", "to", "t", "tokens", "toke"].filter { tape.key(key, is: $0) })
            }
            return matches
        }
        #expect(names == [["token"], ["tok"], ["token"], ["to"], ["t"], ["tokens"]])
    }
}
