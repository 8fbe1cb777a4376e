/// Percent-decoding, the one way every part of PushMock reads `%XX` escapes: query strings and
/// form bodies (where `+` is a space) and path segments (where it is not). A `%` not followed by
/// two hex digits is kept as it is, as WHATWG URL parsing and Google's front ends keep it, so a
/// bad escape never drops characters from a token or a name.
public enum PercentDecoding {
    /// `bytes` decoded; `plusAsSpace` for query strings and `application/x-www-form-urlencoded`
    /// bodies. Decoded bytes that are not UTF-8 become U+FFFD.
    public static func decode(_ bytes: some Collection<UInt8>, plusAsSpace: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                if first != bytes.endIndex, let high = JSONScanner.hexValue(bytes[first]) {
                    let second = bytes.index(after: first)
                    if second != bytes.endIndex, let low = JSONScanner.hexValue(bytes[second]) {
                        out.append(high << 4 | low)
                        index = bytes.index(after: second)
                        continue
                    }
                }
                out.append(byte)
            } else if plusAsSpace, byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(byte)
            }
            index = bytes.index(after: index)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A query item or form value: `+` is a space.
    public static func queryValue(_ text: Substring) -> String {
        decode(text.utf8, plusAsSpace: true)
    }

    /// A path segment: `+` is a plus.
    public static func pathSegment(_ text: Substring) -> String {
        decode(text.utf8, plusAsSpace: false)
    }
}
