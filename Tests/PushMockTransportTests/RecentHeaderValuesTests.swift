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

    @Test("known field names come back as themselves; any other name, a prefix or a longer one, is decoded as it is")
    func knownNames() {
        func name(_ text: String) -> String {
            Array(text.utf8).withUnsafeBufferPointer { KnownFieldNames.text($0) }
        }
        for known in ["authorization", "apns-topic", "apns-collapse-id", "content-type", "te", "x-goog-api-client"] {
            #expect(name(known) == known)
        }
        for other in ["authorizatio", "authorizationx", "apns-topics", "x-custom", "", "t"] {
            #expect(name(other) == other)
        }
        let invalid: [UInt8] = [0x61, 0xFF]
        #expect(invalid.withUnsafeBufferPointer { KnownFieldNames.text($0) } == String(decoding: invalid, as: UTF8.self))
    }
}
