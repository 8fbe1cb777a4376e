/// The byte classes of ``HTTPMessageRules``: nghttp2's tables as bits, and the checks that read
/// eight or sixteen bytes at a time before falling back to them.
extension HTTPMessageRules {
    /// A set of byte values, one bit each.
    struct ByteClass {
        let words: (UInt64, UInt64, UInt64, UInt64)

        @inline(__always)
        func contains(_ byte: UInt8) -> Bool {
            let word =
                byte < 128
                ? (byte < 64 ? words.0 : words.1)
                : (byte < 192 ? words.2 : words.3)
            return word >> UInt64(byte & 63) & 1 != 0
        }

        @inline(__always)
        func containsAll(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            for byte in bytes where !contains(byte) {
                return false
            }
            return true
        }
    }

    // nghttp2's VALID_HD_NAME_CHARS, VALID_HD_VALUE_CHARS, VALID_METHOD_CHARS, VALID_PATH_CHARS
    // and VALID_AUTHORITY_CHARS, as bits.
    static let nameChars = ByteClass(words: (0x03FF_6CFA_0000_0000, 0x57FF_FFFF_C000_0000, 0, 0))
    static let valueChars = ByteClass(words: (0xFFFF_FFFF_0000_0200, 0x7FFF_FFFF_FFFF_FFFF, .max, .max))
    static let methodChars = ByteClass(words: (0x03FF_6CFA_0000_0000, 0x57FF_FFFF_C7FF_FFFE, 0, 0))
    static let pathChars = ByteClass(words: (0xFFFF_FFFE_0000_0000, 0x7FFF_FFFF_FFFF_FFFF, .max, .max))
    static let authorityChars = ByteClass(words: (0x2FFF_7FF2_0000_0000, 0x47FF_FFFE_AFFF_FFFF, 0, 0))

