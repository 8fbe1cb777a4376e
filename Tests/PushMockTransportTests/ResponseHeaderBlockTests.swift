import Testing

@testable import PushMockTransport

@Suite("A response's header block as nghttp2 takes it")
struct ResponseHeaderBlockTests {
    static func fields(_ block: ResponseHeaderBlock) -> [String] {
        (0..<block.count).map { index in
            let field = block.field(index)
            return "\(field.name): \(field.value)\(field.neverIndex ? " (never indexed)" : "")"
        }
    }

    @Test("status, fields in order with their never-index flag, content-length last; an empty value and non-ASCII kept")
    func fieldsInOrder() {
        let block = ResponseHeaderBlock()
        let headers = HTTPHeaderList([
            HeaderField(name: "apns-id", value: "3C9A8F0E-4B1D-4F5E-9D2A-0123456789AB", neverIndex: true),
            HeaderField(name: "x-empty", value: ""),
            HeaderField(name: "x-text", value: "café ☕"),
        ])
        block.set(status: 200, headers: headers, contentLength: 42)
        #expect(
            Self.fields(block) == [
                ":status: 200", "apns-id: 3C9A8F0E-4B1D-4F5E-9D2A-0123456789AB (never indexed)", "x-empty: ", "x-text: café ☕",
                "content-length: 42",
            ])
        block.set(status: 410, headers: [], contentLength: nil)
        #expect(Self.fields(block) == [":status: 410"])
    }

    @Test(
        "numbers as their decimal digits; a negative one as 0",
        arguments: [0, 7, 9, 10, 99, 100, 101, 109, 110, 200, 204, 431, 599, 909, 990, 999, 1000, 4096, 65_535, 999_999_999, Int.max, -1])
    func digits(number: Int) {
        let block = ResponseHeaderBlock()
        block.set(status: 200, headers: [], contentLength: number)
        #expect(block.field(1).value == String(Swift.max(number, 0)))
        #expect(block.field(1).name == "content-length")
    }

    @Test("a block larger than the room kept grows it, and the next block after it is whole")
    func growth() {
        let block = ResponseHeaderBlock(byteCapacity: 8, fieldCapacity: 1)
        let long = String(repeating: "v", count: 5_000)
        let many = HTTPHeaderList((0..<40).map { HeaderField(name: "x-field-\($0)", value: "\($0)-" + long.prefix($0)) })
        block.set(status: 500, headers: many, contentLength: 5_000)
        #expect(block.count == 42)
        #expect(Self.fields(block) == [":status: 500"] + many.map { "\($0.name): \($0.value)" } + ["content-length: 5000"])
        block.set(status: 201, headers: HTTPHeaderList([HeaderField(name: "location", value: long)]), contentLength: 0)
        #expect(Self.fields(block) == [":status: 201", "location: \(long)", "content-length: 0"])
    }
}
