/// Writes bytes into memory sized for them beforehand (``Swift/Array/init(capacity:writing:)``,
/// ``Swift/String/init(asciiCapacity:writing:)``): the hot path's answers and packed records,
/// without an array's growth checks or a string's interpolation. Writing past the capacity traps,
/// in every build.
///
/// ```swift
/// let body = [UInt8](capacity: 32) { out in
///     out.put("id:")
///     out.putDecimal(1_767_225_600_000)
/// }
/// // "id:1767225600000"
/// ```
@frozen
public struct ByteWriter: ~Copyable {
    @usableFromInline
    let base: UnsafeMutablePointer<UInt8>
    @usableFromInline
    let capacity: Int
    @usableFromInline
    var written = 0

    /// How many bytes are written.
    @inlinable public var count: Int { written }

    /// Writes with `write` into the `capacity` bytes at `base`, memory the caller owns (writing
    /// past them traps); returns how many bytes were written.
    @inlinable
    public static func write(into base: UnsafeMutablePointer<UInt8>, capacity: Int, _ write: (inout ByteWriter) -> Void) -> Int {
        var writer = ByteWriter(base: base, capacity: capacity)
        write(&writer)
        return writer.count
    }

    @inlinable
    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Whether `bytes` more fit (what every write checks, stopping the process when they do not).
    @inlinable
    public func fits(_ bytes: Int) -> Bool {
        bytes >= 0 && bytes <= capacity - written
    }

    @inlinable
    mutating func reserve(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(fits(bytes), "ByteWriter: written past its capacity")
        defer { written += bytes }
        return base + written
    }

    /// One byte.
    @inlinable
    public mutating func put(_ byte: UInt8) {
        reserve(1).initialize(to: byte)
    }

