import PushMockCore
import Testing

/// The registration token check reads sixteen, then eight bytes at a time; it must say exactly what a check of
/// one byte at a time says.
@Suite("The registration token's base64url check")
struct RegistrationTokenCheckTests {
    static func isBase64URL(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
    }

    /// The rules byte by byte: `<a>:<b>`, both non-empty base64url, and (strict) `APA91b` after
    /// the colon and 100…4096 bytes in all.
    static func reference(_ token: String, strict: Bool) -> Bool {
        let bytes = Array(token.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon < bytes.count - 1 else { return false }
        for (index, byte) in bytes.enumerated() where index != colon && !isBase64URL(byte) { return false }
        guard strict else { return true }
        return bytes.count >= 100 && bytes.count <= 4096 && bytes[(colon + 1)...].starts(with: Array("APA91b".utf8))
    }

    @Test("a token with anything else at any position, a second colon, or any length is judged as byte by byte")
    func tokensAgreeWithTheRules() {
        let real = "dGVzdC1pbnN0YW5jZS0wMDAx:APA91b" + String(repeating: "Fk3-_z", count: 25)
        var tokens = [real, ":APA91b", "abc:", "abc", "a:b", "a:APA91b", real + ":x"]
        for length in 1...40 { tokens.append("a:" + String(repeating: "b", count: length)) }
        let characters = Array(real)
        for position in 0..<characters.count {
            for odd in [":", "/", ".", "=", "+", " ", "é", "\u{0}", "@", "[", "`", "{"] {
                var changed = characters
                changed[position] = Character(odd)
                tokens.append(String(changed))
            }
        }
        for token in tokens {
            for strict in [true, false] {
                #expect(
                    FCMMessageValidator(strictRegistrationTokens: strict).isRegistrationToken(token) == Self.reference(token, strict: strict),
                    "\(token.debugDescription) strict \(strict)")
            }
        }
        #expect(FCMMessageValidator().isRegistrationToken(real))
    }
}
