import NIOCore
import PushMockCore
import PushMockStore

/// Deliveries as `COPY … FROM STDIN` text rows: the fastest way into PostgreSQL, one round trip per
/// batch. Columns are tab-separated, `\N` is NULL, and text escapes backslash, tab, CR and LF;
/// NUL, which PostgreSQL text cannot hold, is left out. The record is `bytea` in hex.
enum PostgresCopy {
    static let columns = [
        "id", "received_at", "connection_id", "service", "environment", "device_token", "topic", "push_type", "outcome", "reason", "status",
        "project", "body_is_json", "record",
    ]

    private static let hex = Array("0123456789abcdef".utf8)

    static func rows(_ batch: [Delivery]) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: batch.count * 1024)
        for delivery in batch {
            let packed = PackedDelivery(delivery)
            writeDecimal(delivery.id, to: &buffer, first: true)
            writeDecimal(delivery.receivedAt, to: &buffer)
            writeDecimal(delivery.connectionID, to: &buffer)
            write(delivery.service.rawValue, to: &buffer)
            write(delivery.environment, to: &buffer)
            write(delivery.deviceToken?.lowercased(), to: &buffer)
            write(delivery.topic, to: &buffer)
            write(delivery.pushType, to: &buffer)
            write(delivery.outcome.rawValue, to: &buffer)
            write(delivery.reason, to: &buffer)
            writeDecimal(delivery.status, to: &buffer)
            write(delivery.project, to: &buffer)
            buffer.writeStaticString(delivery.bodyIsJSON ? "\tt\t\\\\x" : "\tf\t\\\\x")
            packed.arena.withUnsafeBufferPointer { source in
                _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: source.count * 2) { target in
                    let out = target.bindMemory(to: UInt8.self).baseAddress!
                    hex.withUnsafeBufferPointer { digits in
                        for index in 0..<source.count {
                            let byte = source[index]
                            out[index &* 2] = digits[Int(byte >> 4)]
                            out[index &* 2 &+ 1] = digits[Int(byte & 0x0F)]
                        }
                    }
                    return source.count * 2
                }
            }
            buffer.writeInteger(UInt8(ascii: "\n"))
        }
        return buffer
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
