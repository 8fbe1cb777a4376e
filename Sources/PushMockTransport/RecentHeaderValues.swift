import Glibc

/// The header values one connection received lately, kept as the `String`s they became. A load
/// test repeats them on every request of a connection (the same `authorization`, `:path`,
/// `content-type`, `user-agent`); a value equal to one kept here shares that `String` instead of
/// allocating and UTF-8 validating a new one.
///
/// Only values too long for a small string (more than 15 bytes) are kept: shorter ones never
/// allocate. Eight are kept, replaced in turn. Used on the connection's event loop only.
final class RecentHeaderValues {
    static let capacity = 8

    private struct Kept {
        var bytes: UnsafeMutablePointer<UInt8>
        var count: Int
        var text: String
    }

    private var kept: [Kept] = []
    private var next = 0

    init() {
        kept.reserveCapacity(Self.capacity)
    }

    deinit {
        for entry in kept { entry.bytes.deallocate() }
    }

    /// `value` decoded as UTF-8 (invalid sequences repaired, as `String(decoding:as:)` does).
    func text(_ value: UnsafeBufferPointer<UInt8>) -> String {
        guard value.count > 15, let base = value.baseAddress else { return String(decoding: value, as: UTF8.self) }
        for index in kept.indices where kept[index].count == value.count && memcmp(kept[index].bytes, base, value.count) == 0 {
            return kept[index].text
        }
        let text = String(decoding: value, as: UTF8.self)
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: value.count)
        bytes.initialize(from: base, count: value.count)
        let entry = Kept(bytes: bytes, count: value.count, text: text)
        if kept.count < Self.capacity {
            kept.append(entry)
        } else {
            kept[next].bytes.deallocate()
            kept[next] = entry
            next = (next + 1) % Self.capacity
        }
        return text
    }
}
