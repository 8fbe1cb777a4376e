import Glibc

#if !_endian(little)
#error("RecentHeaderValues reads header bytes as little-endian words")
#endif

/// The header values one connection received lately, kept as the `String`s they became. A load
/// test repeats them on every request of a connection (the same `authorization`, `:path`,
/// `content-type`, `user-agent`); a value equal to one kept here shares that `String` instead of
/// allocating and UTF-8 validating a new one.
///
/// Values too long for a small string (more than 15 bytes) are kept with their bytes. Shorter ones
/// never allocate, but decoding them still costs a UTF-8 check and a call into the standard
/// library, and a request carries several (`POST`, `https`, `10`, `alert`, the authority): they
/// are kept as their bytes packed into two words, compared in two instructions. Eight of each kind
/// are kept, replaced in turn. Used on the connection's event loop only.
final class RecentHeaderValues {
    static let capacity = 8

    private struct Kept {
        var bytes: UnsafeMutablePointer<UInt8>
        var count: Int
        var text: String
    }

    /// `count` entries (a buffer, not an array: an array was retained on every lookup).
    private let kept = UnsafeMutableBufferPointer<Kept>.allocate(capacity: RecentHeaderValues.capacity)
    private var count = 0
    private var next = 0

    /// A value of at most 15 bytes: its bytes in order, the length in the last byte.
    private struct SmallKey {
        var low: UInt64 = 0
        var high: UInt64 = 0
    }

    private let smallKeys = UnsafeMutableBufferPointer<SmallKey>.allocate(capacity: RecentHeaderValues.capacity)
    private let smallTexts = UnsafeMutableBufferPointer<String>.allocate(capacity: RecentHeaderValues.capacity)
    private var smallCount = 0
    private var smallNext = 0

    /// The known field names' table, read once (``name(_:)``).
    private let knownNames = KnownFieldNames.table

    init() {}

    /// A field name decoded as UTF-8 (one of ``KnownFieldNames``' `String`s when it is one), and
    /// which known name it is.
    func name(_ bytes: UnsafeBufferPointer<UInt8>) -> (text: String, name: KnownHeaderName) {
        KnownFieldNames.lookUp(bytes, in: knownNames)
    }

    deinit {
        for index in 0..<count { kept[index].bytes.deallocate() }
        (kept.baseAddress!).deinitialize(count: count)
        kept.deallocate()
        (smallTexts.baseAddress!).deinitialize(count: smallCount)
        smallTexts.deallocate()
        smallKeys.deallocate()
    }

    /// `value` decoded as UTF-8 (invalid sequences repaired, as `String(decoding:as:)` does).
    func text(_ value: UnsafeBufferPointer<UInt8>) -> String {
        guard let base = value.baseAddress, value.count > 0 else { return "" }
        guard value.count > 15 else { return smallText(value, base) }
        for index in 0..<count where kept[index].count == value.count && memcmp(kept[index].bytes, base, value.count) == 0 {
            return kept[index].text
        }
        let text = String(decoding: value, as: UTF8.self)
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: value.count)
        bytes.initialize(from: base, count: value.count)
        let entry = Kept(bytes: bytes, count: value.count, text: text)
        if count < Self.capacity {
            (kept.baseAddress! + count).initialize(to: entry)
            count += 1
        } else {
            kept[next].bytes.deallocate()
            kept[next] = entry
            next = (next + 1) % Self.capacity
        }
        return text
    }

    /// The key of `count` (1...15) bytes at `bytes`, read with loads that stay inside them (bytes
    /// copied to the stack and read back as words would stall the loads that follow the copy).
    /// Little-endian, as every platform PushMock runs on: the shifts below keep the bytes in order.
    @inline(__always)
    private static func key(_ count: Int, _ bytes: UnsafeRawPointer) -> SmallKey {
        var key = SmallKey()
        if count >= 8 {
            key.low = bytes.loadUnaligned(as: UInt64.self)
            // Bytes 8..<count: the top ones of the word that ends where they end.
            key.high = count == 8 ? 0 : bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) >> UInt64(8 * (16 - count))
        } else if count >= 4 {
            let first = UInt64(bytes.loadUnaligned(as: UInt32.self))
            let last = UInt64(bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            key.low = first | last << UInt64(8 * (count - 4))  // where they overlap, the bytes are the same
        } else {
            for index in 0..<count { key.low |= UInt64(bytes.load(fromByteOffset: index, as: UInt8.self)) << UInt64(8 * index) }
        }
        key.high |= UInt64(count) << 56
        return key
    }

    private func smallText(_ value: UnsafeBufferPointer<UInt8>, _ base: UnsafePointer<UInt8>) -> String {
        let key = Self.key(value.count, UnsafeRawPointer(base))
        for index in 0..<smallCount where smallKeys[index].low == key.low && smallKeys[index].high == key.high {
            return smallTexts[index]
        }
        let text = String(decoding: value, as: UTF8.self)
        if smallCount < Self.capacity {
            smallKeys[smallCount] = key
            (smallTexts.baseAddress! + smallCount).initialize(to: text)
            smallCount += 1
        } else {
            smallKeys[smallNext] = key
            smallTexts[smallNext] = text
            smallNext = (smallNext + 1) % Self.capacity
        }
        return text
    }
}

