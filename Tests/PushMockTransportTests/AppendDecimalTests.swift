import Testing

@testable import PushMockTransport

@Suite("Numbers written as response header digits")
struct AppendDecimalTests {
    @Test(
        "each number's decimal digits, after what the buffer held; negatives as 0",
        arguments: [0, 7, 9, 10, 99, 100, 200, 431, 599, 1000, 4096, 65_535, 999_999_999, Int.max, -1])
    func digits(number: Int) {
        var bytes = Array("x:".utf8)
        bytes.appendDecimal(number)
        #expect(String(decoding: bytes, as: UTF8.self) == "x:" + String(Swift.max(number, 0)))
    }
}
