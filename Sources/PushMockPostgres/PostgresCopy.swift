import NIOCore
import PushMockCore
import PushMockStore

/// Deliveries as `COPY … FROM STDIN` text rows: the fastest way into PostgreSQL, one round trip per
/// batch. Columns are tab-separated, `\N` is NULL, and text escapes backslash, tab, CR and LF;
/// NUL, which PostgreSQL text cannot hold, is left out. The record is `bytea` in hex: the
/// delivery's own part of a ``CompactDelivery``, whose shared part is a row of `pushmock_shared`
/// named by `shared_id` (one per connection and change, written by the batches that name it):
/// what repeats on every push of a connection (the provider token, the topic, most headers) is
/// not sent, parsed and stored again each time.
enum PostgresCopy {
    static let columns = [
        "id", "received_at", "connection_id", "service", "environment", "device_token", "topic", "push_type", "outcome", "reason", "status",
        "project", "body_is_json", "shared_id", "record",
    ]

    private static let hex = Array("0123456789abcdef".utf8)

    /// The rows of `batch`, as ``PostgresCopyBatch`` encodes them.
    static func rows(_ batch: [Delivery]) -> ByteBuffer {
        rowsAndShared(batch).rows
    }

    /// The rows of `batch` and the shared fields they name, from no slot filled.
    static func rowsAndShared(_ batch: [Delivery]) -> (rows: ByteBuffer, shared: SharedRows) {
        var rows = PostgresCopyBatch()
        var slots = SharedSlots()
        for delivery in batch { rows.append(delivery, id: delivery.id, carry: &slots) }
        return (rows.rows, rows.shared)
    }

    /// Appends the row of `delivery` as the delivery `id` to `buffer`, naming its shared fields
    /// (``SharedSlots``), and notes them in `shared`.
    static func appendRow(_ delivery: borrowing Delivery, id: UInt64, to buffer: inout ByteBuffer, slots: inout SharedSlots, shared named: inout SharedRows) {
        writeDecimal(id, to: &buffer, first: true)
        writeDecimal(delivery.receivedAt, to: &buffer)
        writeDecimal(delivery.connectionID, to: &buffer)
        write(delivery.service.rawValue, to: &buffer)
        write(delivery.environment, to: &buffer)
        writeLowercased(delivery.deviceToken, to: &buffer)
        write(delivery.topic, to: &buffer)
        write(delivery.pushType, to: &buffer)
        write(delivery.outcome.rawValue, to: &buffer)
        write(delivery.reason, to: &buffer)
        writeDecimal(delivery.status, to: &buffer)
        write(delivery.project, to: &buffer)
        buffer.writeStaticString(delivery.bodyIsJSON ? "\tt" : "\tf")
        let layout = CompactDelivery.Layout(delivery)
        let (sharedID, fields, introduced) = slots.name(delivery, layout: layout, id: id)
        named.note(sharedID, fields, introduced: introduced)
        writeDecimal(sharedID, to: &buffer)
        buffer.writeStaticString("\t\\\\x")
        // The own part is packed into the tail of the room for its hex, which is then written from
        // the front, in place (each byte is read before its place is written). The delivery is
        // read through a pointer: a closure capturing it would copy it whole.
        withUnsafePointer(to: delivery) { delivery in
            _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: layout.ownSize * 2) { target in
                let out = target.bindMemory(to: UInt8.self).baseAddress!
                let own = out + layout.ownSize
                layout.writeOwn(delivery.pointee, to: own)
                hex.withUnsafeBufferPointer { digits in
                    for index in 0..<layout.ownSize {
                        let byte = own[index]
                        out[index &* 2] = digits[Int(byte >> 4)]
                        out[index &* 2 &+ 1] = digits[Int(byte & 0x0F)]
                    }
                }
                return layout.ownSize * 2
            }
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    /// A column of `value` in decimal, as `String(value)` spells it (after a tab unless `first`).
    private static func writeDecimal(_ value: some BinaryInteger, to buffer: inout ByteBuffer, first: Bool = false) {
        if !first { buffer.writeInteger(UInt8(ascii: "\t")) }
        if value < 0 { buffer.writeInteger(UInt8(ascii: "-")) }
        var magnitude = UInt64(value.magnitude)
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        withUnsafeMutableBytes(of: &digits) { raw in
            var start = raw.count
            repeat {
                start -= 1
                raw[start] = UInt8(ascii: "0") &+ UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: raw[start...]))
        }
    }

