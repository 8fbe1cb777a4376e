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

    /// `count` entries (a buffer, not an array: an array was retained on every lookup).
    private let kept = UnsafeMutableBufferPointer<Kept>.allocate(capacity: RecentHeaderValues.capacity)
    private var count = 0
    private var next = 0

    init() {}

    deinit {
        for index in 0..<count { kept[index].bytes.deallocate() }
        (kept.baseAddress!).deinitialize(count: count)
        kept.deallocate()
    }

    /// `value` decoded as UTF-8 (invalid sequences repaired, as `String(decoding:as:)` does).
    func text(_ value: UnsafeBufferPointer<UInt8>) -> String {
        guard value.count > 15, let base = value.baseAddress else { return String(decoding: value, as: UTF8.self) }
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
}

/// The field names requests to PushMock carry, made into `String`s once: a name received is
/// matched against them (by length, then bytes) instead of being validated into a new `String`
/// on every request. Any other name is decoded as usual.
enum KnownFieldNames {
    /// A name's bytes point into the binary's constant data (a `StaticString`), never freed.
    private struct Known: @unchecked Sendable {
        let bytes: UnsafeRawPointer
        let count: Int
        let text: String
    }

    /// Never freed, and read without retaining (an array here was retained on every lookup).
    nonisolated(unsafe) private static let known: UnsafeBufferPointer<Known> = {
        let names: [StaticString] = [
            "authorization", "content-type", "content-length", "user-agent", "accept", "accept-encoding", "te",
            "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-id", "apns-collapse-id",
            "x-goog-api-client", "x-firebase-client", "x-goog-user-project", "x-request-id", "traceparent",
        ]
        let table = UnsafeMutableBufferPointer<Known>.allocate(capacity: names.count)
        for (index, name) in names.enumerated() {
            let bytes = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            (table.baseAddress! + index).initialize(to: Known(bytes: UnsafeRawPointer(name.utf8Start), count: bytes.count, text: String(decoding: bytes, as: UTF8.self)))
        }
        return UnsafeBufferPointer(table)
    }()

    /// `name` decoded as UTF-8: one of the known names' `String`s when it is one.
    static func text(_ name: UnsafeBufferPointer<UInt8>) -> String {
        if let base = name.baseAddress {
            for index in known.indices where known[index].count == name.count && memcmp(known[index].bytes, base, name.count) == 0 {
                return known[index].text
            }
        }
        return String(decoding: name, as: UTF8.self)
    }
}