    /// A static string's bytes.
    @inlinable
    public mutating func put(_ text: StaticString) {
        reserve(text.utf8CodeUnitCount).initialize(from: text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// `bytes`.
    @inlinable
    public mutating func put(_ bytes: ByteView) {
        guard let source = bytes.buffer.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count).initialize(from: source, count: bytes.count)
    }

    /// `bytes`.
    @inlinable
    public mutating func put(_ bytes: [UInt8]) {
        bytes.withByteView { put($0) }
    }

    /// `text`'s UTF-8, read in place when the string is contiguous.
    @inlinable
    public mutating func put(utf8 text: String) {
        let utf8 = text.utf8
        if utf8.withContiguousStorageIfAvailable({ put(ByteView($0)) }) == nil {
            let out = reserve(utf8.count)
            var index = 0
            for byte in utf8 {
                out[index] = byte
                index += 1
            }
        }
    }

    /// `value`'s decimal digits, with a `-` before a negative one (at most 20 bytes). Two digits
    /// a step from a table of the hundred pairs, the count found four digits at a time: dividing
    /// by ten per digit, twice over (once to count), took ~370 instructions for a 16-digit time.
    @inlinable
    public mutating func putDecimal(_ value: Int64) {
        if value < 0 { put(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude
        while rest >= 10_000 {
            rest /= 10_000
            digits += 4
        }
        digits += rest >= 1000 ? 3 : rest >= 100 ? 2 : rest >= 10 ? 1 : 0
        let out = reserve(digits)
        let pairs = Self.decimalPairs.utf8Start
        var index = digits
        while magnitude >= 10 {
            let pair = Int(truncatingIfNeeded: magnitude % 100) &* 2
            magnitude /= 100
            index -= 2
            (out + index).initialize(to: pairs[pair])
            (out + index + 1).initialize(to: pairs[pair + 1])
        }
        if index > 0 { out.initialize(to: UInt8(truncatingIfNeeded: magnitude) &+ UInt8(ascii: "0")) }
    }

    /// "00" to "99", back to back.
    @inlinable
    static var decimalPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }

    /// `value` in hex: `digits` nibbles from the lowest (leading zeros kept), or, with `digits`
    /// nil, without leading zeros (at least one digit).
    @inlinable
    public mutating func putHex(_ value: UInt64, digits: Int? = nil, uppercase: Bool = false) {
        let count = digits ?? max(1, (64 - value.leadingZeroBitCount + 3) / 4)
        precondition(count >= 0 && count <= 16, "at most 16 hex digits")
        let out = reserve(count)
        // Up to eight digits at a time, highest first, each group made in one word (``hexDigits``).
        var remaining = count
        var done = 0
        while remaining > 0 {
            let take = min(remaining, 8)
            let bits = UInt64(4 * take)
            let group = (value >> UInt64(4 * (remaining - take))) & (bits == 64 ? .max : (1 << bits) - 1)
            let ascii = Self.hexDigits(UInt32(truncatingIfNeeded: group), uppercase: uppercase)
            withUnsafeBytes(of: ascii) { eight in
                // The group's digits are the last `take` of the eight: one copy.
                (out + done).initialize(from: eight.baseAddress!.assumingMemoryBound(to: UInt8.self) + (8 - take), count: take)
            }
            done += take
            remaining -= take
        }
    }

    /// The 128 bits `high`, `low` as a UUID's text (`8-4-4-4-12` hex digits): four groups of eight
    /// digits made in a word each (``hexDigits``), written with the dashes in one reservation.
    @inlinable
    public mutating func putUUID(high: UInt64, low: UInt64, uppercase: Bool = true) {
        let out = UnsafeMutableRawPointer(reserve(36))
        let a = Self.hexDigits(UInt32(truncatingIfNeeded: high >> 32), uppercase: uppercase)
        let b = Self.hexDigits(UInt32(truncatingIfNeeded: high), uppercase: uppercase)
        let c = Self.hexDigits(UInt32(truncatingIfNeeded: low >> 32), uppercase: uppercase)
        let d = Self.hexDigits(UInt32(truncatingIfNeeded: low), uppercase: uppercase)
        let dash = UInt8(ascii: "-")
        // Digits (memory order, highest first): a = 0-7, b = 8-15, c = 16-23, d = 24-31. Text:
        // a, "-", b[0..<4], "-", b[4..<8], "-", c[0..<4], "-", c[4..<8] d.
        // (Each word holds its digits in memory order, so they are copied as bytes, never shifted.)
        withUnsafeBytes(of: a) { out.copyMemory(from: $0.baseAddress!, byteCount: 8) }
        out.storeBytes(of: dash, toByteOffset: 8, as: UInt8.self)
        withUnsafeBytes(of: b) { digits in
            (out + 9).copyMemory(from: digits.baseAddress!, byteCount: 4)
            (out + 14).copyMemory(from: digits.baseAddress! + 4, byteCount: 4)
        }
        out.storeBytes(of: dash, toByteOffset: 13, as: UInt8.self)
        out.storeBytes(of: dash, toByteOffset: 18, as: UInt8.self)
        withUnsafeBytes(of: c) { digits in
            (out + 19).copyMemory(from: digits.baseAddress!, byteCount: 4)
            (out + 24).copyMemory(from: digits.baseAddress! + 4, byteCount: 4)
        }
        out.storeBytes(of: dash, toByteOffset: 23, as: UInt8.self)
        withUnsafeBytes(of: d) { (out + 28).copyMemory(from: $0.baseAddress!, byteCount: 8) }
    }

    /// The eight hex digits of `group`, highest first in memory: each nibble spread into a byte of
    /// its own, then turned into its ASCII digit, all eight at once.
    @inlinable
    static func hexDigits(_ group: UInt32, uppercase: Bool) -> UInt64 {
        var x = UInt64(group)
        x = ((x & 0xFFFF_0000) << 16) | (x & 0xFFFF)
        x = ((x & 0x0000_FF00_0000_FF00) << 8) | (x & 0x0000_00FF_0000_00FF)
        x = ((x & 0x00F0_00F0_00F0_00F0) << 4) | (x & 0x000F_000F_000F_000F)
        // Byte i holds nibble i; a byte of 10 or more becomes a letter.
        let letters = ((x &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        x = x &+ 0x3030_3030_3030_3030 &+ letters &* (uppercase ? 0x07 : 0x27)
        return x.bigEndian
    }

    /// A count in 7-bit groups, lowest first (one byte below 128): ``VarBytes``' format.
    @inlinable
    public mutating func putCount(_ value: Int) {
        precondition(value >= 0, "counts are not negative")
        var value = UInt(value)
        while value >= 0x80 {
            put(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        put(UInt8(value))
    }

    /// A string as ``VarBytes`` keeps it: its count + 1 and its UTF-8 (a count of 0 is nil).
    @inlinable
    public mutating func putString(_ text: String?) {
        guard let text else { return putCount(0) }
        putCount(text.utf8.count + 1)
        put(utf8: text)
    }
}

extension Array where Element == UInt8 {
    /// An array of at most `capacity` bytes, written by `write`: as many as it wrote.
    ///
    /// Up to ``smallCapacity`` bytes are written on the stack and copied into an array made
    /// to fit: `Array(unsafeUninitializedCapacity:)` allocates through the standard library's
    /// unspecialized path, which looks the storage type up at run time (about 300 instructions,
    /// more than the copy of a response body or a recorded push costs).
    @inlinable
    public init<Failure: Error>(capacity: Int, writing write: (inout ByteWriter) throws(Failure) -> Void) throws(Failure) {
        var failure: Failure?
        /// Writes at `base` (room for `capacity` bytes); how many bytes were written.
        func written(at base: UnsafeMutablePointer<UInt8>) -> Int {
            var writer = ByteWriter(base: base, capacity: capacity)
            do throws(Failure) {
                try write(&writer)
            } catch {
                failure = error
            }
            return writer.count
        }
        if capacity <= Self.smallCapacity {
            self = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Swift.max(capacity, 1)) { buffer in
                Array(UnsafeBufferPointer(start: buffer.baseAddress, count: written(at: buffer.baseAddress!)))
            }
        } else {
            self.init(unsafeUninitializedCapacity: capacity) { buffer, initialized in
                initialized = written(at: buffer.baseAddress ?? UnsafeMutablePointer(bitPattern: 1)!)
            }
        }
        if let failure { throw failure }
    }
}

extension Array where Element == UInt8 {
    /// The largest capacity ``init(capacity:writing:)`` writes on the stack.
    public static let smallCapacity = 2048
}

extension Array where Element == UInt8 {
    /// Appends at most `capacity` bytes, written in place by `write`: as many as it wrote.
    @inlinable
    public mutating func append(capacity: Int, writing write: (inout ByteWriter) -> Void) {
        let start = count
        append(contentsOf: repeatElement(0, count: capacity))
        let written = withUnsafeMutableBufferPointer { buffer in
            var writer = ByteWriter(base: buffer.baseAddress! + start, capacity: capacity)
            write(&writer)
            return writer.count
        }
        removeLast(capacity - written)
    }
}

extension String {
    /// A string of at most `capacity` UTF-8 bytes, written by `write` (valid UTF-8 it must be:
    /// invalid bytes are repaired to U+FFFD).
    @inlinable
    public init(asciiCapacity capacity: Int, writing write: (inout ByteWriter) -> Void) {
        self.init(unsafeUninitializedCapacity: capacity) { buffer in
            var writer = ByteWriter(base: buffer.baseAddress ?? UnsafeMutablePointer(bitPattern: 1)!, capacity: capacity)
            write(&writer)
            return writer.count
        }
    }
}
