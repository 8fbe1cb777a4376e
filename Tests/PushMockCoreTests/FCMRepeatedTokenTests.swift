import PushMockCore
import Testing

/// A connection's messages share one scratch (its walker is kept): a message to the connection's
/// last valid registration token takes the token and its check from there. Every other token is
/// read and checked afresh, whatever came before it on the connection.
@Suite("FCM: the connection's last valid token again")
struct FCMRepeatedTokenTests {
    static let first = "dGVzdC1pbnN0YW5jZS0wMDAx:APA91b" + String(repeating: "Fk3-_z", count: 25)
    static let second = "dGVzdC1pbnN0YW5jZS0wMDAy:APA91b" + String(repeating: "Fk3-_z", count: 25)

    /// What `validator` makes of a message to `token` (written into the JSON as given), on the
    /// connection whose memory is `scratch`: the token it targets, or Google's error.
    func send(_ written: String, _ validator: FCMMessageValidator, _ scratch: FCMMessageValidator.Scratch) -> String {
        let body = Array(#"{"message":{"token":"\#(written)","notification":{"title":"Hi"}}}"#.utf8)
        do {
            let result = try validator.validate(body, scratch: scratch)
            guard case .token(let token) = result.target else { return "target \(String(describing: result.target))" }
            return token
        } catch {
            return "\(error.code) \(error.message)"
        }
    }

    @Test("each message gets its own token: the same again, another, an invalid one, one written with an escape, and another rule")
    func eachTokenItsOwn() {
        let strict = FCMMessageValidator(strictRegistrationTokens: true)
        let lenient = FCMMessageValidator(strictRegistrationTokens: false)
        let scratch = FCMMessageValidator.Scratch()
        let invalid = "400 The registration token is not a valid FCM registration token"
        // `first` with its first letter written as a JSON escape: the same token once decoded.
        let escaped = #"\u0064"# + Self.first.dropFirst()
        let sequence: [(validator: FCMMessageValidator, written: String, expected: String)] = [
            (strict, Self.first, Self.first),
            (strict, Self.first, Self.first),
            (strict, Self.second, Self.second),
            (strict, Self.first, Self.first),
            // One byte changed at the end, and a shorter token: never taken for the last one.
            (strict, Self.first.dropLast() + "=", invalid),
            (strict, String(Self.first.dropLast()), String(Self.first.dropLast())),
            (strict, Self.first, Self.first),
            (strict, escaped, Self.first),
            (strict, escaped, Self.first),
            // Valid under the lenient rule only: the last token's check under the strict rule does not carry over.
            (lenient, "abc:def", "abc:def"),
            (strict, "abc:def", invalid),
            (lenient, Self.first, Self.first),
            (strict, Self.first, Self.first),
        ]
        for (index, step) in sequence.enumerated() {
            let answer = send(step.written, step.validator, scratch)
            #expect(answer == step.expected, "message \(index + 1): \(step.written)")
        }
    }
}
