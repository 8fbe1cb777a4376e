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

/// Documents made from `seeds` by up to three random edits each (a byte inserted, removed or
/// replaced, from JSON's own characters and a few that break it), the same for the same `seed`.
enum MutatedJSON {
    /// `document`, then an array of every kind of value and an object spread over white space.
    static func seeds(_ document: String) -> [[UInt8]] {
        [
            document,
            #"[1,-2.5e3,true,false,null,"x\u00e9\"",[],{},[[{"a":[0]}]]]"#,
            "{\n  \"a\" : [ 1 , 2 ] ,\n\t\"b\" : { } \r\n}   ",
        ].map { Array($0.utf8) }
    }

    static func documents(from seeds: [[UInt8]], seed: UInt64, count: Int = 6000) -> [[UInt8]] {
        let alphabet = Array(#"{}[]:,"\ 0123456789-+.eEtrufalsn"#.utf8) + [0x09, 0x0A, 0x01, 0xC3, 0xA9, 0xFF]
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<count).map { round in
            var text = seeds[round % seeds.count]
            for _ in 0...next(3) {
                let at = next(text.count + 1)
                switch next(3) {
                case 0: text.insert(alphabet[next(alphabet.count)], at: at)
                case 1: if at < text.count { text.remove(at: at) }
                default: if at < text.count { text[at] = alphabet[next(alphabet.count)] }
                }
            }
            return text
        }
    }
}

@Suite("The scanner's one-pass check agrees with its parser")
struct JSONScannerValidateTests {
    static func kinds(_ bytes: [UInt8]) -> (validated: JSONScanner.Kind?, parsed: JSONScanner.Kind?) {
        bytes.withByteView { (JSONScanner($0).validate(), JSONScanner($0).root?.kind) }
    }

