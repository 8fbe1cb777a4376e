/// A strict RFC 8259 JSON checker and field finder that works on bytes, for the hot path
/// (Foundation's JSONSerialization costs ~5.5 µs and accepts trailing commas).
///
/// ```swift
/// let body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
/// body.withUnsafeBufferPointer { bytes in
///     let scanner = JSONScanner(bytes)
///     scanner.validate()                             // .object
///     let aps = scanner.member("aps", in: scanner.root!)
///     scanner.string(at: scanner.member("alert", in: aps!)!)   // "hi"
/// }
/// ```
public struct JSONScanner {
    /// The kind of a JSON value.
    public enum Kind: Sendable, Equatable {
        case object, array, string, number, bool, null
    }

    /// Where a value is in the bytes, and what kind it is.
    public struct Value: Sendable, Equatable {
        /// Byte range of the value's text.
        public var range: Range<Int>
        /// The kind.
        public var kind: Kind
    }

    /// Nesting deeper than this is refused (a hostile body cannot exhaust the stack).
    public static let maxDepth = 64

    let bytes: UnsafeBufferPointer<UInt8>

    /// A scanner over `bytes`, which must outlive it.
    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The whole text as one value, if it is valid JSON (one value, surrounding white space only).
    public var root: Value? {
        var index = skipWhitespace(0)
        guard let value = parseValue(&index, depth: 0) else { return nil }
        index = skipWhitespace(index)
        return index == bytes.count ? value : nil
    }

    /// The kind of the top-level value when the text is valid JSON, else `nil`.
    public func validate() -> Kind? {
        root?.kind
    }

    /// The member `key` of the object `object` (the last one when a key repeats, as most decoders do).
    public func member(_ key: StaticString, in object: Value) -> Value? {
        guard object.kind == .object else { return nil }
        var found: Value?
        forEachMember(of: object) { keyRange, value in
            if keyEquals(keyRange, key) { found = value }
        }
        return found
    }

    /// Calls `body` with each member's key range (without quotes) and value, in order.
    public func forEachMember(of object: Value, _ body: (Range<Int>, Value) -> Void) {
        guard object.kind == .object else { return }
        var index = skipWhitespace(object.range.lowerBound + 1)
        if bytes[index] == UInt8(ascii: "}") { return }
        while true {
            let keyStart = index
            guard let key = parseString(&index) else { return }
            index = skipWhitespace(index)
            index += 1  // ':'
            index = skipWhitespace(index)
            guard let value = parseValue(&index, depth: 1) else { return }
            body((keyStart + 1)..<(key.range.upperBound - 1), value)
            index = skipWhitespace(index)
            if bytes[index] == UInt8(ascii: ",") {
                index = skipWhitespace(index + 1)
            } else {
                return
            }
        }
    }

    /// The elements of an array, in order.
    public func elements(of array: Value) -> [Value] {
        guard array.kind == .array else { return [] }
        var result: [Value] = []
        var index = skipWhitespace(array.range.lowerBound + 1)
        if bytes[index] == UInt8(ascii: "]") { return result }
        while let value = parseValue(&index, depth: 1) {
            result.append(value)
            index = skipWhitespace(index)
            guard bytes[index] == UInt8(ascii: ",") else { break }
            index = skipWhitespace(index + 1)
        }
        return result
    }

    /// The member keys of an object, decoded.
    public func keys(of object: Value) -> [String] {
        var keys: [String] = []
        forEachMember(of: object) { range, _ in keys.append(decodeString(contentRange: range)) }
        return keys
    }

    /// The decoded text of a key, from the range ``forEachMember(of:_:)`` gives.
    public func keys(ofRange range: Range<Int>) -> String {
        decodeString(contentRange: range)
    }

    /// The decoded text of a string value.
    public func string(at value: Value) -> String? {
        guard value.kind == .string else { return nil }
        return decodeString(contentRange: (value.range.lowerBound + 1)..<(value.range.upperBound - 1))
    }

