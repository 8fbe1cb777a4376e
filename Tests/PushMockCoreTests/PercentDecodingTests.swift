import PushMockCore
import Testing

@Suite("One percent-decoder for queries, forms and path segments; one cut of /3/device/<token>")
struct PercentDecodingTests {
    @Test(
        "escapes, plus signs and bad escapes",
        arguments: [
            ("a%41b", "aAb", "aAb"),
            ("a+b", "a b", "a+b"),
            ("a%2Bb", "a+b", "a+b"),
            ("%zz", "%zz", "%zz"),
            ("50%", "50%", "50%"),
            ("%4", "%4", "%4"),
            ("%4g1", "%4g1", "%4g1"),
            ("%%41", "%A", "%A"),
            ("caf%C3%A9", "café", "café"),
            ("%FF", "\u{FFFD}", "\u{FFFD}"),
            ("", "", ""),
        ])
    func decoding(_ text: String, _ query: String, _ path: String) {
        #expect(PercentDecoding.queryValue(text[...]) == query, "query \(text)")
        #expect(PercentDecoding.pathSegment(text[...]) == path, "path \(text)")
    }

    @Test(
        "the token of an APNs device path",
        arguments: [
            ("/3/device/abcd", "abcd"),
            ("/3/device/abcd?x=1", "abcd"),
            ("/3/device/abcd/extra", "abcd"),
            ("/3/device/", nil),
            ("/3/device", nil),
            ("/3/devices/abcd", nil),
            ("/v1/projects/p/messages:send", nil),
        ] as [(String, String?)])
    func deviceToken(_ path: String, _ token: String?) {
        #expect(APNSDevicePath.token(in: path).map(String.init) == token, "\(path)")
    }
}
