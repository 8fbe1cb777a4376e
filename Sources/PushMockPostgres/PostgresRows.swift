import NIOCore
import PostgresNIO
import PushMockBytes
import PushMockCore
import PushMockStore

/// Deliveries as rows of binary array elements, written with one `INSERT … SELECT * FROM
/// unnest($1::int8[], …)`: one round trip per batch, as `COPY` was, without `COPY`'s
/// sub-protocol (postgres-nio trips a precondition when the server ends a connection between the
/// copy's data and its end, which a stopping server does).
///
/// Each row is its 15 columns one after another, each as an element of PostgreSQL's binary array
/// format: a 4-byte big-endian length (-1: NULL) and the value in its binary send format (`int8`
/// big-endian, `bool` one byte, `text` its UTF-8 with NUL left out, which `text` cannot hold,
/// `bytea` as it is). Writing gathers each column's elements behind an array header: a memory copy
/// per field, nothing parsed. The record is the delivery's own part of a ``CompactDelivery``,
/// whose shared part is a row of `pushmock_shared` named by `shared_id` (one per connection and
/// change, written by the batches that name it): what repeats on every push of a connection (the
/// provider token, the topic, most headers) is not sent, parsed and stored again each time.
enum PostgresRows {
    /// The columns, in row order, with each one's element type.
    static let columns: [(name: String, element: Element)] = [
        ("id", .int8), ("received_at", .int8), ("connection_id", .int8), ("service", .text), ("environment", .text), ("device_token", .text),
        ("topic", .text), ("push_type", .text), ("outcome", .text), ("reason", .text), ("status", .int8), ("project", .text),
        ("body_is_json", .bool), ("shared_id", .int8), ("record", .bytea),
    ]

    /// An element type: its OID, and its array type's.
    enum Element {
        case int8, text, bool, bytea

        var oid: Int32 {
            switch self {
            case .int8: 20
            case .text: 25
            case .bool: 16
            case .bytea: 17
            }
        }

        var arrayType: PostgresDataType {
            switch self {
            case .int8: .int8Array
            case .text: .textArray
            case .bool: .boolArray
            case .bytea: .byteaArray
            }
        }

        var name: String {
            switch self {
            case .int8: "int8"
            case .text: "text"
            case .bool: "bool"
            case .bytea: "bytea"
            }
        }
    }

    /// `INSERT INTO pushmock_delivery (…) SELECT * FROM unnest($1::int8[], …)`.
    static let insertSQL: String = {
        let names = columns.map(\.name).joined(separator: ", ")
        let arrays = columns.enumerated().map { "$\($0.offset + 1)::\($0.element.element.name)[]" }.joined(separator: ", ")
        return "INSERT INTO pushmock_delivery (\(names)) SELECT * FROM unnest(\(arrays))"
    }()

