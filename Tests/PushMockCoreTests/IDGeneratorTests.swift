import PushMockCore
import Testing

@Suite("Request ids")
struct IDGeneratorTests {
    @Test("the same seed gives the same ids, different seeds different ones")
    func seeded() {
        var a = IDGenerator(seed: 42)
        var b = IDGenerator(seed: 42)
        var c = IDGenerator(seed: 43)
        let first = (0..<100).map { _ in a.nextUUIDString() }
        #expect(first == (0..<100).map { _ in b.nextUUIDString() })
        #expect(first != (0..<100).map { _ in c.nextUUIDString() })
        #expect(Set(first).count == 100)
    }

    @Test("ids are uppercase version-4 UUIDs with the RFC variant")
    func format() {
        var ids = IDGenerator()
        for _ in 0..<1000 {
            let id = Array(ids.nextUUIDString().utf8)
            #expect(id.count == 36)
            for (index, byte) in id.enumerated() {
                if [8, 13, 18, 23].contains(index) {
                    #expect(byte == UInt8(ascii: "-"))
                } else {
                    #expect((UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte))
                }
            }
            #expect(id[14] == UInt8(ascii: "4"))
            #expect([UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "A"), UInt8(ascii: "B")].contains(id[19]))
        }
    }
}

@Suite("Hand-written JSON text")
struct JSONTextTests {
    @Test("escapes quotes, backslashes and control characters, and leaves the rest")
    func escape() {
        #expect(JSONText.escape("plain /3/device/abc") == "plain /3/device/abc")
        #expect(JSONText.escape(#"a"b\c"#) == #"a\"b\\c"#)
        #expect(JSONText.escape("line\nbreak\u{01}") == #"line\nbreak\u0001"#)
        #expect(JSONText.escape("é✓") == "é✓")
    }
}
