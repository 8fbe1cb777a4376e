import Foundation
import NIOCore
import PushMockCore
import PushMockStore
import Testing

@testable import PushMockPostgres

/// The `COPY` text rows, read back by the rules PostgreSQL reads them with (no server needed).
@Suite("PostgreSQL COPY rows")
struct PostgresCopyTests {
    /// One row's fields as PostgreSQL reads them: nil for `\N`, escapes undone.
    static func fields(_ line: ArraySlice<UInt8>) -> [[UInt8]?] {
        line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false).map { field in
            if Array(field) == Array("\\N".utf8) { return nil }
            var out: [UInt8] = []
            var escaped = false
            for byte in field {
                if escaped {
                    switch byte {
                    case UInt8(ascii: "t"): out.append(UInt8(ascii: "\t"))
                    case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
                    case UInt8(ascii: "r"): out.append(UInt8(ascii: "\r"))
                    default: out.append(byte)
                    }
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else {
                    out.append(byte)
                }
            }
            return out
        }
    }

    static func text(_ field: [UInt8]?) -> String? { field.map { String(decoding: $0, as: UTF8.self) } }

    @Test("every column reads back as recorded: numbers at their limits, NULLs, escapes, NUL left out, the record in hex")
    func readBack() throws {
        var plain = DeliveryStoreTests.delivery(1)
        plain.id = UInt64.max
        plain.connectionID = 0
        var awkward = DeliveryStoreTests.delivery(2, outcome: .rejected, token: "ABCDEF")
        awkward.id = 1
        awkward.receivedAt = -1_234_567
        awkward.status = 0
        awkward.topic = "tab\there\\back\nline\rcr\u{0}nul é 🚀"
        awkward.reason = "\\N"
        awkward.environment = nil
        awkward.pushType = nil
        awkward.project = "p\t"
        awkward.bodyIsJSON = false
        let buffer = PostgresCopy.rows([plain, awkward])
        let bytes = Array(buffer.readableBytesView)
        #expect(bytes.last == UInt8(ascii: "\n"))
        let lines = bytes.dropLast().split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        try #require(lines.count == 2)
        for (line, delivery) in zip(lines, [plain, awkward]) {
            let row = Self.fields(line)
            try #require(row.count == PostgresCopy.columns.count)
            #expect(Self.text(row[0]) == String(delivery.id))
            #expect(Self.text(row[1]) == String(delivery.receivedAt))
            #expect(Self.text(row[2]) == String(delivery.connectionID))
            #expect(Self.text(row[3]) == delivery.service.rawValue)
            #expect(Self.text(row[4]) == delivery.environment)
            #expect(Self.text(row[5]) == delivery.deviceToken?.lowercased())
            #expect(Self.text(row[6]) == delivery.topic?.replacingOccurrences(of: "\u{0}", with: ""))
            #expect(Self.text(row[7]) == delivery.pushType)
            #expect(Self.text(row[8]) == delivery.outcome.rawValue)
            #expect(Self.text(row[9]) == delivery.reason)
            #expect(Self.text(row[10]) == String(delivery.status))
            #expect(Self.text(row[11]) == delivery.project)
            #expect(Self.text(row[12]) == (delivery.bodyIsJSON ? "t" : "f"))
            let hex = PackedDelivery(delivery).arena.map { String(format: "%02x", $0) }.joined()
            #expect(Self.text(row[13]) == "\\x" + hex)
        }
    }
}
