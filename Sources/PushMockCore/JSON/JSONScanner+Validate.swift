import PushMockBytes

/// Checking a whole text in one pass, without recursion: what the push path asks of every body
/// that it does not otherwise read.
extension JSONScanner {
    /// The kind of the top-level value when the text is valid JSON, else `nil`: the same answer
    /// as ``root``'s kind, found without building a ``Value`` per member or a call per level.
    ///
    /// The open containers are a stack of bits (set: an object), so the nesting limit is the
    /// same as ``root``'s: a value may sit inside at most ``maxDepth`` containers.
    public func validate() -> Kind? {
        let count = bytes.count
        var index = skipSpace(0)
        guard index < count else { return nil }
        let kind: Kind
        switch bytes[index] {
        case UInt8(ascii: "{"): kind = .object
        case UInt8(ascii: "["): kind = .array
        case UInt8(ascii: "\""): kind = .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): kind = .bool
        case UInt8(ascii: "n"): kind = .null
        default: kind = .number
        }
        // Bit 0 is the innermost open container: 1 for an object, 0 for an array.
        var objects: UInt64 = 0
        var open = 0
        // Each turn reads one value at `index`, then what follows it: commas, and the brackets
        // that close containers.
        while true {
            guard index < count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[index] == UInt8(ascii: "{")
                index = skipSpace(index + 1)
                guard index < count else { return nil }
                if bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1  // empty: a value like any other
                } else {
                    // Its first member or element would sit one level deeper.
                    guard open < Self.maxDepth else { return nil }
                    objects = objects << 1 | (isObject ? 1 : 0)
                    open += 1
                    if isObject, !memberKey(&index) { return nil }
                    continue
                }
            case UInt8(ascii: "\""):
                guard parseString(&index) != nil else { return nil }
            case UInt8(ascii: "t"):
                guard literal("true", &index, .bool) != nil else { return nil }
            case UInt8(ascii: "f"):
                guard literal("false", &index, .bool) != nil else { return nil }
            case UInt8(ascii: "n"):
                guard literal("null", &index, .null) != nil else { return nil }
            default:
                guard parseNumber(&index) != nil else { return nil }
            }
            // After a value: the end of the text, the next member or element, or a close.
            while true {
                guard open > 0 else { return skipSpace(index) == count ? kind : nil }
                index = skipSpace(index)
                guard index < count else { return nil }
                let byte = bytes[index]
                let inObject = objects & 1 == 1
                if byte == UInt8(ascii: ",") {
                    index = skipSpace(index + 1)
                    if inObject, !memberKey(&index) { return nil }
                    break
                }
                guard byte == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return nil }
                index += 1
                objects >>= 1
                open -= 1
            }
        }
    }

    /// The first byte at or after `start` that is not white space: inlined for the usual case, a
    /// token right away (a call per token was a fifth of checking a compact body); a run of
    /// spaces (indentation, padding) is skipped eight bytes at a time.
    @inline(__always)
    func skipSpace(_ start: Int) -> Int {
        if start < bytes.count, bytes[start] > 0x20 { return start }
        // One space before a token: what most encoders write after a comma or a colon.
        if start + 1 < bytes.count, bytes[start] == 0x20, bytes[start + 1] > 0x20 { return start + 1 }
        return skipSpaceRun(start)
    }

    private func skipSpaceRun(_ start: Int) -> Int {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case 0x20:
                index += 1
                while index + 8 <= bytes.count, bytes.loadUInt64(at: index) == SWAR.ones &* 0x20 {
                    index += 8
                }
            case 0x09, 0x0A, 0x0D: index += 1
            default: return index
            }
        }
        return index
    }

    /// A member's key, the colon and the white space around it: `index` is then at the value.
    @inline(__always)
    private func memberKey(_ index: inout Int) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), parseString(&index) != nil else { return false }
        index = skipSpace(index)
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
        index = skipSpace(index + 1)
        return true
    }
}