    /// nghttp2's `nghttp2_check_header_name` for a regular field (not empty, no colon first):
    /// lowercase tokens.
    @inline(__always)
    static func isFieldName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        if name.count >= 16, allSixteen(name, where: isCommonNameByte) { return true }
        if name.count >= 8, name.count < 16, bothEights(name, where: isCommonNameByte) { return true }
        return nameChars.containsAll(name)
    }

    /// `nghttp2_check_authority`: a host name or address, a port, userinfo.
    @inline(__always)
    static func isAuthority(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        if value.count >= 16, allSixteen(value, where: isCommonAuthorityByte) { return true }
        if value.count >= 8, value.count < 16, bothEights(value, where: isCommonAuthorityByte) { return true }
        return authorityChars.containsAll(value)
    }

    /// `nghttp2_check_header_value`: no control byte but the tab, no DEL.
    @inline(__always)
    static func isFieldValue(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        if value.count >= 16 { return allSixteen(value, where: isValueByte) }
        if value.count >= 8 { return bothEights(value, where: isValueByte) }
        return valueChars.containsAll(value)
    }

    /// `nghttp2_check_path`: visible bytes and bytes over 127.
    @inline(__always)
    static func isPath(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        value.count >= 16 ? allSixteen(value, where: isPathByte) : pathChars.containsAll(value)
    }

    /// The RFC 9113 check `nghttp2_check_header_value_rfc9113` adds: no space or tab first or last.
    @inline(__always)
    static func hasEdgeWhitespace(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = value.first, let last = value.last else { return false }
        return first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
    }

    /// nghttp2's `check_scheme`: a letter, then letters, digits, `+`, `-` and `.`.
    static func isScheme(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        if equalsIgnoringCase(value, "https") { return true }  // what nearly every request sends
        guard let first = value.first, (first | 0x20) &- UInt8(ascii: "a") < 26 else { return false }
        return value.dropFirst().allSatisfy { byte in
            (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    /// Whether `test` holds for every sixteen-byte piece of `bytes` (at least sixteen long; the
    /// last piece overlaps the one before it).
    @inline(__always)
    static func allSixteen(_ bytes: UnsafeBufferPointer<UInt8>, where test: (SIMD16<UInt8>) -> Bool) -> Bool {
        let base = UnsafeRawPointer(bytes.baseAddress!)
        var offset = 0
        while offset < bytes.count - 16 {
            guard test(base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)) else { return false }
            offset += 16
        }
        return test(base.loadUnaligned(fromByteOffset: bytes.count - 16, as: SIMD16<UInt8>.self))
    }

    /// Whether `test` holds for the first eight bytes of `bytes` and the last eight (eight to
    /// fifteen long: the two overlap).
    @inline(__always)
    static func bothEights(_ bytes: UnsafeBufferPointer<UInt8>, where test: (SIMD16<UInt8>) -> Bool) -> Bool {
        let base = UnsafeRawPointer(bytes.baseAddress!)
        let first = base.loadUnaligned(as: SIMD8<UInt8>.self)
        let last = base.loadUnaligned(fromByteOffset: bytes.count - 8, as: SIMD8<UInt8>.self)
        return test(SIMD16(lowHalf: first, highHalf: last))
    }

    /// No byte at or under 0x1F but the tab, and no 0x7F.
    @inline(__always)
    static func isValueByte(_ bytes: SIMD16<UInt8>) -> Bool {
        let lastControl = SIMD16<UInt8>(repeating: 0x1F)
        let tab = SIMD16<UInt8>(repeating: 0x09)
        let delete = SIMD16<UInt8>(repeating: 0x7F)
        let control = bytes .<= lastControl
        let isTab = bytes .== tab
        let isDelete = bytes .== delete
        let bad = (control .& .!isTab) .| isDelete
        return noneSet(bad)
    }

    /// No byte at or under 0x20, and no 0x7F.
    @inline(__always)
    static func isPathByte(_ bytes: SIMD16<UInt8>) -> Bool {
        let space = SIMD16<UInt8>(repeating: 0x20)
        let delete = SIMD16<UInt8>(repeating: 0x7F)
        let low = bytes .<= space
        let isDelete = bytes .== delete
        return noneSet(low .| isDelete)
    }

    /// Lowercase letters, digits and `-` only: the names senders use (others take the table).
    @inline(__always)
    static func isCommonNameByte(_ bytes: SIMD16<UInt8>) -> Bool {
        let a = SIMD16<UInt8>(repeating: 0x61)
        let letters = SIMD16<UInt8>(repeating: 25)
        let zero = SIMD16<UInt8>(repeating: 0x30)
        let digits = SIMD16<UInt8>(repeating: 9)
        let dash = SIMD16<UInt8>(repeating: 0x2D)
        let letter = bytes &- a
        let digit = bytes &- zero
        let isLetter = letter .<= letters
        let isDigit = digit .<= digits
        let isDash = bytes .== dash
        let good = isLetter .| isDigit .| isDash
        let halves = unsafeBitCast(good, to: SIMD2<UInt64>.self)
        return halves[0] & halves[1] == .max
    }

    /// Lowercase letters, digits, `-`, `.` and `:` only: the authorities senders use (others take the table).
    @inline(__always)
    static func isCommonAuthorityByte(_ bytes: SIMD16<UInt8>) -> Bool {
        let a = SIMD16<UInt8>(repeating: 0x61)
        let letters = SIMD16<UInt8>(repeating: 25)
        let dash = SIMD16<UInt8>(repeating: 0x2D)
        let punctuation = SIMD16<UInt8>(repeating: 1)  // `-` and `.`
        let zero = SIMD16<UInt8>(repeating: 0x30)
        let digitsAndColon = SIMD16<UInt8>(repeating: 10)  // `0`…`9` and `:`
        let isLetter = (bytes &- a) .<= letters
        let isDashOrDot = (bytes &- dash) .<= punctuation
        let isDigitOrColon = (bytes &- zero) .<= digitsAndColon
        let good = isLetter .| isDashOrDot .| isDigitOrColon
        let halves = unsafeBitCast(good, to: SIMD2<UInt64>.self)
        return halves[0] & halves[1] == .max
    }

    @inline(__always)
    static func noneSet(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        let halves = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return halves[0] | halves[1] == 0
    }
}