    /// A text column in lowercase (as `lowercased()` spells it), after a tab. ASCII text needing no
    /// escape, such as every well-formed device token, is lowercased as it is copied.
    private static func writeLowercased(_ text: String?, to buffer: inout ByteBuffer) {
        guard let text else { return write(nil, to: &buffer) }
        let done = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for byte in bytes where byte >= 0x80 || byte == UInt8(ascii: "\\") || byte < 0x20 { return false }
            buffer.writeInteger(UInt8(ascii: "\t"))
            _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bytes.count) { target in
                for (index, byte) in bytes.enumerated() {
                    target[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                }
                return bytes.count
            }
            return true
        }
        if done != true { write(text.lowercased(), to: &buffer) }
    }

    /// A text column, after a tab: `\N` for nil; backslash, tab, LF and CR escaped; NUL left out.
    /// Text without any of those (nearly all) is copied in one go.
    private static func write(_ text: String?, to buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "\t"))
        guard let text else {
            buffer.writeStaticString("\\N")
            return
        }
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for byte in bytes where byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == 0 {
                return false
            }
            buffer.writeBytes(UnsafeRawBufferPointer(bytes))
            return true
        }
        if plain == true { return }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
            case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
            case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
            case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
            case 0: continue
            default: buffer.writeInteger(byte)
            }
        }
    }
}

/// Deliveries queued for PostgreSQL as the `COPY` rows they are written as: each one is encoded
/// when it is recorded, into one buffer per batch, so the queue holds bytes (no `Delivery` kept, no
/// copy of it, no array per record) and the writer sends the buffer as it is.
struct PostgresCopyBatch: DeliveryBatch {
    /// The rows, one after another.
    private(set) var rows = ByteBufferAllocator().buffer(capacity: 0)
    /// Where each row ends in ``rows`` (relative to its reader index).
    private var ends: [Int] = []
    /// Each row's delivery id.
    private(set) var ids: [UInt64] = []
    /// The last delivery's `receivedAt` (what retention by age counts from).
    private(set) var lastReceivedAt: Int64 = 0
    /// The shared fields its rows name: written (if missing) with it, before its rows.
    private(set) var shared = SharedRows()

    init() {}

    var count: Int { ids.count }
    var isEmpty: Bool { ids.isEmpty }
    var lastID: UInt64 { ids.last! }

    mutating func append(_ delivery: borrowing Delivery, id: UInt64, carry slots: inout SharedSlots) {
        if rows.capacity == 0 { rows.reserveCapacity(64 * 1024) }
        PostgresCopy.appendRow(delivery, id: id, to: &rows, slots: &slots, shared: &shared)
        ends.append(rows.readableBytes)
        ids.append(id)
        lastReceivedAt = delivery.receivedAt
    }

    mutating func takeFirst(_ count: Int) -> PostgresCopyBatch {
        guard count < self.count else {
            defer { self = PostgresCopyBatch() }
            return self
        }
        var first = PostgresCopyBatch()
        let split = ends[count - 1]
        first.rows = rows.readSlice(length: split)!
        first.ends = Array(ends[..<count])
        first.ids = Array(ids[..<count])
        // The first part keeps the whole batch's last receivedAt: a time that has passed, so
        // retention by age counted from it still deletes only what is older than the age now.
        first.lastReceivedAt = lastReceivedAt
        // Both parts name (at most) what the whole did.
        first.shared = shared
        shared.introduced = 0
        ends = ends[count...].map { $0 - split }
        ids.removeSubrange(..<count)
        return first
    }

    mutating func insert(front batch: PostgresCopyBatch) {
        var joined = batch.rows
        joined.writeImmutableBuffer(rows)
        let offset = batch.rows.readableBytes
        ends = batch.ends + ends.map { $0 + offset }
        ids = batch.ids + ids
        shared.merge(batch.shared)
        lastReceivedAt = max(lastReceivedAt, batch.lastReceivedAt)
        rows = joined
    }
}

