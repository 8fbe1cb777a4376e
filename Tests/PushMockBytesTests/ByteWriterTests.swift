import PushMockBytes
import Testing

@Suite("ByteWriter: decimal and hex digits, counts and strings, and its capacity")
struct ByteWriterTests {
    static func decimal(_ value: Int64) -> String {
        String(decoding: [UInt8](capacity: 20) { $0.putDecimal(value) }, as: UTF8.self)
    }

    static func hex(_ value: UInt64, digits: Int? = nil, uppercase: Bool = false) -> String {
        String(asciiCapacity: 16) { $0.putHex(value, digits: digits, uppercase: uppercase) }
    }

    @Test("decimal digits are String(value)'s, at every length, for negatives and the extremes")
    func decimals() {
        var values: [Int64] = [0, 1, -1, 9, 10, 99, 100, Int64.max, Int64.min, Int64.min + 1, 1_767_225_600_123_456]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -power]
        }
        var generator = SystemRandomNumberGenerator()
        values += (0..<2000).map { _ in Int64.random(in: .min ... .max, using: &generator) }
        for value in values {
            #expect(Self.decimal(value) == String(value))
        }
    }

    @Test("a UUID's text is its fields' hex digits, zero-padded, with the four dashes, in either case")
    func uuids() {
        func padded(_ value: UInt64, _ digits: Int, _ uppercase: Bool) -> String {
            let text = String(value, radix: 16, uppercase: uppercase)
            return String(repeating: "0", count: digits - text.count) + text
        }
        var generator = SystemRandomNumberGenerator()
        let values: [(UInt64, UInt64)] =
            [(0, 0), (.max, .max), (0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210), (1, 1 << 63)]
            + (0..<1000).map { _ in (UInt64.random(in: .min ... .max, using: &generator), UInt64.random(in: .min ... .max, using: &generator)) }
        for (high, low) in values {
            for uppercase in [true, false] {
                let expected = [
                    padded(high >> 32, 8, uppercase), padded((high >> 16) & 0xFFFF, 4, uppercase), padded(high & 0xFFFF, 4, uppercase),
                    padded(low >> 48, 4, uppercase), padded(low & 0xFFFF_FFFF_FFFF, 12, uppercase),
                ].joined(separator: "-")
                #expect(String(asciiCapacity: 36) { $0.putUUID(high: high, low: low, uppercase: uppercase) } == expected)
            }
        }
    }

    @Test("hex digits are String(value, radix: 16)'s: lowercase, no leading zeros, 0 as \"0\"")
    func hexadecimals() {
        var values: [UInt64] = [0, 1, 0xF, 0x10, 0xFF, 0x1000_0000, 0xFFFF_FFFF, 0xDEAD_BEEF, .max]
        for shift in 0..<64 { values += [1 << shift, (1 << shift) - 1] }
        var generator = SystemRandomNumberGenerator()
        values += (0..<2000).map { _ in UInt64.random(in: .min ... .max, using: &generator) }
        for value in values {
            #expect(Self.hex(value) == String(value, radix: 16))
            #expect(Self.hex(value, uppercase: true) == String(value, radix: 16, uppercase: true))
        }
    }

    @Test("a fixed number of hex digits keeps leading zeros and takes the lowest nibbles")
    func fixedDigits() {
        #expect(Self.hex(0, digits: 4) == "0000")
        #expect(Self.hex(0xABC, digits: 4, uppercase: true) == "0ABC")
        #expect(Self.hex(0x1_2345, digits: 4) == "2345")
        #expect(Self.hex(.max, digits: 16) == "ffffffffffffffff")
        #expect(Self.hex(0x5, digits: 0) == "")
    }

    @Test("counts and strings read back through VarBytes.Reader, with their sizes as VarBytes says")
    func varBytes() {
        let counts = [0, 1, 127, 128, 255, 16_383, 16_384, 1 << 21, 1 << 28, Int(Int32.max), 1 << 55]
        let strings: [String?] = [nil, "", "a", "é€😀", String(repeating: "x", count: 300)]
        let size = counts.map(VarBytes.size).reduce(0, +) + strings.map(VarBytes.size).reduce(0, +)
        let bytes = [UInt8](capacity: size) { out in
            for count in counts { out.putCount(count) }
            for string in strings { out.putString(string) }
            #expect(out.count == size, "the sizes are what is written")
        }
        #expect(bytes.count == size)
        bytes.withByteView { view in
            var reader = VarBytes.Reader(view)
            // A count is at most what remains (plus `extra`): read the large ones as if it could be.
            for count in counts { #expect(reader.count(extra: count) == count) }
            for string in strings { #expect(reader.string() == string) }
            #expect(!reader.failed)
            #expect(reader.remaining == 0)
        }
    }

    @Test("the capacity check every write makes: what fits and what does not")
    func capacityCheck() {
        _ = [UInt8](capacity: 4) { out in
            #expect(out.fits(4) && out.fits(0))
            #expect(!out.fits(5) && !out.fits(-1) && !out.fits(Int.max))
            out.put("abc")
            #expect(out.fits(1) && !out.fits(2))
            out.put(UInt8(ascii: "d"))
            #expect(out.fits(0) && !out.fits(1))
        }
        // Int64.min takes 20 bytes: a sign and 19 digits.
        #expect([UInt8](capacity: 20) { $0.putDecimal(Int64.min) }.count == 20)
    }

    @Test("an array holds exactly what was written, which may be less than the capacity; a throw is passed on")
    func partialAndThrowing() throws {
        #expect([UInt8](capacity: 10) { $0.put(UInt8(7)) } == [7])
        #expect([UInt8](capacity: 0) { (_: inout ByteWriter) in } == [])
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            _ = try [UInt8](capacity: 4) { out throws(Stop) in
                out.put(UInt8(1))
                throw Stop()
            }
        }
        #expect(throws: Stop.self) {
            _ = try [UInt8](capacity: [UInt8].smallCapacity + 1) { out throws(Stop) in
                out.put(UInt8(1))
                throw Stop()
            }
        }
    }

    @Test(
        "written on the stack up to smallCapacity, in an array of its own beyond: the same bytes either way",
        arguments: [[UInt8].smallCapacity - 1, [UInt8].smallCapacity, [UInt8].smallCapacity + 1, 5 * [UInt8].smallCapacity])
    func smallAndLarge(capacity: Int) {
        let expected = (0..<capacity).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let full = [UInt8](capacity: capacity) { out in
            for byte in expected { out.put(byte) }
            let room = out.fits(1)
            #expect(!room)
        }
        #expect(full == expected)
        #expect([UInt8](capacity: capacity) { out in out.put(UInt8(9)) } == [9])
    }
}
