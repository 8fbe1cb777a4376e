/// What a client or a file system gave, made safe for a log line, a terminal and a JSON string:
/// printable ASCII as it is; a quote, a backslash, control bytes (escape sequences among them) and
/// every other byte as `\xNN`; at most `limit` bytes, then `…`.
///
/// ```swift
/// PrintableText.escaped("a\u{1B}[2Jb")  // a\x1B[2Jb
/// ```
public enum PrintableText {
    public static func escaped(_ text: some StringProtocol, limit: Int = 200) -> String {
        var out = ""
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        for byte in text.utf8.prefix(limit) {
            if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "\\x"
                out.unicodeScalars.append(digits[Int(byte >> 4)])
                out.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        return text.utf8.count > limit ? out + "…" : out
    }
}
