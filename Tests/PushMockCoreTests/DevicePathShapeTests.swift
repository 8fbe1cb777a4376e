import PushMockCore
import Testing

/// The device path check reads a token sixteen, then eight bytes at a time; it must say exactly what a check of
/// one byte at a time says.
@Suite("The /3/device/<token> path check")
struct DevicePathShapeTests {
    static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
    }

    /// The shape by the plain rules: the prefix, then no `/` or `?`, and an even number of hex digits.
    static func reference(_ path: String) -> APNSValidator.DevicePathShape {
        let bytes = Array(path.utf8)
        let prefix = Array("/3/device/".utf8)
        if bytes == Array(prefix.dropLast()) || bytes == prefix { return .missingToken }
        guard bytes.count > prefix.count, Array(bytes[..<prefix.count]) == prefix else { return .badPath }
        let token = bytes[prefix.count...]
        if token.contains(UInt8(ascii: "/")) || token.contains(UInt8(ascii: "?")) { return .badPath }
        return .token(isEvenHex: token.count % 2 == 0 && token.allSatisfy(isHexDigit))
    }

    @Test("a token with anything else at any position, of any length, is judged as byte by byte")
    func pathsAgreeWithTheRules() {
        let hex = "0123456789abcdefABCDEF0123456789abcdef0123456789ABCDEF0123456789"
        var paths = ["/3/device", "/3/device/", "/3/devices/ab", "/3/device/\(hex)", "/3/device/\(hex.dropLast())", "/4/device/\(hex)"]
        for length in 1...70 { paths.append("/3/device/" + String(repeating: "a", count: length)) }
        for position in 0..<64 {
            for odd in ["/", "?", "g", "G", " ", "é", "\u{0}", ":", "@", "`"] {
                var token = Array(hex)
                token[position] = Character(odd)
                paths.append("/3/device/" + String(token))
            }
        }
        for path in paths {
            #expect(APNSValidator.devicePathShape(path) == Self.reference(path), "\(path.debugDescription)")
        }
        #expect(APNSValidator.devicePathShape("/3/device/\(hex)") == .token(isEvenHex: true))
        #expect(APNSValidator.devicePathShape("/3/device/\(hex.dropLast())") == .token(isEvenHex: false))
        #expect(APNSValidator.devicePathShape("/3/device/ab/cd") == .badPath)
    }
}
