/// The compact delivery's byte format: counts in 7-bit groups (one byte below 128), strings as
/// their count + 1 and their UTF-8 bytes (a count of 0 is nil).
enum VarBytes {
    /// Writes variable-length counts (7 bits a byte) and strings (length + 1, 0 for nil) into memory
    /// sized for them by ``size(_:)``.
    struct Writer {
        let base: UnsafeMutablePointer<UInt8>
        var offset = 0

        static func size(_ value: Int) -> Int {
            var value = UInt(value), bytes = 1
            while value >= 0x80 {
                value >>= 7
                bytes += 1
            }
            return bytes
        }

        static func size(_ string: String?) -> Int {
            guard let string else { return 1 }
            let count = string.utf8.count
            return size(count + 1) + count
        }

        mutating func byte(_ value: UInt8) {
            base[offset] = value
            offset += 1
        }

        mutating func count(_ value: Int) {
            var value = UInt(value)
            while value >= 0x80 {
                byte(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            byte(UInt8(value))
        }

        mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
            (base + offset).initialize(from: source, count: bytes.count)
            offset += bytes.count
        }

        mutating func put(_ string: String?) {
            guard let string else { return count(0) }
            // No copy of the string (a `var` would retain it): its bytes are read in place.
            let utf8 = string.utf8
            count(utf8.count + 1)
            if utf8.withContiguousStorageIfAvailable({ copy($0) }) == nil {
                for byte in utf8 {
                    base[offset] = byte
                    offset += 1
                }
            }
        }
    }

    /// Reads what ``Writer`` wrote, checking every length against the bytes there are: bytes
    /// that were not written by ``Writer`` (a damaged row, a hostile database file) set ``failed``
    /// and read as empty, never past the end.
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0
        /// Set when a read went past the end or a count could not be a count.
        private(set) var failed = false

        var remaining: Int { bytes.count - offset }

        mutating func byte() -> UInt8 {
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
        mutating func count(extra: Int = 0) -> Int {
            var value = 0, shift = 0
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

        mutating func take(_ count: Int) -> UnsafeBufferPointer<UInt8> {
            guard count >= 0, count <= remaining else {
                failed = true
                return UnsafeBufferPointer(rebasing: bytes[bytes.count..<bytes.count])
            }
            defer { offset += count }
            return UnsafeBufferPointer(rebasing: bytes[offset..<(offset + count)])
        }

        mutating func string() -> String? {
            let stored = count(extra: 1)
            guard stored > 0 else { return nil }
            return String(decoding: take(stored - 1), as: UTF8.self)
        }
    }
}
