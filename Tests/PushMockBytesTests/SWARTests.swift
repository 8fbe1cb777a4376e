import PushMockBytes
import Testing

/// The eight- and sixteen-bytes-at-once checks, each against the byte-by-byte rule it stands for.
@Suite("SWAR and SIMD: eight and sixteen bytes at once agree with the byte-by-byte rules")
struct SWARTests {
    static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
    }

    static func isBase64URL(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
    }

    @Test("eight bytes are all hex digits exactly when each one is: every byte value in every position")
    func hexDigits() {
        ByteRunCheck.agrees({ SWAR.allHexDigits(ByteRunCheck.word($0)) }, with: Self.isHexDigit, base: "09afAF5c")
    }

    @Test("eight bytes are all base64url exactly when each one is: every byte value in every position")
    func base64URL() {
        ByteRunCheck.agrees({ SWAR.allBase64URL(ByteRunCheck.word($0)) }, with: Self.isBase64URL, base: "09AZaz-_")
    }

    @Test("sixteen bytes are all hex digits exactly when each one is: every byte value in every lane")
    func hexDigitsSixteen() {
        ByteRunCheck.agrees({ SIMDBytes.allHexDigits(SIMD16($0)) }, with: Self.isHexDigit, base: "09afAF5c09AFaf5C")
    }

    @Test("sixteen bytes are all base64url exactly when each one is: every byte value in every lane")
    func base64URLSixteen() {
        ByteRunCheck.agrees({ SIMDBytes.allBase64URL(SIMD16($0)) }, with: Self.isBase64URL, base: "09AZaz-_9zZa_-0A")
    }

    @Test("a view's sixteen bytes at an offset are its lanes, first byte first")
    func loadsSixteen() {
        let bytes = (0..<40).map { UInt8($0 * 3) }
        for offset in 0...24 {
            #expect(bytes.withByteView { $0.loadSIMD16(at: offset) } == SIMD16(bytes[offset..<(offset + 16)]), "at \(offset)")
        }
    }

    /// Where the first byte that ends, escapes or needs a closer look is (nil: none).
    static func firstSpecial(_ bytes: [UInt8]) -> Int? {
        bytes.firstIndex { !($0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")) }
    }

    static func marked(_ bytes: [UInt8]) -> Int? {
        let mask = SWAR.jsonStringSpecials(bytes.withByteView { $0.loadUInt64(at: 0) })
        return mask == 0 ? nil : mask.trailingZeroBitCount / 8
    }

    static func firstLane(_ bytes: [UInt8]) -> Int? {
        let lane = SIMDBytes.firstJSONStringSpecial(SIMD16(bytes))
        return lane == 16 ? nil : lane
    }

    /// Records an issue wherever `found` (over runs of `width` bytes) is not the first special
    /// byte: every byte value in every position among ordinary fillers, then 20 000 random runs,
    /// where several special bytes meet (a borrow from the first must not hide it or invent an
    /// earlier one; in a vector, the first wins in either half).
    static func findsFirstSpecial(width: Int, _ found: ([UInt8]) -> Int?, sourceLocation: SourceLocation = #_sourceLocation) {
        for filler: UInt8 in [UInt8(ascii: "a"), 0x20, 0x7F, UInt8(ascii: "!"), UInt8(ascii: "]")] {
            for position in 0..<width {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: filler, count: width)
                    bytes[position] = UInt8(value)
                    #expect(found(bytes) == firstSpecial(bytes), "byte \(value) at \(position) among \(filler)", sourceLocation: sourceLocation)
                }
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let bytes = (0..<width).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(found(bytes) == firstSpecial(bytes), "\(bytes)", sourceLocation: sourceLocation)
        }
    }

    @Test("JSON strings, sixteen at once: the lane found is exactly the first quote, backslash, control character or non-ASCII byte")
    func everyByteInEveryLane() {
        Self.findsFirstSpecial(width: 16, Self.firstLane)
    }

    @Test("JSON strings: the lowest mark of a word is exactly its first quote, backslash, control character or non-ASCII byte")
    func everyByteInEveryPosition() {
        Self.findsFirstSpecial(width: 8, Self.marked)
    }
}
