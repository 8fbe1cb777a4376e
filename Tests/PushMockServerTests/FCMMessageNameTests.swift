import Testing

@testable import PushMockServer

@Suite("FCM message names written as bytes")
struct FCMMessageNameTests {
    static func decimal(_ value: Int64) -> String {
        var bytes = [UInt8](repeating: 0, count: 24)
        let count = bytes.withUnsafeMutableBufferPointer { buffer in
            FCMEndpoint.writeDecimal(value, to: buffer.baseAddress!) - buffer.baseAddress!
        }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    static func hex(_ value: UInt32) -> String {
        var bytes = [UInt8](repeating: 0, count: 8)
        let count = bytes.withUnsafeMutableBufferPointer { buffer in
            FCMEndpoint.writeHex(value, to: buffer.baseAddress!) - buffer.baseAddress!
        }
        return String(decoding: bytes[..<count], as: UTF8.self)
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

    @Test("hex digits are String(value, radix: 16)'s: lowercase, no leading zeros, 0 as \"0\"")
    func hexadecimals() {
        var values: [UInt32] = [0, 1, 0xF, 0x10, 0xFF, 0x1000_0000, 0xFFFF_FFFF, 0xDEAD_BEEF]
        for shift in 0..<32 { values += [1 << shift, (1 << shift) - 1] }
        var generator = SystemRandomNumberGenerator()
        values += (0..<2000).map { _ in UInt32.random(in: .min ... .max, using: &generator) }
        for value in values {
            #expect(Self.hex(value) == String(value, radix: 16))
        }
    }
}
