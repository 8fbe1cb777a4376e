import PushMockCore
import Testing

@Suite("What is kept of an upstream's answer")
struct RelayResultTests {
    @Test("a reason, a message name or an error code of a megabyte is kept as its first 256 characters and its length")
    func hugeTextsAreCapped() {
        let huge = String(repeating: "R", count: 1 << 20)
        let apns = RelayResult.apnsReason(body: Array(#"{"reason":"\#(huge)"}"#.utf8))
        let google = RelayResult.googleReason(body: Array(#"{"error":{"code":400,"status":"\#(huge)"}}"#.utf8))
        let name = RelayResult.messageName(body: Array(#"{"name":"\#(huge)"}"#.utf8))
        for kept in [apns, google, name] {
            #expect(kept?.hasPrefix(String(repeating: "R", count: RelayResult.maximumTextLength) + "… (1048576 bytes") == true)
            #expect((kept?.utf8.count ?? .max) < RelayResult.maximumTextLength + 100, "\(kept?.utf8.count ?? -1) bytes kept")
        }
    }

    @Test("the real services' texts are kept as they are")
    func ordinaryTexts() {
        #expect(RelayResult.apnsReason(body: Array(#"{"reason":"BadDeviceToken"}"#.utf8)) == "BadDeviceToken")
        #expect(RelayResult.messageName(body: Array(#"{"name":"projects/p/messages/0:1"}"#.utf8)) == "projects/p/messages/0:1")
        #expect(RelayResult.capped(String(repeating: "é", count: 128)) == String(repeating: "é", count: 128), "256 bytes, 128 characters: kept")
    }
}
