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

    /// Whether `text` is a version 4 UUID's lowercase text with the RFC variant.
    static func isLowercaseUUIDv4(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            switch index {
            case 8, 13, 18, 23: guard byte == UInt8(ascii: "-") else { return false }
            default:
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) else {
                    return false
                }
            }
        }
        return bytes[14] == UInt8(ascii: "4") && "89ab".utf8.contains(bytes[19])
    }

    @Test("a generated id is written as a UUID's lowercase text after the fields, before content-length, with its never-index flag")
    func generatedID() {
        let block = ResponseHeaderBlock(byteCapacity: 8, fieldCapacity: 1)
        let id = HTTPServerResponse.GeneratedID(name: .apnsUniqueID, random: 0x0123_4567_89AB_CDEF, neverIndex: true)
        #expect(Self.isLowercaseUUIDv4(id.value), "\(id.value)")
        block.set(status: 200, headers: [("apns-id", "3C9A8F0E-4B1D-4F5E-9D2A-0123456789AB")], generatedID: id, contentLength: 0)
        #expect(
            Self.fields(block) == [
                ":status: 200", "apns-id: 3C9A8F0E-4B1D-4F5E-9D2A-0123456789AB", "apns-unique-id: \(id.value) (never indexed)", "content-length: 0",
            ])
        let indexed = HTTPServerResponse.GeneratedID(name: .apnsUniqueID, random: 0x0123_4567_89AB_CDEF, neverIndex: false)
        #expect(indexed.value == id.value, "the flag is not part of the value")
        block.set(status: 200, headers: [], generatedID: indexed, contentLength: nil)
        #expect(Self.fields(block) == [":status: 200", "apns-unique-id: \(id.value)"])
    }

    @Test("a generated id is the same for the same random bits and differs for others, a v4 UUID each; its name and flag kept beside them")
    func generatedIDBits() {
        let randoms: [UInt64] = [0, 1, 2, 0x80, 1 << 55, 0x00FF_FFFF_FFFF_FFFF] + (0..<200).map { $0 &* 0x9E37_79B9_7F4A_7C15 }
        var seen: Set<String> = []
        for random in randoms {
            let id = HTTPServerResponse.GeneratedID(name: .apnsUniqueID, random: random, neverIndex: random % 2 == 0)
            #expect(Self.isLowercaseUUIDv4(id.value), "\(id.value)")
            #expect(id.value == HTTPServerResponse.GeneratedID(name: .apnsUniqueID, random: random, neverIndex: true).value)
            #expect(id.name == .apnsUniqueID)
            #expect(id.nameText.description == "apns-unique-id")
            #expect(id.neverIndex == (random % 2 == 0))
            seen.insert(id.value)
            var response = HTTPServerResponse(status: 200)
            response.generatedID = id
            #expect(response.generatedID == id, "kept by the response as it was")
        }
        #expect(seen.count == Set(randoms.map { $0 & 0x00FF_FFFF_FFFF_FFFF }).count, "a different id for different bits")
        #expect(HTTPServerResponse(status: 200).generatedID == nil)
    }

    @Test("an answer's fields as HTTP/1.1 writes them: the list, then the generated id's field")
    func allHeaders() {
        let id = HTTPServerResponse.GeneratedID(name: .apnsUniqueID, random: 7, neverIndex: true)
        let response = HTTPServerResponse(status: 200, headers: [("apns-id", "x")], generatedID: id)
        #expect(response.allHeaders.map(\.name) == ["apns-id", "apns-unique-id"])
        #expect(response.allHeaders["apns-unique-id"] == id.value)
        #expect(response.allHeaders.fields.last?.neverIndex == true)
        #expect(HTTPServerResponse(status: 200, headers: [("apns-id", "x")]).allHeaders.map(\.name) == ["apns-id"])
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
