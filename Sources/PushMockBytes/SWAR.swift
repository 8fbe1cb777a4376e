/// Checks of eight bytes at once, in a `UInt64` read with ``ByteView/loadUInt64(at:)``: for
/// bytes below 0x80, `x + (0x80 - lo)` sets a byte's high bit when `x >= lo`, and
/// `x + (0x7F - hi)` when `x > hi`.
public enum SWAR {
    public static let ones: UInt64 = 0x0101_0101_0101_0101
    public static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of each byte of `value` that is within `low...high` (bytes below 0x80).
    @inlinable @inline(__always)
    public static func within(_ value: UInt64, _ low: UInt64, _ high: UInt64) -> UInt64 {
        (value &+ ones &* (0x80 - low)) & ~(value &+ ones &* (0x7F - high))
    }

    /// Whether all eight bytes are hex digits (`0-9`, `a-f`, `A-F`).
    @inlinable @inline(__always)
    public static func allHexDigits(_ word: UInt64) -> Bool {
        guard word & highs == 0 else { return false }
        let folded = word | (ones &* 0x20)
        return (within(word, 0x30, 0x39) | within(folded, 0x61, 0x66)) & highs == highs
    }

    /// Whether all eight bytes are base64url characters (`A-Z`, `a-z`, `0-9`, `-`, `_`);
    /// `x | 0x20` folds `A-Z` onto `a-z`.
    @inlinable @inline(__always)
    public static func allBase64URL(_ word: UInt64) -> Bool {
        guard word & highs == 0 else { return false }
        let folded = word | (ones &* 0x20)
        let accepted = within(word, 0x30, 0x39) | within(folded, 0x61, 0x7A) | within(word, 0x2D, 0x2D) | within(word, 0x5F, 0x5F)
        return accepted & highs == highs
    }
}

extension SWAR {
    /// The high bit of each byte that ends a run of plain JSON string bytes: `"`, `\`, a control
    /// byte (below 0x20), or a byte of a multi-byte UTF-8 sequence (0x80 and above). Zero when all
    /// eight are plain; otherwise the lowest set bit marks the first special byte.
    @inlinable @inline(__always)
    public static func jsonStringSpecials(_ word: UInt64) -> UInt64 {
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote
        let hasBackslash = (backslash &- ones) & ~backslash
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl | word) & highs
    }
}
