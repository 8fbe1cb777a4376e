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
        // A body with every kind of byte the record's escaping treats apart.
        awkward.body = [0, 1, 9, 10, 13, 31, 32, 92, 92, 126, 127, 128, 200, 255] + Array(#"{"a":"\"é"}"#.utf8)
        // A token that is not ASCII, or that needs an escape, is lowercased as `lowercased()` does.
        var foreign = DeliveryStoreTests.delivery(3, token: "ÄBÇ\tDÉ\\")
        foreign.id = 3
        // The same connection and shared fields as `foreign`: it names foreign's, and adds none.
        var sibling = DeliveryStoreTests.delivery(4, token: "ABCD")
        sibling.id = 4
        let all = [plain, awkward, foreign, sibling]
        let (buffer, shared) = PostgresCopy.rowsAndShared(all)
        #expect(shared.rows.map(\.id) == [Int64.max, 1, 3] && shared.introduced == 3)
        let expectedShared: [Int64] = [Int64.max, 1, 3, 3]
        let bytes = Array(buffer.readableBytesView)
        #expect(bytes.last == UInt8(ascii: "\n"))
        let lines = bytes.dropLast().split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        try #require(lines.count == 4)
        for ((line, delivery), sharedID) in zip(zip(lines, all), expectedShared) {
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
            #expect(Self.text(row[13]) == String(sharedID))
            // The record is the own part in hex, printable ASCII only on the wire; with the shared
            // fields it names, it is the delivery.
            let raw = try #require(line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false).last)
            #expect(raw.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "the record column holds a byte that is not printable ASCII")
            let record = try #require(Self.text(row[14]))
            #expect(record.hasPrefix("\\x"))
            let hex = Array(record.utf8.dropFirst(2))
            let own = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<($0 + 2)], as: UTF8.self), radix: 16)! }
            let fields = try #require(shared.rows.first { $0.id == sharedID }?.fields)
            let read = CompactDelivery(
                id: delivery.id, receivedAt: delivery.receivedAt, connectionID: delivery.connectionID, status: delivery.status, outcome: delivery.outcome,
                service: delivery.service, bodyIsJSON: delivery.bodyIsJSON, shared: fields, own: own
            ).unpack()
            #expect(PackedDelivery(read).arena == PackedDelivery(delivery).arena)
        }
    }

    @Test("a batch split for the batch limit, or put back in front after a failed write, keeps each row with its id and the shared fields it names")
    func batchSplitsAndJoins() throws {
        let deliveries = (1...5).map { index in DeliveryStoreTests.delivery(index).with(id: UInt64(index * 10)) }
        var batch = PostgresCopyBatch()
        var slots = SharedSlots()
        #expect(batch.isEmpty)
        for delivery in deliveries { batch.append(delivery, id: delivery.id, carry: &slots) }
        let whole = Array(batch.rows.readableBytesView)
        #expect(whole == Array(PostgresCopy.rows(deliveries).readableBytesView))
        #expect(batch.count == 5 && batch.lastID == 50)
        // One connection, the same headers: the first delivery names the shared fields for all.
        #expect(batch.shared.rows.map(\.id) == [10] && batch.shared.introduced == 1)
        let lines = whole.split(separator: UInt8(ascii: "\n")).map { Array($0) + [UInt8(ascii: "\n")] }
        try #require(lines.count == 5)
        func rows(_ range: Range<Int>) -> [UInt8] { Array(lines[range].joined()) }

        var rest = batch
        let first = rest.takeFirst(2)
        #expect(first.ids == [10, 20] && first.lastID == 20)
        #expect(Array(first.rows.readableBytesView) == rows(0..<2))
        // Each part writes the shared fields it may name; the introduction is counted once.
        #expect(first.shared.rows.map(\.id) == [10] && rest.shared.rows.map(\.id) == [10])
        #expect(first.shared.introduced == 1 && rest.shared.introduced == 0)
        #expect(rest.ids == [30, 40, 50] && rest.count == 3)
        #expect(Array(rest.rows.readableBytesView) == rows(2..<5))

        // A second split of what is left: the row ends were moved with it.
        var tail = rest
        let middle = tail.takeFirst(1)
        #expect(middle.ids == [30] && tail.ids == [40, 50])
        #expect(Array(tail.rows.readableBytesView) == rows(3..<5))

        rest.insert(front: first)
        #expect(rest.ids == batch.ids && rest.shared.rows.map(\.id) == [10] && rest.shared.introduced == 1)
        #expect(Array(rest.rows.readableBytesView) == whole)
        let again = rest.takeFirst(4)
        #expect(again.ids == [10, 20, 30, 40] && rest.ids == [50])
        #expect(Array(rest.rows.readableBytesView) == rows(4..<5))

        var all = batch
        let everything = all.takeFirst(9)
        #expect(everything.ids == batch.ids && all.isEmpty)
    }
}
