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
            buffer.writeString(String(delivery.id))
            buffer.writeInteger(UInt8(ascii: "\t"))
            buffer.writeString(String(delivery.receivedAt))
            buffer.writeInteger(UInt8(ascii: "\t"))
            buffer.writeString(String(delivery.connectionID))
            for text in [delivery.service.rawValue, delivery.environment, delivery.deviceToken?.lowercased(), delivery.topic, delivery.pushType,
                         delivery.outcome.rawValue, delivery.reason] {
                buffer.writeInteger(UInt8(ascii: "\t"))
                write(text, to: &buffer)
            }
            buffer.writeInteger(UInt8(ascii: "\t"))
            buffer.writeString(String(delivery.status))
            buffer.writeInteger(UInt8(ascii: "\t"))
            write(delivery.project, to: &buffer)
            buffer.writeString(delivery.bodyIsJSON ? "\tt\t\\\\x" : "\tf\t\\\\x")
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: packed.arena.count * 2) { target in
                for (index, byte) in packed.arena.enumerated() {
                    target[index * 2] = hex[Int(byte >> 4)]
                    target[index * 2 + 1] = hex[Int(byte & 0x0F)]
                }
                return packed.arena.count * 2
            }
            buffer.writeInteger(UInt8(ascii: "\n"))
        }
        return buffer
    }

    private static func write(_ text: String?, to buffer: inout ByteBuffer) {
        guard let text else {
            buffer.writeStaticString("\\N")
            return
        }
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