/// The field names requests to PushMock carry, made into `String`s once: a name received is
/// matched against them (by a hash of its length and last byte, then its bytes) instead of being
/// validated into a new `String` on every request. Any other name is decoded as usual.
enum KnownFieldNames {
    /// A name's bytes point into the binary's constant data (a `StaticString`), never freed.
    fileprivate struct Known: @unchecked Sendable {
        let bytes: UnsafeRawPointer
        let count: Int
        let text: String
        let name: KnownHeaderName
    }

    /// Every name ``KnownHeaderName`` knows: the names the validators and the stores look for.
    static let names: [StaticString] = KnownHeaderName.allCases.compactMap(\.text)

    /// The names, and an open-addressing table over them: each slot the index in `known` of the
    /// name whose probe ends there, or -1. (A scan of the whole list, count by count, cost about
    /// 60 instructions a header.) Never freed, and read without retaining (an array here was
    /// retained on every lookup); one static, so one lazy-initialization check per lookup.
    struct Table: @unchecked Sendable {
        fileprivate let known: UnsafeBufferPointer<Known>
        fileprivate let slots: UnsafeBufferPointer<Int8>
    }

    private static let slotCount = 64

    static let table: Table = {
        let known = UnsafeMutableBufferPointer<Known>.allocate(capacity: names.count)
        let slots = UnsafeMutableBufferPointer<Int8>.allocate(capacity: slotCount)
        slots.initialize(repeating: -1)
        for (index, tag) in KnownHeaderName.allCases.filter({ $0.text != nil }).enumerated() {
            let name = tag.text!
            let bytes = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            (known.baseAddress! + index).initialize(
                to: Known(bytes: UnsafeRawPointer(name.utf8Start), count: bytes.count, text: String(decoding: bytes, as: UTF8.self), name: tag))
            var slot = hash(bytes.count, bytes[bytes.count - 1])
            while slots[slot] >= 0 { slot = (slot + 1) & (slotCount - 1) }
            slots[slot] = Int8(index)
        }
        return Table(known: UnsafeBufferPointer(known), slots: UnsafeBufferPointer(slots))
    }()

    @inline(__always)
    private static func hash(_ count: Int, _ last: UInt8) -> Int {
        (count &* 7 &+ Int(last)) & (slotCount - 1)
    }

    /// `name` decoded as UTF-8: one of the known names' `String`s when it is one.
    static func text(_ name: UnsafeBufferPointer<UInt8>) -> String {
        lookUp(name, in: table).text
    }

    /// `name` decoded as UTF-8 (one of the known names' `String`s when it is one), and which
    /// known name it is (``KnownHeaderName/other`` for none), with the table read once by the
    /// caller (each read of the static checks that it is made: a call on every header).
    @inline(__always)
    static func lookUp(_ name: UnsafeBufferPointer<UInt8>, in table: Table) -> (text: String, name: KnownHeaderName) {
        if let base = name.baseAddress, name.count > 0 {
            let known = table.known
            var slot = hash(name.count, base[name.count - 1])
            while case let index = Int(table.slots[slot]), index >= 0 {
                if known[index].count == name.count && memcmp(known[index].bytes, base, name.count) == 0 {
                    return (known[index].text, known[index].name)
                }
                slot = (slot + 1) & (slotCount - 1)
            }
        }
        return (String(decoding: name, as: UTF8.self), .other)
    }
}
