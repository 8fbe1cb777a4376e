import Foundation
import NIOCore
import PushMockCore
import PushMockStore
import PushMockTestSupport
import Testing

@testable import PushMockPostgres

/// The rows of binary array elements, read back by the rules PostgreSQL reads them with (no
/// server needed), and the arrays a write gathers from them.
@Suite("PostgreSQL rows")
struct PostgresRowsTests {
    /// The rows in `bytes`, each as its elements (nil for NULL), and each as its bytes.
    static func rows(_ bytes: [UInt8]) throws -> [(fields: [[UInt8]?], bytes: [UInt8])] {
        var rows: [(fields: [[UInt8]?], bytes: [UInt8])] = []
        var index = 0
        while index < bytes.count {
            let start = index
            var fields: [[UInt8]?] = []
            for _ in 0..<PostgresRows.columns.count {
                try #require(index + 4 <= bytes.count, "a row is cut off")
                let length = Int32(
                    bitPattern: UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
                )
                index += 4
                if length < 0 {
                    fields.append(nil)
                    continue
                }
                try #require(index + Int(length) <= bytes.count, "an element is cut off")
                fields.append(Array(bytes[index..<(index + Int(length))]))
                index += Int(length)
            }
            rows.append((fields, Array(bytes[start..<index])))
        }
        return rows
    }

    static func text(_ field: [UInt8]?) -> String? { field.map { String(decoding: $0, as: UTF8.self) } }

    static func int8(_ field: [UInt8]?) -> Int64? {
        guard let field, field.count == 8 else { return nil }
        return Int64(bitPattern: field.reduce(0) { $0 << 8 | UInt64($1) })
    }

    @Test("every column reads back as recorded: numbers at their limits, NULLs, awkward text, NUL left out, the record as it is")
    func readBack() throws {
        var plain = SampleDelivery.make(1)
        plain.id = UInt64.max
        plain.connectionID = 0
        var awkward = SampleDelivery.make(2, outcome: .rejected, token: "ABCDEF")
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
        var foreign = SampleDelivery.make(3, token: "ÄBÇ\tDÉ\\")
        foreign.id = 3
        // The same connection and shared fields as `foreign`: it names foreign's, and adds none.
        var sibling = SampleDelivery.make(4, token: "ABCD")
        sibling.id = 4
        let all = [plain, awkward, foreign, sibling]
        let (buffer, shared) = PostgresRows.rowsAndShared(all)
        #expect(shared.rows.map(\.id) == [Int64.max, 1, 3] && shared.introduced == 3)
        let expectedShared: [Int64] = [Int64.max, 1, 3, 3]
        let bytes = Array(buffer.readableBytesView)
        let rows = try Self.rows(bytes)
        try #require(rows.count == 4)
        for ((row, delivery), sharedID) in zip(zip(rows.map(\.fields), all), expectedShared) {
            try #require(row.count == PostgresRows.columns.count)
            #expect(Self.int8(row[0]) == Int64(clamping: delivery.id))
            #expect(Self.int8(row[1]) == delivery.receivedAt)
            #expect(Self.int8(row[2]) == Int64(clamping: delivery.connectionID))
            #expect(Self.text(row[3]) == delivery.service.rawValue)
            #expect(Self.text(row[4]) == delivery.environment)
            #expect(Self.text(row[5]) == delivery.deviceToken?.lowercased())
            #expect(Self.text(row[6]) == delivery.topic?.replacingOccurrences(of: "\u{0}", with: ""))
            #expect(Self.text(row[7]) == delivery.pushType)
            #expect(Self.text(row[8]) == delivery.outcome.rawValue)
            #expect(Self.text(row[9]) == delivery.reason)
            #expect(Self.int8(row[10]) == Int64(delivery.status))
            #expect(Self.text(row[11]) == delivery.project)
            #expect(row[12] == [delivery.bodyIsJSON ? 1 : 0])
            #expect(Self.int8(row[13]) == sharedID)
            // No text holds a NUL (PostgreSQL's text cannot).
            for (column, field) in zip(PostgresRows.columns, row) where column.element == .text {
                #expect(field?.contains(0) != true, "\(column.name) holds a NUL")
            }
            // The record is the own part as it is; with the shared fields it names, it is the delivery.
            let own = try #require(row[14])
            let fields = try #require(shared.rows.first { $0.id == sharedID }?.fields)
            let read = CompactDelivery(
                id: delivery.id, receivedAt: delivery.receivedAt, connectionID: delivery.connectionID, status: delivery.status,
                outcome: delivery.outcome,
                service: delivery.service, bodyIsJSON: delivery.bodyIsJSON, shared: fields, own: own
            ).unpack()
            #expect(PackedDelivery(read).arena == PackedDelivery(delivery).arena)
        }
    }

