import PushMockCore
import PushMockSQLite
import PushMockStore
import PushMockTestSupport
import Testing

/// The rows SQLite deliveries are queued as, read back without a database.
@Suite("SQLite row batches")
struct SQLiteRowBatchTests {
    /// Each row of `batch`: its numbers, its text columns (nil for NULL) and its record.
    static func rows(_ batch: SQLiteRowBatch) -> [(row: SQLiteRowBatch.Row, texts: [String?], record: [UInt8])] {
        var out: [(SQLiteRowBatch.Row, [String?], [UInt8])] = []
        batch.withRows { row, columns in
            let texts = columns[0..<8].map { $0.map { String(decoding: $0, as: UTF8.self) } }
            out.append((row, texts, Array(columns[8]!)))
        }
        return out
    }

    static func sample() -> [Delivery] {
        var plain = SampleDelivery.make(1)
        plain.id = 999  // not what the row is numbered with
        var awkward = SampleDelivery.make(2, outcome: .rejected, token: "ABCDEF")
        awkward.environment = nil
        awkward.pushType = nil
        awkward.topic = ""
        awkward.project = "p\té 🚀"
        awkward.status = -1
        awkward.bodyIsJSON = false
        awkward.body = []
        // A token that is not ASCII is lowercased as `lowercased()` does.
        let foreign = SampleDelivery.make(3, token: "ÄBÇDÉ")
        var other = SampleDelivery.make(4, token: "abcd")
        other.connectionID = 8
        other.service = Delivery.Service(rawValue: "custom")
        return [plain, foreign, awkward, other]
    }

    @Test("every column reads back as recorded: NULLs, empty text, lowercased tokens, and a record that unpacks to the delivery")
    func readBack() throws {
        let deliveries = Self.sample()
        var batch = SQLiteRowBatch()
        var slots = SharedSlots()
        #expect(batch.isEmpty)
        for (index, delivery) in deliveries.enumerated() { batch.append(delivery, id: UInt64(index + 1) * 10, carry: &slots) }
        #expect(batch.count == 4 && batch.lastID == 40 && batch.lastReceivedAt == deliveries[3].receivedAt)
        // Connection 7's first delivery names the shared fields the second shares; the third's differ,
        // and connection 8 has its own.
        #expect(batch.shared.rows.map(\.id) == [10, 30, 40] && batch.shared.introduced == 3)
        let rows = Self.rows(batch)
        try #require(rows.count == 4)
        for ((row, texts, record), (index, delivery)) in zip(rows, deliveries.enumerated()) {
            let id = UInt64(index + 1) * 10
            #expect(row.id == id)
            #expect(row.receivedAt == delivery.receivedAt)
            #expect(row.connectionID == delivery.connectionID)
            #expect(row.status == Int32(delivery.status))
            #expect(row.bodyIsJSON == delivery.bodyIsJSON)
            #expect(row.sharedID == [10, 10, 30, 40][index])
            #expect(SQLiteRowBatch.textColumns.count == texts.count)
            #expect(
                texts == [
                    delivery.service.rawValue, delivery.environment, delivery.deviceToken?.lowercased(), delivery.topic, delivery.pushType,
                    delivery.outcome.rawValue, delivery.reason, delivery.project,
                ])
            let fields = try #require(batch.shared.rows.first { $0.id == row.sharedID }?.fields)
            var expected = delivery
            expected.id = id
            let read = CompactDelivery(
                id: id, receivedAt: row.receivedAt, connectionID: row.connectionID, status: Int(row.status), outcome: delivery.outcome,
                service: delivery.service, bodyIsJSON: row.bodyIsJSON, shared: fields, own: record
            ).unpack()
            #expect(PackedDelivery(read).arena == PackedDelivery(expected).arena)
            // The own part is what `pack` makes of the delivery.
            CompactDelivery.pack(delivery) { _, own in #expect(own == record) }
        }
        #expect(rows[2].texts[1] == nil && rows[2].texts[3] == "")
    }

    @Test("a batch split for the batch limit, or put back in front after a failed write, keeps each row with its columns and shared fields")
    func splitsAndJoins() throws {
        let deliveries = (1...5).map { SampleDelivery.make($0, token: "TOKEN\($0)") }
        var batch = SQLiteRowBatch()
        var slots = SharedSlots()
        for (index, delivery) in deliveries.enumerated() { batch.append(delivery, id: UInt64(index + 1) * 10, carry: &slots) }
        let whole = Self.rows(batch)
        func same(_ part: SQLiteRowBatch, _ range: Range<Int>) -> Bool {
            let rows = Self.rows(part)
            return rows.count == range.count
                && zip(rows, whole[range]).allSatisfy { $0.row.id == $1.row.id && $0.texts == $1.texts && $0.record == $1.record }
        }
        #expect(batch.shared.rows.map(\.id) == [10] && batch.shared.introduced == 1)

        var rest = batch
        let first = rest.takeFirst(2)
        #expect(first.ids == [10, 20] && first.lastID == 20 && same(first, 0..<2))
        #expect(rest.ids == [30, 40, 50] && same(rest, 2..<5))
        // Each part writes the shared fields it may name; the introduction is counted once.
        #expect(first.shared.rows.map(\.id) == [10] && rest.shared.rows.map(\.id) == [10])
        #expect(first.shared.introduced == 1 && rest.shared.introduced == 0)

        var tail = rest
        let middle = tail.takeFirst(1)
        #expect(middle.ids == [30] && same(middle, 2..<3) && tail.ids == [40, 50] && same(tail, 3..<5))

        rest.insert(front: first)
        #expect(rest.ids == batch.ids && same(rest, 0..<5))
        #expect(rest.shared.rows.map(\.id) == [10] && rest.shared.introduced == 1)
        let again = rest.takeFirst(4)
        #expect(again.ids == [10, 20, 30, 40] && same(again, 0..<4) && rest.ids == [50] && same(rest, 4..<5))

        var all = batch
        let everything = all.takeFirst(9)
        #expect(everything.ids == batch.ids && all.isEmpty && same(everything, 0..<5))
    }
}
