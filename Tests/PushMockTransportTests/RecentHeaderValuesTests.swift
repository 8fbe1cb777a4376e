import Testing

@testable import PushMockTransport

@Suite("Header values a connection repeats")
struct RecentHeaderValuesTests {
    static func text(_ cache: RecentHeaderValues, _ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { cache.text($0) }
    }

    /// Where a string's UTF-8 is stored (equal for two strings sharing one storage).
    static func storage(_ text: String) -> UnsafeRawPointer? {
        text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    @Test("a long value seen again is the same String; different or short values are decoded as they are")
    func sharing() {
        let cache = RecentHeaderValues()
        let bearer = Array("Bearer ya29.c.b0AXv0zTPushMockToken".utf8)
        let first = Self.text(cache, bearer)
        let second = Self.text(cache, bearer)
        #expect(first == "Bearer ya29.c.b0AXv0zTPushMockToken")
        #expect(second == first)
        #expect(Self.storage(first) != nil)
        #expect(Self.storage(first) == Self.storage(second))
        // Same length, one byte different: its own text.
        var other = bearer
        other[other.count - 1] = UInt8(ascii: "X")
        #expect(Self.text(cache, other) == "Bearer ya29.c.b0AXv0zTPushMockTokeX")
        #expect(Self.text(cache, bearer) == first)
        // Short values (small strings) and invalid UTF-8 (repaired as String(decoding:) does).
        #expect(Self.text(cache, Array("application/json".utf8.prefix(15))) == "application/jso")
        let invalid: [UInt8] = Array("user-agent value".utf8) + [0xFF]
        #expect(Self.text(cache, invalid) == String(decoding: invalid, as: UTF8.self))
        #expect(Self.text(cache, invalid) == "user-agent value\u{FFFD}")
    }

    @Test("eight are kept, replaced in turn; a replaced value is decoded again, correctly")
    func replacement() {
        let cache = RecentHeaderValues()
        let values = (0..<20).map { Array("/3/device/\(String(repeating: "a", count: 60))\($0)".utf8) }
        let firsts = values.map { Self.text(cache, $0) }
        // The last eight are kept: the same Strings again.
        for index in 12..<20 {
            let again = Self.text(cache, values[index])
            #expect(Self.storage(again) == Self.storage(firsts[index]), "value \(index) is shared")
        }
        // The first twelve were replaced: decoded again (new storage), still correct.
        for index in 0..<12 {
            let again = Self.text(cache, values[index])
            #expect(again == String(decoding: values[index], as: UTF8.self))
            #expect(Self.storage(again) != Self.storage(firsts[index]), "value \(index) was replaced")
        }
    }

    @Test("short values (up to 15 bytes) are kept too: equal bytes give the same text, any other bytes or length their own")
    func shortValues() {
        let cache = RecentHeaderValues()
        #expect(Self.text(cache, []) == "")
        let samples: [[UInt8]] = [
            Array("POST".utf8), Array("https".utf8), Array("10".utf8), Array("alert".utf8), Array("127.0.0.1:2197".utf8),
            Array("com.example.app".utf8), Array("1".utf8), Array("10".utf8) + [0], Array("com.example.apq".utf8),
            [0x61, 0xFF], [0xC3, 0xA9], Array("é".utf8) + [0xE2], Array("sandbox".utf8), Array("priority".utf8),
            Array("sandboxes".utf8), Array("production".utf8), Array("sandboxeS".utf8), Array("prioritY".utf8),
        ]
        // Twice through (the second time from what is kept, where it still is), and after
        // replacement (more samples than the eight kept): always what String(decoding:) gives.
        for _ in 0..<3 {
            for bytes in samples {
                #expect(Self.text(cache, bytes) == String(decoding: bytes, as: UTF8.self), "\(bytes)")
                #expect(Self.text(cache, bytes).utf8.count == String(decoding: bytes, as: UTF8.self).utf8.count)
            }
        }
        #expect(Self.text(cache, Array("10".utf8) + [0]).utf8.count == 3, "a length of its own")
        #expect(Self.text(cache, Array("com.example.app".utf8).dropLast() + [0x71]) == "com.example.apq")
    }

    @Test("known field names come back as themselves; any other name, a prefix or a longer one, is decoded as it is")
    func knownNames() {
        func name(_ text: String) -> String {
            Array(text.utf8).withUnsafeBufferPointer { KnownFieldNames.text($0) }
        }
        let connection = RecentHeaderValues()
        for known in KnownFieldNames.names.map(\.description) {
            #expect(name(known) == known)
            #expect(Array(known.utf8).withUnsafeBufferPointer { connection.name($0).text } == known, "a connection's lookup")
            if known.utf8.count > 15 {
                // Too long for a small string: the same storage each time, the table's own.
                var first = name(known)
                var second = name(known)
                #expect(first.withUTF8 { $0.baseAddress } == second.withUTF8 { $0.baseAddress }, "\(known) comes from the table")
            }
        }
        for other in ["authorizatio", "authorizationx", "apns-topics", "x-custom", "", "t"] {
            #expect(name(other) == other)
            #expect(Array(other.utf8).withUnsafeBufferPointer { connection.name($0).text } == other)
            #expect(Array(other.utf8).withUnsafeBufferPointer { connection.name($0).name } == .other, "\(other) is none of the known names")
        }
        let invalid: [UInt8] = [0x61, 0xFF]
        #expect(invalid.withUnsafeBufferPointer { KnownFieldNames.text($0) } == String(decoding: invalid, as: UTF8.self))
    }

    @Test("every known name is in the transport's table and comes back tagged as itself, so that a field tagged other is none of them")
    func knownNameTags() {
        let connection = RecentHeaderValues()
        let named = KnownHeaderName.allCases.filter { $0.text != nil }
        #expect(named.count == KnownHeaderName.allCases.count - 2, "only unchecked and other have no text")
        #expect(Set(KnownFieldNames.names.map(\.description)) == Set(named.map { $0.text!.description }))
        for known in named {
            let text = known.text!.description
            let found = Array(text.utf8).withUnsafeBufferPointer { connection.name($0) }
            #expect(found.text == text)
            #expect(found.name == known, "\(text)")
            // One byte off, at the end or the start: not the known name.
            let near = String(text.dropLast()) + (text.last == "x" ? "y" : "x")
            #expect(Array(near.utf8).withUnsafeBufferPointer { connection.name($0).name } == .other, "\(near)")
        }
    }
}