    @Test("the nesting limit is the parser's: a value inside at most 64 containers")
    func depthBoundary() {
        for depth in 62...67 {
            let empty = Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
            let holding = Array((String(repeating: #"{"k":["#, count: depth / 2) + "1" + String(repeating: "]}", count: depth / 2)).utf8)
            for text in [empty, holding] {
                let (validated, parsed) = Self.kinds(text)
                #expect(validated == parsed, "depth \(depth)")
            }
        }
        // 65 arrays: the innermost, empty, sits inside 64. One more, or a value inside it, is too deep.
        #expect(Self.kinds(Array((String(repeating: "[", count: 65) + String(repeating: "]", count: 65)).utf8)).validated == .array)
        #expect(Self.kinds(Array((String(repeating: "[", count: 66) + String(repeating: "]", count: 66)).utf8)).validated == nil)
        #expect(Self.kinds(Array((String(repeating: "[", count: 64) + "1" + String(repeating: "]", count: 64)).utf8)).validated == .array)
        #expect(Self.kinds(Array((String(repeating: "[", count: 65) + "1" + String(repeating: "]", count: 65)).utf8)).validated == nil)
    }

    @Test("runs of white space of every length, mixed and broken, around and between values")
    func whiteSpaceRuns() {
        for before in 0..<20 {
            for after in [0, 1, 7, 8, 9, 17] {
                let pad = { (count: Int) in String(repeating: " ", count: count) }
                #expect(Self.kinds(Array((pad(before) + "1" + pad(after)).utf8)).validated == .number)
                let object = "{" + pad(before) + #""a""# + pad(after) + ":" + pad(before) + "[" + pad(after) + "]}"
                #expect(Self.kinds(Array(object.utf8)).validated == .object)
                #expect(Self.kinds(Array((pad(before) + "\t\n\r" + pad(after) + "[]").utf8)).validated == .array)
                // A control byte or a letter in the middle of the run ends it: not white space.
                #expect(Self.kinds(Array((pad(before) + "\u{0B}" + pad(after) + "1").utf8)).validated == nil)
                #expect(Self.kinds(Array(("1" + pad(before) + "x" + pad(after)).utf8)).validated == nil)
            }
        }
    }

    @Test("on thousands of mutated documents, the check and the parser give the same answer")
    func mutatedDocuments() {
        let seeds = MutatedJSON.seeds(
            #"{"aps":{"alert":{"title":"Order shipped","body":"Your order"},"sound":"default","badge":3},"order":{"id":"A1","eta":1767258000}}"#)
        var accepted = 0
        var refused = 0
        for text in MutatedJSON.documents(from: seeds, seed: 0x9E37_79B9_7F4A_7C15) {
            let (validated, parsed) = Self.kinds(text)
            #expect(validated == parsed, "\(String(decoding: text, as: UTF8.self))")
            if parsed == nil { refused += 1 } else { accepted += 1 }
        }
        // The mutations reach both answers, so the agreement is not only on one side.
        #expect(accepted > 100 && refused > 100, "accepted \(accepted), refused \(refused)")
    }
}

@Suite("The tape built in one pass agrees with the scanner's recursive reading")
struct JSONTapeBuildTests {
    /// The entries a tape should hold, from the scanner's own recursive parser: range, kind and
    /// the index after each subtree, in document order (an object's children alternate key, value).
    static func expected(_ scanner: JSONScanner, _ value: JSONScanner.Value, into out: inout [(Range<Int>, JSONScanner.Kind, Int)]) {
        let me = out.count
        out.append((value.range, value.kind, 0))
        switch value.kind {
        case .object:
            scanner.forEachMember(of: value) { key, member in
                out.append(((key.lowerBound - 1)..<(key.upperBound + 1), .string, out.count + 1))
                expected(scanner, member, into: &out)
            }
        case .array:
            for element in scanner.elements(of: value) { expected(scanner, element, into: &out) }
        default: break
        }
        out[me].2 = out.count
    }

    static func check(_ text: [UInt8]) -> (agrees: Bool, valid: Bool) {
        text.withByteView { bytes in
            let scanner = JSONScanner(bytes)
            let tape = JSONTape(scanner)
            guard let root = scanner.root else { return (tape == nil, false) }
            guard let tape else { return (false, true) }
            var want: [(Range<Int>, JSONScanner.Kind, Int)] = []
            expected(scanner, root, into: &want)
            let got = tape.entries.map { ($0.value.range, $0.value.kind, $0.end) }
            return (got.count == want.count && zip(got, want).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 }, true)
        }
    }

    @Test("documents, nested and empty containers, and the nesting limit at its edge")
    func documents() {
        let texts = [
            #"{"message":{"token":"abc","data":{"k":"v"},"android":{"ttl":"3s","priority":"high"}},"validate_only":false}"#,
            #" [ 1 , [ ] , { } , [ [ { "a" : [ null ] } ] ] , "x" ] "#, "7", #""s""#, "[]", "{}", #"{"a":{}}"#,
        ]
        let nested = [(65, ""), (66, ""), (64, "1"), (65, "1")].map { depth, inner in
            String(repeating: "[", count: depth) + inner + String(repeating: "]", count: depth)
        }
        for text in texts + nested {
            #expect(Self.check(Array(text.utf8)).agrees, "\(text)")
        }
    }

    @Test("on thousands of mutated documents, the tape and the scanner's parser agree entry by entry")
    func mutatedDocuments() {
        let seeds = MutatedJSON.seeds(
            #"{"message":{"token":"dGVzdA:APA91b","notification":{"title":"Hi","body":"There"},"data":{"order":"A1"},"android":{"priority":"high","ttl":"3600s"}}}"#
        )
        var valid = 0
        var invalid = 0
        for text in MutatedJSON.documents(from: seeds, seed: 0x2545_F491_4F6C_DD1D) {
            let (agrees, isValid) = Self.check(text)
            #expect(agrees, "\(String(decoding: text, as: UTF8.self))")
            if isValid { valid += 1 } else { invalid += 1 }
        }
        #expect(valid > 100 && invalid > 100, "valid \(valid), invalid \(invalid)")
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
