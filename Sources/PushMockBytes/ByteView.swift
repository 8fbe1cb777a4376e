#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only view of contiguous bytes that someone else owns: a request body, a string's UTF-8,
/// a stored row. It is valid only inside the call that made it (``Swift/Array/withByteView(_:)``,
/// ``Swift/String/withUTF8View(_:)``); never keep one past it.
///
/// The module's raw-pointer code lives here and in ``ByteWriter``, so that the parsers, the
/// validators and the stores above read bytes through a checked vocabulary: indices are checked
/// in debug builds (as `UnsafeBufferPointer`'s are), and every multi-byte read is checked in all
/// builds.
///
/// ```swift
/// let body: [UInt8] = Array(#"{"aps":{}}"#.utf8)
/// body.withByteView { bytes in bytes.hasPrefix("{\"aps\"") }   // true
/// ```
@frozen
public struct ByteView: RandomAccessCollection {
    @usableFromInline
    let buffer: UnsafeBufferPointer<UInt8>

    @inlinable
    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// The bytes of a static string (which live as long as the program: this view may be kept).
    @inlinable
    public init(_ text: StaticString) {
        buffer = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// No bytes.
    @inlinable public static var empty: ByteView { ByteView(UnsafeBufferPointer(start: nil, count: 0)) }

    public typealias Index = Int
    public typealias Element = UInt8

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { buffer.count }
    @inlinable public var count: Int { buffer.count }

    @inlinable
    public subscript(position: Int) -> UInt8 { buffer[position] }

    /// The bytes' memory, for the standard library's fast paths (`String(decoding:as:)`,
    /// `elementsEqual`, `contains`).
    @inlinable
    public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        try body(buffer)
    }

    /// Whether `range` is within the bytes (what ``view(_:)`` and ``loadUInt64(at:)`` check,
    /// stopping the process when it is not).
    @inlinable
    public func holds(_ range: Range<Int>) -> Bool {
        range.lowerBound >= 0 && range.upperBound <= buffer.count
    }

    /// The bytes in `range`, as a view of their own (indexed from 0).
    @inlinable
    public func view(_ range: Range<Int>) -> ByteView {
        precondition(holds(range), "byte range out of bounds")
        return ByteView(UnsafeBufferPointer(rebasing: buffer[range]))
    }

    /// The eight bytes at `offset`, in memory order (little-endian on every platform Swift runs
    /// PushMock on), for checks of eight bytes at once.
    @inlinable
    public func loadUInt64(at offset: Int) -> UInt64 {
        precondition(offset <= Int.max - 8 && holds(offset..<(offset + 8)), "8-byte read out of bounds")
        return UnsafeRawPointer(buffer.baseAddress! + offset).loadUnaligned(as: UInt64.self)
    }

    /// The sixteen bytes at `offset`, lane 0 first, for ``SIMDBytes``' checks.
    @inlinable
    public func loadSIMD16(at offset: Int) -> SIMD16<UInt8> {
        precondition(offset <= Int.max - 16 && holds(offset..<(offset + 16)), "16-byte read out of bounds")
        return UnsafeRawPointer(buffer.baseAddress! + offset).loadUnaligned(as: SIMD16<UInt8>.self)
    }

    /// The bytes as UTF-8 text (invalid sequences become U+FFFD).
    @inlinable
    public var string: String { String(decoding: buffer, as: UTF8.self) }

    /// The bytes as an array.
    @inlinable
    public var array: [UInt8] { Array(buffer) }

    /// Whether the bytes are `text`'s.
    @inlinable
    public func equals(_ text: StaticString) -> Bool {
        buffer.count == text.utf8CodeUnitCount && hasPrefix(text)
    }

    /// Whether `byte` is among the bytes, read eight at a time (`Sequence.contains` reads them one
    /// by one through the collection's index checks: about 600 instructions for an FCM token).
    @inlinable
    public func contains(byte: UInt8) -> Bool {
        firstIndex(byte: byte) != nil
    }

