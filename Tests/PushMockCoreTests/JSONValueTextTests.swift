import PushMockCore
import Testing

/// A caller's JSON written back as it was given: the payload a test push sends.
@Suite("JSONValue as compact text")
struct JSONValueTextTests {
    @Test("members keep their order; strings are escaped; numbers keep their text; the text parses back to the same value")
    func roundTrip() throws {
        let source =
            #"{"web_push":8030,"notification":{"title":"say \"hi\"\n","navigate":"https://example.com/a/b"},"z":[1.5e3,-0,true,null],"a":{}}"#
        let value = try #require(JSONValue.parse(Array(source.utf8)))
        let text = value.compactText
        #expect(String(decoding: text, as: UTF8.self) == source)
        #expect(JSONValue.parse(text) == value)
        for _ in 0..<20 {
            #expect(value.compactText == text, "the same bytes every time")
        }
    }

    @Test("a number made in code that is not a JSON number is written as a string, so the text is JSON")
    func numbersMadeInCode() {
        for (number, written) in [
            ("12", "12"), ("-0.5", "-0.5"), ("1E+9", "1E+9"), ("inf", #""inf""#), ("01", #""01""#), ("1.", #""1.""#), ("", #""""#),
        ] {
            let text = String(decoding: JSONValue.array([.number(number)]).compactText, as: UTF8.self)
            #expect(text == "[\(written)]", "\(number)")
            #expect(JSONValue.parse(Array(text.utf8)) != nil, "\(text) is JSON")
        }
    }
}
