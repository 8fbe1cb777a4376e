public import PushMockBytes

/// A strict RFC 8259 JSON checker and field finder that works on bytes, for the hot path
/// (Foundation's JSONSerialization costs ~5.5 µs and accepts trailing commas).
///
/// ```swift
/// let body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
/// body.withByteView { bytes in
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

    let bytes: ByteView

    /// A scanner over `bytes`, which must outlive it.
    public init(_ bytes: ByteView) {
        self.bytes = bytes
    }

    /// The whole text as one value, if it is valid JSON (one value, surrounding white space only).
    public var root: Value? {
        var index = skipWhitespace(0)
        guard let value = parseValue(&index, depth: 0) else { return nil }
        index = skipWhitespace(index)
        return index == bytes.count ? value : nil
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
        return Double(String(decoding: bytes.view(value.range), as: UTF8.self))
    }

    /// A boolean value.
    public func bool(at value: Value) -> Bool? {
        guard value.kind == .bool else { return nil }
        return bytes[value.range.lowerBound] == UInt8(ascii: "t")
    }

    /// The raw text of a value.
    public func text(of value: Value) -> String {
        String(decoding: bytes.view(value.range), as: UTF8.self)
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
            return bytes.view(range).contains(byte: UInt8(ascii: "\\")) && decodeString(contentRange: range) == key.description
        }
        for offset in 0..<count where bytes[range.lowerBound + offset] != key.utf8Start[offset] {
            return false
        }
        return true
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