    /// Where `byte` first is, read eight at a time.
    @inlinable
    public func firstIndex(byte: UInt8) -> Int? {
        guard let base = buffer.baseAddress else { return nil }
        let pattern = SWAR.ones &* UInt64(byte)
        var offset = 0
        while offset + 8 <= buffer.count {
            // A byte equal to `byte` is a zero byte of `word`. The lowest bit this sets is the
            // first zero byte's (a borrow can only set bits above a zero byte).
            let word = UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self) ^ pattern
            let zeros = (word &- SWAR.ones) & ~word & SWAR.highs
            if zeros != 0 { return offset + zeros.trailingZeroBitCount >> 3 }
            offset += 8
        }
        while offset < buffer.count {
            if base[offset] == byte { return offset }
            offset += 1
        }
        return nil
    }

    /// The first eight bytes in one word, the first lowest (zero for those it lacks): names of
    /// up to eight bytes then compare in one step, longer ones start with it.
    @inlinable
    public var headWord: UInt64 {
        guard let base = buffer.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        if buffer.count >= 8 { return UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)) }
        // Fewer than eight: four, two and one bytes as the count's bits say, in order.
        var word: UInt64 = 0
        var offset = 0
        if buffer.count & 4 != 0 {
            word = UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
            offset = 4
        }
        if buffer.count & 2 != 0 {
            word |= UInt64(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self))) << UInt64(8 * offset)
            offset += 2
        }
        if buffer.count & 1 != 0 { word |= UInt64(base[offset]) << UInt64(8 * offset) }
        return word
    }

    /// Where, at or after `start`, the first byte is that a JSON string holds only escaped or
    /// checked: a quote, a backslash, a control character or a non-ASCII byte (``count`` when
    /// there is none). Read sixteen at a time (``SIMDBytes/firstJSONStringSpecial(_:)``), then eight
    /// (``SWAR/jsonStringSpecials(_:)``).
    @inlinable
    public func firstJSONStringSpecial(from start: Int) -> Int {
        precondition(start >= 0 && start <= buffer.count, "start out of bounds")
        guard let base = buffer.baseAddress else { return start }
        var offset = start
        while buffer.count - offset >= 16 {
            let lane = SIMDBytes.firstJSONStringSpecial(UnsafeRawPointer(base + offset).loadUnaligned(as: SIMD16<UInt8>.self))
            if lane < 16 { return offset + lane }
            offset += 16
        }
        while buffer.count - offset >= 8 {
            let special = SWAR.jsonStringSpecials(UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
            if special != 0 { return offset + special.trailingZeroBitCount >> 3 }
            offset += 8
        }
        while offset < buffer.count {
            let byte = base[offset]
            if byte == 0x22 || byte == 0x5C || byte < 0x20 || byte >= 0x80 { return offset }
            offset += 1
        }
        return offset
    }

    /// Whether the bytes are `other`'s.
    @inlinable
    public func equals(_ other: ByteView) -> Bool {
        guard buffer.count == other.buffer.count else { return false }
        guard let a = buffer.baseAddress, let b = other.buffer.baseAddress, a != b else { return true }
        var offset = 0
        while offset + 8 <= buffer.count {
            let left = UnsafeRawPointer(a + offset).loadUnaligned(as: UInt64.self)
            guard left == UnsafeRawPointer(b + offset).loadUnaligned(as: UInt64.self) else { return false }
            offset += 8
        }
        while offset < buffer.count {
            guard a[offset] == b[offset] else { return false }
            offset += 1
        }
        return true
    }

    /// ``equals(_:)`` by `memcmp`, for bytes that are usually long (an FCM registration token):
    /// its vector loop compares 150 bytes in a third of the instructions of a word loop.
    public func equalsLong(_ other: ByteView) -> Bool {
        guard buffer.count == other.buffer.count else { return false }
        guard let a = buffer.baseAddress, let b = other.buffer.baseAddress, a != b else { return true }
        return memcmp(a, b, buffer.count) == 0
    }

    /// Whether the bytes start with `prefix`'s. (Eight bytes at a time: a byte loop through
    /// `utf8Start`, checked on every byte, took ~170 instructions for an FCM path's 13.)
    @inlinable
    public func hasPrefix(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard buffer.count >= count else { return false }
        guard count > 0, let a = buffer.baseAddress else { return true }
        let b = prefix.utf8Start
        var offset = 0
        while offset + 8 <= count {
            guard UnsafeRawPointer(a + offset).loadUnaligned(as: UInt64.self) == UnsafeRawPointer(b + offset).loadUnaligned(as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < count {
            guard a[offset] == b[offset] else { return false }
            offset += 1
        }
        return true
    }

    /// Whether the bytes are `lowercase`'s but for the case of ASCII letters.
    @inlinable
    public func equalsIgnoringCase(_ lowercase: StaticString) -> Bool {
        guard buffer.count == lowercase.utf8CodeUnitCount else { return false }
        for offset in 0..<buffer.count {
            var byte = buffer[offset]
            if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { byte |= 0x20 }
            if byte != lowercase.utf8Start[offset] { return false }
        }
        return true
    }
}

extension Array where Element == UInt8 {
    /// Calls `body` with a view of the array's bytes.
    @inlinable
    public func withByteView<Result, Failure: Error>(_ body: (ByteView) throws(Failure) -> Result) throws(Failure) -> Result {
        try withUnsafeBufferPointer { buffer throws(Failure) in try body(ByteView(buffer)) }
    }

    /// An array of `view`'s bytes.
    @inlinable
    public init(_ view: ByteView) {
        self.init(view.buffer)
    }
}

extension ArraySlice where Element == UInt8 {
    /// Calls `body` with a view of the slice's bytes (indexed from 0).
    @inlinable
    public func withByteView<Result, Failure: Error>(_ body: (ByteView) throws(Failure) -> Result) throws(Failure) -> Result {
        try withUnsafeBufferPointer { buffer throws(Failure) in try body(ByteView(buffer)) }
    }
}

extension String {
    /// Whether the string's UTF-8 starts with `prefix`'s, byte for byte: for ASCII such as a
    /// path's `/3/`, where `hasPrefix`'s Unicode comparison costs about a hundred instructions.
    @inlinable
    public func hasBytePrefix(_ prefix: StaticString) -> Bool {
        utf8.withContiguousStorageIfAvailable { ByteView($0).hasPrefix(prefix) }
            ?? utf8.starts(with: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
    }

    /// The first four bytes of the string's UTF-8 in one word, the first lowest (zero for those
    /// it lacks): a prefix of up to four bytes is then one comparison.
    @inlinable
    public var utf8HeadWord: UInt32 {
        if let word = utf8.withContiguousStorageIfAvailable({ bytes -> UInt32 in
            var word: UInt32 = 0
            for index in 0..<Swift.min(4, bytes.count) { word |= UInt32(bytes[index]) << UInt32(8 * index) }
            return word
        }) {
            return word
        }
        var word: UInt32 = 0
        for (index, byte) in utf8.prefix(4).enumerated() { word |= UInt32(byte) << UInt32(8 * index) }
        return word
    }

    /// Calls `body` with a view of the string's UTF-8 (made contiguous first if it is not).
    @inlinable
    public func withUTF8View<Result>(_ body: (ByteView) throws -> Result) rethrows -> Result {
        var text = self
        return try text.withUTF8 { buffer in try body(ByteView(buffer)) }
    }

    /// `view`'s bytes as UTF-8 text (invalid sequences become U+FFFD).
    @inlinable
    public init(_ view: ByteView) {
        self.init(decoding: view.buffer, as: UTF8.self)
    }
}
