import PushMockBytes

/// Strings: finding where one ends (sixteen bytes at a time), checking its UTF-8, and decoding it.
extension JSONScanner {
    /// The string at `index` (its opening quote): `index` is then after its closing quote.
    /// Inlined for the usual string, plain ASCII up to its closing quote; an escape, a control
    /// character or a non-ASCII byte is left to ``parseStringWithSpecials(_:)``. The first sixteen
    /// bytes are looked at here, where most keys and short values end: the call to the search
    /// through the rest cost about a third of a short string's instructions.
    @inline(__always)
    func parseString(_ index: inout Int) -> Value? {
        let start = index
        guard index < bytes.count else { return nil }
        let special: Int
        if bytes.count - index > 16 {
            let lane = SIMDBytes.firstJSONStringSpecial(bytes.loadSIMD16(at: index + 1))
            special = lane < 16 ? index + 1 + lane : bytes.firstJSONStringSpecial(from: index + 17)
        } else {
            special = bytes.firstJSONStringSpecial(from: index + 1)
        }
        guard special < bytes.count, bytes[special] == UInt8(ascii: "\"") else { return parseStringWithSpecials(&index) }
        index = special + 1
        return Value(range: start..<index, kind: .string)
    }

    /// ``parseString(_:)`` for a string with an escape, a control character or a non-ASCII byte
    /// (each checked here), or with no closing quote.
    @inline(never)
    func parseStringWithSpecials(_ index: inout Int) -> Value? {
        let start = index
        index += 1
        while index < bytes.count {
            // Up to the first quote, backslash, control character or non-ASCII byte (eight bytes
            // at a time), which the switch below then handles.
            index = bytes.firstJSONStringSpecial(from: index)
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

    /// Validates one UTF-8 sequence (RFC 3629), returning its length.
    func utf8SequenceLength(at index: Int) -> Int? {
        let lead = bytes[index]
        let length: Int
        var lowerBound: UInt8 = 0x80
        var upperBound: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lowerBound = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            upperBound = 0x9F
        case 0xF0:
            length = 4
            lowerBound = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            upperBound = 0x8F
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

    func decodeString(contentRange range: Range<Int>) -> String {
        let slice = bytes.view(range)
        guard slice.contains(byte: UInt8(ascii: "\\")) else {
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
                if (0xD800..<0xDC00).contains(code), index + 5 < range.upperBound, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                {
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

    func hex4(at index: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 << 4 | UInt32(Self.hexValue(bytes[index + $1]) ?? 0) }
    }
}
