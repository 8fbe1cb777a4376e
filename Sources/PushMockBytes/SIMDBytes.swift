/// Checks of sixteen bytes at once, in a vector read with ``ByteView/loadSIMD16(at:)`` (SSE2 on
/// x86-64, NEON on arm64): for long runs such as an FCM registration token's ~150 base64url
/// characters or an APNs device token's 64 hex digits, where ``SWAR``'s eight at a time cost
/// twice the instructions.
///
/// The form matters: every constant is an explicit `SIMD16<UInt8>`, and every step a `let` of
/// its own. Written as one expression with `SIMD16(repeating:)` inline, or with a scalar
/// operand, `.<=` compiled to a loop over the lanes, several times slower than the eight bytes at
/// a time it replaces (callgrind on the release build; look for `pminub` in its disassembly).
public enum SIMDBytes {
    /// Whether all sixteen bytes are base64url characters (`A-Z`, `a-z`, `0-9`, `-`, `_`).
    @inlinable @inline(__always)
    public static func allBase64URL(_ bytes: SIMD16<UInt8>) -> Bool {
        let dash = SIMD16<UInt8>(repeating: 0x2D)
        let underscore = SIMD16<UInt8>(repeating: 0x5F)
        let isAlphanumeric = digitOrLetter(bytes, lettersAfterA: SIMD16<UInt8>(repeating: 25))
        return allSet(isAlphanumeric .| (bytes .== dash) .| (bytes .== underscore))
    }

    /// Whether all sixteen bytes are hex digits (`0-9`, `a-f`, `A-F`).
    @inlinable @inline(__always)
    public static func allHexDigits(_ bytes: SIMD16<UInt8>) -> Bool {
        allSet(digitOrLetter(bytes, lettersAfterA: SIMD16<UInt8>(repeating: 5)))
    }

    /// The lane of the first byte that ends a run of plain JSON string bytes (as
    /// ``SWAR/jsonStringSpecials(_:)`` marks them: `"`, `\`, a control byte, or a byte of a
    /// multi-byte UTF-8 sequence), or 16 when all sixteen are plain. Plain is `0x20...0x7F`
    /// (`x - 0x20` at most `0x5F`, wrapping) other than the quote and the backslash.
    @inlinable @inline(__always)
    public static func firstJSONStringSpecial(_ bytes: SIMD16<UInt8>) -> Int {
        let space = SIMD16<UInt8>(repeating: 0x20)
        let plainSpan = SIMD16<UInt8>(repeating: 0x5F)
        let quote = SIMD16<UInt8>(repeating: 0x22)
        let backslash = SIMD16<UInt8>(repeating: 0x5C)
        let fromSpace = bytes &- space
        let inRange = fromSpace .<= plainSpan
        let isQuote = bytes .== quote
        let isBackslash = bytes .== backslash
        let ends = isQuote .| isBackslash
        let plainWords = unsafeBitCast(inRange, to: SIMD2<UInt64>.self)
        let endWords = unsafeBitCast(ends, to: SIMD2<UInt64>.self)
        let low = endWords[0] | ~plainWords[0]
        if low != 0 { return low.trailingZeroBitCount >> 3 }
        let high = endWords[1] | ~plainWords[1]
        return high == 0 ? 16 : 8 + high.trailingZeroBitCount >> 3
    }

    /// The lanes that are a digit, or a letter from `a` (either case) to `lettersAfterA` letters
    /// after it. `x | 0x20` folds `A-Z` onto `a-z`, and nothing else onto them.
    @inlinable @inline(__always)
    static func digitOrLetter(_ bytes: SIMD16<UInt8>, lettersAfterA: SIMD16<UInt8>) -> SIMDMask<SIMD16<Int8>> {
        let fold = SIMD16<UInt8>(repeating: 0x20)
        let zero = SIMD16<UInt8>(repeating: 0x30)
        let a = SIMD16<UInt8>(repeating: 0x61)
        let nine = SIMD16<UInt8>(repeating: 9)
        let digit = bytes &- zero
        let letter = (bytes | fold) &- a
        let isDigit = digit .<= nine
        let isLetter = letter .<= lettersAfterA
        return isDigit .| isLetter
    }

    /// Whether every lane of `mask` is set: its two halves ANDed and compared as one word. (The
    /// standard library's `all(_:)` reduces through a call that is not inlined.) A mask is stored
    /// as its lanes, all ones or all zeros, sixteen bytes.
    @inlinable @inline(__always)
    static func allSet(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        let halves = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return halves[0] & halves[1] == .max
    }
}