    @Test(
        "a write gathers each column into one binary array: PostgreSQL's header (one dimension, NULL flag, element type, length, lower bound 1), then the rows' elements in order"
    )
    func columnsGathered() throws {
        var nulls = SampleDelivery.make(2, outcome: .rejected)
        nulls.environment = nil
        nulls.pushType = nil
        let deliveries = [SampleDelivery.make(1).with(id: 7), nulls.with(id: 8), SampleDelivery.make(3).with(id: 9)]
        let buffer = PostgresRows.rows(deliveries)
        let rows = try Self.rows(Array(buffer.readableBytesView)).map(\.fields)
        let arrays = PostgresRows.arrays(rows: buffer, count: rows.count)
        try #require(arrays.count == PostgresRows.columns.count)
        func int32(_ bytes: [UInt8], _ at: Int) -> Int32 {
            Int32(bitPattern: UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3]))
        }
        for (index, (column, array)) in zip(PostgresRows.columns, arrays).enumerated() {
            #expect(array.psqlType == column.element.arrayType)
            let bytes = Array(array.bytes.readableBytesView)
            try #require(bytes.count >= 20)
            let expected = rows.map { $0[index] }
            #expect(int32(bytes, 0) == 1, "\(column.name): dimensions")
            #expect(int32(bytes, 4) == (expected.contains { $0 == nil } ? 1 : 0), "\(column.name): NULL flag")
            #expect(int32(bytes, 8) == column.element.oid, "\(column.name): element type")
            #expect(int32(bytes, 12) == Int32(rows.count), "\(column.name): length")
            #expect(int32(bytes, 16) == 1, "\(column.name): lower bound")
            var at = 20
            var elements: [[UInt8]?] = []
            while at < bytes.count {
                let length = int32(bytes, at)
                at += 4
                if length < 0 {
                    elements.append(nil)
                    continue
                }
                elements.append(Array(bytes[at..<(at + Int(length))]))
                at += Int(length)
            }
            #expect(elements == expected, "\(column.name): elements")
        }
        #expect(PostgresRows.insertSQL.hasPrefix("INSERT INTO pushmock_delivery (id, received_at, connection_id, service,"))
        #expect(PostgresRows.insertSQL.hasSuffix("$14::int8[], $15::bytea[])"))
    }

    @Test("a batch split for the batch limit, or put back in front after a failed write, keeps each row with its id and the shared fields it names")
    func batchSplitsAndJoins() throws {
        let deliveries = (1...5).map { index in SampleDelivery.make(index).with(id: UInt64(index * 10)) }
        var batch = PostgresRowBatch()
        var slots = SharedSlots()
        #expect(batch.isEmpty)
        for delivery in deliveries { batch.append(delivery, id: delivery.id, carry: &slots) }
        let whole = Array(batch.rows.readableBytesView)
        #expect(whole == Array(PostgresRows.rows(deliveries).readableBytesView))
        #expect(batch.count == 5 && batch.lastID == 50)
        // One connection, the same headers: the first delivery names the shared fields for all.
        #expect(batch.shared.rows.map(\.id) == [10] && batch.shared.introduced == 1)
        let lines = try Self.rows(whole).map(\.bytes)
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
