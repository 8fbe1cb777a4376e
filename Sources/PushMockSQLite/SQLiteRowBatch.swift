import PushMockBytes
package import PushMockCore
package import PushMockStore

/// Deliveries queued for SQLite as the rows they are inserted as: each one is encoded when it is
/// recorded, its text columns and its packed own part (``CompactDelivery``) into one byte buffer
/// per batch, so that the queue keeps no `Delivery` (no copy of one on the push path, none to
/// destroy on the writer's) and the writer binds the buffer's bytes as they are.
///
/// ```swift
/// var batch = SQLiteRowBatch()
/// var slots = SharedSlots()
/// batch.append(delivery, id: 7, carry: &slots)
/// batch.withRows { row, columns in … }   // columns: service … project, then the record
/// ```
package struct SQLiteRowBatch: DeliveryBatch {
    /// One row's numbers, and where its columns are in ``bytes``.
    package struct Row: Sendable {
        package var id: UInt64
        package var receivedAt: Int64
        package var connectionID: UInt64
        package var sharedID: Int64
        package var status: Int32
        package var bodyIsJSON: Bool
        /// Where the row's columns start in ``bytes``; they follow each other in ``textColumns``
        /// order, then the record.
        var start: Int
        /// Each text column's byte count, -1 for NULL, then the record's.
        var lengths: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32)
    }

    /// The text columns, in the order their bytes follow each other (the record comes last).
    package static let textColumns = ["service", "environment", "device_token", "topic", "push_type", "outcome", "reason", "project"]

    private(set) var bytes: [UInt8] = []
    private(set) var rows: [Row] = []
    /// The last delivery's `receivedAt` (what retention by age counts from).
    package private(set) var lastReceivedAt: Int64 = 0
    /// The shared fields its rows name: written (if missing) with it.
    package private(set) var shared = SharedRows()

    package init() {}

    package var count: Int { rows.count }
    package var isEmpty: Bool { rows.isEmpty }
    package var lastID: UInt64 { rows.last!.id }
    /// Every row's delivery id, in order.
    package var ids: [UInt64] { rows.map(\.id) }

    package mutating func append(_ delivery: borrowing Delivery, id: UInt64, carry slots: inout SharedSlots) {
        if bytes.capacity == 0 { bytes.reserveCapacity(64 * 1024) }
        let start = bytes.count
        var lengths: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0, 0, 0, 0, 0)
        lengths.0 = put(delivery.service.rawValue)
        lengths.1 = put(delivery.environment)
        lengths.2 = putLowercased(delivery.deviceToken)
        lengths.3 = put(delivery.topic)
        lengths.4 = put(delivery.pushType)
        lengths.5 = put(delivery.outcome.rawValue)
        lengths.6 = put(delivery.reason)
        lengths.7 = put(delivery.project)
        let layout = CompactDelivery.Layout(delivery)
        bytes.append(capacity: layout.ownSize) { layout.writeOwn(delivery, to: &$0) }
        lengths.8 = Int32(layout.ownSize)
        let (sharedID, fields, introduced) = slots.name(delivery, layout: layout, id: id)
        shared.note(sharedID, fields, introduced: introduced)
        rows.append(
            Row(
                id: id, receivedAt: delivery.receivedAt, connectionID: delivery.connectionID, sharedID: sharedID,
                status: Int32(clamping: delivery.status), bodyIsJSON: delivery.bodyIsJSON, start: start, lengths: lengths
            ))
        lastReceivedAt = delivery.receivedAt
    }

    /// A text column's bytes; its length, or -1 for NULL.
    private mutating func put(_ text: String?) -> Int32 {
        guard let text else { return -1 }
        let utf8 = text.utf8
        if utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil { bytes.append(contentsOf: utf8) }
        return Int32(utf8.count)
    }

    /// A text column in lowercase (as `lowercased()` spells it); ASCII text, such as every
    /// well-formed device token, is lowercased as it is copied.
    private mutating func putLowercased(_ text: String?) -> Int32 {
        guard let text else { return -1 }
        let done = text.utf8.withContiguousStorageIfAvailable { source -> Bool in
            // One pass that the compiler can vectorise: any non-ASCII byte, any capital.
            var high: UInt8 = 0
            var capitals: UInt8 = 0
            for byte in source {
                high |= byte
                capitals |= byte &- UInt8(ascii: "A") < 26 ? 1 : 0
            }
            guard high < 0x80 else { return false }
            let start = bytes.count
            bytes.append(contentsOf: source)
            if capitals != 0 {
                for index in start..<bytes.count where bytes[index] &- UInt8(ascii: "A") < 26 { bytes[index] |= 0x20 }
            }
            return true
        }
        if done == true { return Int32(text.utf8.count) }
        return put(text.lowercased())
    }

    /// Calls `body` with each row and its columns' bytes (``textColumns``, then the record; nil for
    /// NULL), valid only during the call.
    package func withRows(_ body: (Row, _ columns: [UnsafeBufferPointer<UInt8>?]) throws -> Void) rethrows {
        try bytes.withUnsafeBufferPointer { buffer in
            var columns = [UnsafeBufferPointer<UInt8>?](repeating: nil, count: 9)
            for row in rows {
                var offset = row.start
                withUnsafeBytes(of: row.lengths) { raw in
                    for index in 0..<9 {
                        let length = Int(raw.load(fromByteOffset: index * 4, as: Int32.self))
                        if length < 0 {
                            columns[index] = nil
                        } else {
                            columns[index] = UnsafeBufferPointer(rebasing: buffer[offset..<(offset + length)])
                            offset += length
                        }
                    }
                }
                try body(row, columns)
            }
        }
    }

    package mutating func takeFirst(_ count: Int) -> SQLiteRowBatch {
        guard count < self.count else {
            defer { self = SQLiteRowBatch() }
            return self
        }
        var first = SQLiteRowBatch()
        let split = rows[count].start
        first.bytes = Array(bytes[..<split])
        first.rows = Array(rows[..<count])
        // The first part keeps the whole batch's last receivedAt: a time that has passed, so
        // retention by age counted from it still deletes only what is older than the age now.
        first.lastReceivedAt = lastReceivedAt
        // Both parts name (at most) what the whole did.
        first.shared = shared
        shared.introduced = 0
        bytes.removeSubrange(..<split)
        rows = rows[count...].map { row in
            var moved = row
            moved.start -= split
            return moved
        }
        return first
    }

    package mutating func insert(front batch: SQLiteRowBatch) {
        let offset = batch.bytes.count
        bytes = batch.bytes + bytes
        rows =
            batch.rows
            + rows.map { row in
                var moved = row
                moved.start += offset
                return moved
            }
        shared.merge(batch.shared)
        lastReceivedAt = max(lastReceivedAt, batch.lastReceivedAt)
    }
}
