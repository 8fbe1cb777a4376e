/// The compact delivery's byte format: counts in 7-bit groups (one byte below 128), strings as
/// their count + 1 and their UTF-8 bytes (a count of 0 is nil). ``ByteWriter/putCount(_:)`` and
/// ``ByteWriter/putString(_:)`` write it; ``Reader`` reads it back.
public enum VarBytes {
    /// The bytes ``ByteWriter/putCount(_:)`` takes for `value`.
    @inlinable
    public static func size(_ value: Int) -> Int {
        var value = UInt(value)
        var bytes = 1
        while value >= 0x80 {
            value >>= 7
            bytes += 1
        }
        return bytes
    }

    /// The bytes ``ByteWriter/putString(_:)`` takes for `string`.
    @inlinable
    public static func size(_ string: String?) -> Int {
        guard let string else { return 1 }
        let count = string.utf8.count
        return size(count + 1) + count
    }

    /// Reads what ``ByteWriter`` wrote, checking every length against the bytes there are: bytes
    /// that were not written by it (a damaged row, a hostile database file) set ``failed`` and read
    /// as empty, never past the end.
    public struct Reader {
        public let bytes: ByteView
        public var offset = 0
        /// Set when a read went past the end or a count could not be a count.
        public private(set) var failed = false

        public init(_ bytes: ByteView) {
            self.bytes = bytes
        }

        public var remaining: Int { bytes.count - offset }

        public mutating func byte() -> UInt8 {
            guard offset < bytes.count else {
                failed = true
                return 0
            }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// A count: at most the bytes that remain (every counted thing takes at least one byte),
        /// plus `extra` (a string's count is its length + 1), so that a damaged count never sizes
        /// an allocation or a loop.
        public mutating func count(extra: Int = 0) -> Int {
            var value = 0
            var shift = 0
            while !failed {
                let next = byte()
                guard shift < 56 else { break }
                value |= Int(next & 0x7F) << shift
                if next < 0x80 {
                    guard value <= remaining + extra else { break }
                    return value
                }
                shift += 7
            }
            failed = true
            return 0
        }

        /// The next `count` bytes (none, and ``failed``, when fewer remain).
        public mutating func take(_ count: Int) -> ByteView {
            guard count >= 0, count <= remaining else {
                failed = true
                return .empty
            }
            defer { offset += count }
            return bytes.view(offset..<(offset + count))
        }

        public mutating func string() -> String? {
            let stored = count(extra: 1)
            guard stored > 0 else { return nil }
            return take(stored - 1).string
        }
    }
}