    /// The insert of `count` rows held in `rows`: each column's elements gathered into one binary array.
    static func insert(rows: ByteBuffer, count: Int) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: columns.count)
        for array in arrays(rows: rows, count: count) { bindings.append(array) }
        return PostgresQuery(unsafeSQL: insertSQL, binds: bindings)
    }

    /// Each column of `count` rows as a one-dimensional binary array (header, then its elements).
    static func arrays(rows: ByteBuffer, count: Int) -> [BinaryArray] {
        let width = columns.count
        var out = columns.map { column -> (buffer: ByteBuffer, hasNull: Bool) in
            var buffer = ByteBufferAllocator().buffer(capacity: 20 + rows.readableBytes / width + 64)
            buffer.writeInteger(Int32(1))  // dimensions
            buffer.writeInteger(Int32(0))  // has NULLs: set below
            buffer.writeInteger(column.element.oid)
            buffer.writeInteger(Int32(count))
            buffer.writeInteger(Int32(1))  // lower bound
            return (buffer, false)
        }
        var index = rows.readerIndex
        let end = rows.writerIndex
        var column = 0
        while index < end {
            let length = rows.getInteger(at: index, as: Int32.self)!
            let size = 4 + Int(max(0, length))
            out[column].buffer.writeImmutableBuffer(rows.getSlice(at: index, length: size)!)
            if length < 0 { out[column].hasNull = true }
            index += size
            column = column + 1 == width ? 0 : column + 1
        }
        return zip(columns, out).map { column, array in
            var buffer = array.buffer
            if array.hasNull { buffer.setInteger(Int32(1), at: buffer.readerIndex + 4) }
            return BinaryArray(psqlType: column.element.arrayType, bytes: buffer)
        }
    }

    /// A column's values, encoded already.
    struct BinaryArray: PostgresDynamicTypeEncodable {
        let psqlType: PostgresDataType
        var psqlFormat: PostgresFormat { .binary }
        let bytes: ByteBuffer

        func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
            byteBuffer.writeImmutableBuffer(bytes)
        }
    }

    /// The rows of `batch`, as ``PostgresRowBatch`` encodes them.
    static func rows(_ batch: [Delivery]) -> ByteBuffer {
        rowsAndShared(batch).rows
    }

    /// The rows of `batch` and the shared fields they name, from no slot filled.
    static func rowsAndShared(_ batch: [Delivery]) -> (rows: ByteBuffer, shared: SharedRows) {
        var rows = PostgresRowBatch()
        var slots = SharedSlots()
        for delivery in batch { rows.append(delivery, id: delivery.id, carry: &slots) }
        return (rows.rows, rows.shared)
    }

    /// Appends the row of `delivery` as the delivery `id` to `buffer`, naming its shared fields
    /// (``SharedSlots``), and notes them in `shared`.
    static func appendRow(
        _ delivery: borrowing Delivery, id: UInt64, to buffer: inout ByteBuffer, slots: inout SharedSlots, shared named: inout SharedRows
    ) {
        writeInt8(Int64(clamping: id), to: &buffer)
        writeInt8(delivery.receivedAt, to: &buffer)
        writeInt8(Int64(clamping: delivery.connectionID), to: &buffer)
        write(delivery.service.rawValue, to: &buffer)
        write(delivery.environment, to: &buffer)
        writeLowercased(delivery.deviceToken, to: &buffer)
        write(delivery.topic, to: &buffer)
        write(delivery.pushType, to: &buffer)
        write(delivery.outcome.rawValue, to: &buffer)
        write(delivery.reason, to: &buffer)
        writeInt8(Int64(delivery.status), to: &buffer)
        write(delivery.project, to: &buffer)
        buffer.writeInteger(Int32(1))
        buffer.writeInteger(UInt8(delivery.bodyIsJSON ? 1 : 0))
        let layout = CompactDelivery.Layout(delivery)
        let (sharedID, fields, introduced) = slots.name(delivery, layout: layout, id: id)
        named.note(sharedID, fields, introduced: introduced)
        writeInt8(sharedID, to: &buffer)
        buffer.writeInteger(Int32(layout.ownSize))
        let own = [UInt8](capacity: layout.ownSize) { layout.writeOwn(delivery, to: &$0) }
        buffer.writeBytes(own)
    }

    /// An `int8` element.
    private static func writeInt8(_ value: Int64, to buffer: inout ByteBuffer) {
        buffer.writeInteger(Int32(8))
        buffer.writeInteger(value)
    }

    /// A `text` element in lowercase (as `lowercased()` spells it). ASCII text, such as every
    /// well-formed device token, is lowercased as it is copied.
    private static func writeLowercased(_ text: String?, to buffer: inout ByteBuffer) {
        guard let text else { return write(nil, to: &buffer) }
        guard text.utf8.allSatisfy({ $0 < 0x80 && $0 != 0 }) else { return write(text.lowercased(), to: &buffer) }
        buffer.writeInteger(Int32(text.utf8.count))
        buffer.writeBytes(text.utf8.lazy.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 })
    }

    /// A `text` element: NULL for nil; NUL, which `text` cannot hold, left out. Text without NUL
    /// (nearly all) is copied in one go.
    private static func write(_ text: String?, to buffer: inout ByteBuffer) {
        guard let text else {
            buffer.writeInteger(Int32(-1))
            return
        }
        if !text.utf8.contains(0) {
            buffer.writeInteger(Int32(text.utf8.count))
            buffer.writeString(text)
            return
        }
        let kept = text.utf8.filter { $0 != 0 }
        buffer.writeInteger(Int32(kept.count))
        buffer.writeBytes(kept)
    }
}

/// Deliveries queued for PostgreSQL as the rows they are written as (``PostgresRows``): each one is encoded
/// when it is recorded, into one buffer per batch, so the queue holds bytes (no `Delivery` kept, no
/// copy of it, no array per record) and the writer sends the buffer as it is.
struct PostgresRowBatch: DeliveryBatch {
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
        PostgresRows.appendRow(delivery, id: id, to: &rows, slots: &slots, shared: &shared)
        ends.append(rows.readableBytes)
        ids.append(id)
        lastReceivedAt = delivery.receivedAt
    }

    mutating func takeFirst(_ count: Int) -> PostgresRowBatch {
        guard count < self.count else {
            defer { self = PostgresRowBatch() }
            return self
        }
        var first = PostgresRowBatch()
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

    mutating func insert(front batch: PostgresRowBatch) {
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