    /// An integer number value (no fraction or exponent), if it fits in Int64.
    public func int64(at value: Value) -> Int64? {
        guard value.kind == .number else { return nil }
        var result: Int64 = 0
        var index = value.range.lowerBound
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        while index < value.range.upperBound {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (product, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = product.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            result = sum
            index += 1
        }
        return negative ? -result : result
    }

    /// A number value as a Double.
    public func double(at value: Value) -> Double? {
        guard value.kind == .number else { return nil }
        return Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[value.range]), as: UTF8.self))
    }

    /// A boolean value.
    public func bool(at value: Value) -> Bool? {
        guard value.kind == .bool else { return nil }
        return bytes[value.range.lowerBound] == UInt8(ascii: "t")
    }

    /// The raw text of a value.
    public func text(of value: Value) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[value.range]), as: UTF8.self)
    }

    // MARK: - Parsing

    func skipWhitespace(_ start: Int) -> Int {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return index
            }
        }
        return index
    }

    func parseValue(_ index: inout Int, depth: Int) -> Value? {
        guard index < bytes.count, depth <= Self.maxDepth else { return nil }
        let start = index
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            index = skipWhitespace(index)
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return Value(range: start..<index, kind: .object)
            }
            while true {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), parseString(&index) != nil else { return nil }
                index = skipWhitespace(index)
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index = skipWhitespace(index + 1)
                guard parseValue(&index, depth: depth + 1) != nil else { return nil }
                index = skipWhitespace(index)
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") {
                    index = skipWhitespace(index + 1)
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return Value(range: start..<index, kind: .object)
                } else {
                    return nil
                }
            }
        case UInt8(ascii: "["):
            index = skipWhitespace(index + 1)
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return Value(range: start..<index, kind: .array)
            }
            while true {
                guard parseValue(&index, depth: depth + 1) != nil else { return nil }
                index = skipWhitespace(index)
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") {
                    index = skipWhitespace(index + 1)
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return Value(range: start..<index, kind: .array)
                } else {
                    return nil
                }
            }
        case UInt8(ascii: "\""):
            return parseString(&index)
        case UInt8(ascii: "t"):
            return literal("true", &index, .bool)
        case UInt8(ascii: "f"):
            return literal("false", &index, .bool)
        case UInt8(ascii: "n"):
            return literal("null", &index, .null)
        default:
            return parseNumber(&index)
        }
    }

    func literal(_ word: StaticString, _ index: inout Int, _ kind: Kind) -> Value? {
        let start = index
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            return nil
        }
        index += count
        return Value(range: start..<index, kind: kind)
    }

    func parseString(_ index: inout Int) -> Value? {
        let start = index
        index += 1
        while index < bytes.count {
            // Eight bytes at a time up to the first quote, backslash, control character or
            // non-ASCII byte, which the switch below then handles (as it does the last few bytes).
            while index + 8 <= bytes.count {
                let special = Self.specialBytes(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
                if special == 0 {
                    index += 8
                } else {
                    index += special.trailingZeroBitCount >> 3
                    break
                }
            }
            guard index < bytes.count else { break }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return Value(range: start..<index, kind: .string)
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { return nil }
                switch bytes[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 2
                case UInt8(ascii: "u"):
                    guard index + 5 < bytes.count else { return nil }
                    for offset in 2...5 where Self.hexValue(bytes[index + offset]) == nil {
                        return nil
                    }
                    index += 6
                default:
                    return nil
                }
            case 0x00..<0x20:
                return nil
            case 0x80...:
                guard let length = utf8SequenceLength(at: index) else { return nil }
                index += length
            default:
                index += 1
            }
        }
        return nil
    }

    /// The bytes of `word` (eight string bytes, the first in the lowest bits) that end or escape a
    /// string or need a closer look: a `"`, a `\`, a control character or a byte from 0x80, each
    /// marked by its high bit; 0 when there is none. The lowest mark is exactly the first such
    /// byte (SWAR: `(x - 0x01…) & ~x` sets a byte's high bit where `x` has a zero byte, and a borrow
    /// can only add marks above a real one).
    @inline(__always)
    package static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote
        let hasBackslash = (backslash &- ones) & ~backslash
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl | word) & highs
    }

    /// Validates one UTF-8 sequence (RFC 3629), returning its length.
    private func utf8SequenceLength(at index: Int) -> Int? {
        let lead = bytes[index]
        let length: Int
        var lowerBound: UInt8 = 0x80
        var upperBound: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lowerBound = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upperBound = 0x9F
        case 0xF0: length = 4; lowerBound = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upperBound = 0x8F
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        let second = bytes[index + 1]
        guard second >= lowerBound, second <= upperBound else { return nil }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
            return nil
        }
        return length
    }

    func parseNumber(_ index: inout Int) -> Value? {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if isDigit(index) {
            while isDigit(index) { index += 1 }
        } else {
            return nil
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { return nil }
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(index) else { return nil }
            while isDigit(index) { index += 1 }
        }
        return Value(range: start..<index, kind: .number)
    }

    private func isDigit(_ index: Int) -> Bool {
        index < bytes.count && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")
    }

    private func keyEquals(_ range: Range<Int>, _ key: StaticString) -> Bool {
        let count = key.utf8CodeUnitCount
        guard range.count == count else {
            // A key written with escapes is compared decoded.
            return bytes[range].contains(UInt8(ascii: "\\")) && decodeString(contentRange: range) == key.description
        }
        for offset in 0..<count where bytes[range.lowerBound + offset] != key.utf8Start[offset] {
            return false
        }
        return true
    }

    private func decodeString(contentRange range: Range<Int>) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        guard slice.contains(UInt8(ascii: "\\")) else {
            return String(decoding: slice, as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        var utf8: [UInt8] = []
        var index = range.lowerBound
        func flush() {
            if !utf8.isEmpty {
                scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
                utf8.removeAll()
            }
        }
        while index < range.upperBound {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                index += 1
                continue
            }
            flush()
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = hex4(at: index)
                index += 4
                if (0xD800..<0xDC00).contains(code), index + 5 < range.upperBound, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                    let low = hex4(at: index + 2)
                    if (0xDC00..<0xE000).contains(low) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        index += 6
                    }
                }
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default: scalars.append(Unicode.Scalar(escape))
            }
        }
        flush()
        return String(scalars)
    }

    private func hex4(at index: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 << 4 | UInt32(Self.hexValue(bytes[index + $1]) ?? 0) }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
