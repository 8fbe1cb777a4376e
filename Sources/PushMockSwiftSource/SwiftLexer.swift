/// One token of Swift source, as the declaration reader needs it: where it is, and whether a line
/// break or a space came before it (`Int?` is an optional, `a ? b : c` is not).
struct SwiftToken {
    enum Kind: Equatable {
        /// A name or a keyword; a backticked name keeps its backticks (`` `default` ``).
        case identifier
        case integer
        case float
        /// A string literal, whole: its delimiters, escapes and interpolations.
        case string
        /// A `#/…/#` regular expression literal, whole.
        case regex
        /// `#` and the name after it: `#if`, `#endif`, `#Preview`.
        case pound
        /// One character of punctuation or of an operator, or `->` or `...`.
        case punctuation
        case end
    }

    var kind: Kind
    var start: Int
    var end: Int
    var line: Int
    var newlineBefore: Bool
    var spaceBefore: Bool
}

/// Splits Swift source into tokens. Comments and whitespace are skipped (nested `/* */` among
/// them); a string literal is one token however many lines, interpolations (`\(…)`) and raw
/// delimiters (`#"…"#`) it holds; so are `#/…/#` regular expressions. Operators are split into
/// single characters, so that `Array<Array<Int>>` and `Int?>` read as types.
struct SwiftLexer {
    let bytes: [UInt8]
    private var position = 0
    private var line = 1
    private var lookahead: [SwiftToken] = []
    /// The token scanned last: whether a `/` starts a regular expression depends on it.
    private var scanned: SwiftToken?

    init(_ source: String) {
        bytes = Array(source.utf8)
    }

    /// The token `offset` tokens ahead, without taking it.
    mutating func peek(_ offset: Int = 0) -> SwiftToken {
        while lookahead.count <= offset { lookahead.append(scan()) }
        return lookahead[offset]
    }

    /// Takes the next token.
    @discardableResult
    mutating func next() -> SwiftToken {
        let token = peek()
        lookahead.removeFirst()
        return token
    }

    /// The source text of `token`, or of the tokens from `token` to `last`.
    func text(_ token: SwiftToken, through last: SwiftToken? = nil) -> String {
        String(decoding: bytes[token.start..<max(token.start, (last ?? token).end)], as: UTF8.self)
    }

    /// Whether `token` is exactly `text`.
    func token(_ token: SwiftToken, is text: StaticString) -> Bool {
        guard token.end - token.start == text.utf8CodeUnitCount else { return false }
        for offset in 0..<text.utf8CodeUnitCount where bytes[token.start + offset] != text.utf8Start[offset] { return false }
        return true
    }

    private func byte(_ index: Int) -> UInt8 {
        index < bytes.count ? bytes[index] : 0
    }

    static func isIdentifierByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80 || (byte >= 0x30 && byte <= 0x39)
            || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Skips whitespace and comments, then reads one token.
    private mutating func scan() -> SwiftToken {
        var newline = false
        var space = false
        while position < bytes.count {
            let current = bytes[position]
            if current == UInt8(ascii: "\n") {
                newline = true
                line += 1
                position += 1
            } else if current == 0x20 || current == 0x09 || current == 0x0D || current == 0x0B || current == 0x0C || current == 0 {
                space = true
                position += 1
            } else if current == UInt8(ascii: "/"), byte(position + 1) == UInt8(ascii: "/") {
                while position < bytes.count, bytes[position] != UInt8(ascii: "\n") { position += 1 }
                space = true
            } else if current == UInt8(ascii: "/"), byte(position + 1) == UInt8(ascii: "*") {
                skipBlockComment()
                space = true
            } else {
                break
            }
        }
        let start = position
        let startLine = line
        let kind = scanToken()
        let token = SwiftToken(kind: kind, start: start, end: position, line: startLine, newlineBefore: newline, spaceBefore: space || newline)
        scanned = token
        return token
    }

    /// A `/* */` comment, which may nest.
    private mutating func skipBlockComment() {
        var depth = 0
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "/"), byte(position + 1) == UInt8(ascii: "*") {
                depth += 1
                position += 2
            } else if bytes[position] == UInt8(ascii: "*"), byte(position + 1) == UInt8(ascii: "/") {
                depth -= 1
                position += 2
                if depth == 0 { return }
            } else {
                if bytes[position] == UInt8(ascii: "\n") { line += 1 }
                position += 1
            }
        }
    }

    private mutating func scanToken() -> SwiftToken.Kind {
        guard position < bytes.count else { return .end }
        let first = bytes[position]
        switch first {
        case UInt8(ascii: "`"):
            var end = position + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "`"), bytes[end] != UInt8(ascii: "\n") { end += 1 }
            guard end < bytes.count, bytes[end] == UInt8(ascii: "`") else {
                position += 1
                return .punctuation
            }
            position = end + 1
            return .identifier
        case _ where Self.isDigit(first):
            return scanNumber()
        case _ where Self.isIdentifierByte(first):
            while position < bytes.count, Self.isIdentifierByte(bytes[position]) { position += 1 }
            return .identifier
        case UInt8(ascii: "\""):
            scanString(hashes: 0)
            return .string
        case UInt8(ascii: "#"):
            return scanPound()
        case UInt8(ascii: "/") where startsRegex():
            position += 1
            while bytes[position] != UInt8(ascii: "/") { position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1 }
            position += 1
            return .regex
        case UInt8(ascii: "-") where byte(position + 1) == UInt8(ascii: ">"):
            position += 2
            return .punctuation
        case UInt8(ascii: ".") where byte(position + 1) == UInt8(ascii: ".") && byte(position + 2) == UInt8(ascii: "."):
            position += 3
            return .punctuation
        default:
            position += 1
            return .punctuation
        }
    }

    /// Words after which a `/` starts a regular expression rather than divides.
    private static let beforeOperand: Set<String> = [
        "return", "case", "in", "where", "if", "guard", "while", "try", "await", "is", "as", "else", "throw", "yield", "switch",
    ]

    /// Whether the `/` at the current position starts a regular expression literal (`/\d+/`), as
    /// Swift decides: where an operand may start (not after a name, a literal or a closing
    /// bracket), not followed by a space, and closed by another `/` on the same line.
    private func startsRegex() -> Bool {
        let after = byte(position + 1)
        guard after != 0x20, after != 0x09, after != 0x0A, after != 0x0D, after != 0 else { return false }
        if let last = scanned {
            switch last.kind {
            case .integer, .float, .string, .regex, .pound: return false
            case .identifier:
                guard Self.beforeOperand.contains(String(decoding: bytes[last.start..<last.end], as: UTF8.self)) else { return false }
            case .punctuation:
                let character = bytes[last.start]
                if last.end - last.start == 1, [UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}")].contains(character) { return false }
                if character == UInt8(ascii: "?") || character == UInt8(ascii: "!"), !last.spaceBefore { return false }
            case .end: return false
            }
        }
        var index = position + 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "\n") {
            if bytes[index] == UInt8(ascii: "/") { return true }
            if bytes[index] == UInt8(ascii: "\\") {
                guard byte(index + 1) != UInt8(ascii: "\n") else { return false }
                index += 1
            }
            index += 1
        }
        return false
    }

    /// An integer or a floating-point literal (`1_000`, `0xFF`, `1.5e3`, `0x1p4`); `1...5` is an
    /// integer, then `...`.
    private mutating func scanNumber() -> SwiftToken.Kind {
        var kind = SwiftToken.Kind.integer
        let hex = bytes[position] == UInt8(ascii: "0") && (byte(position + 1) | 0x20) == UInt8(ascii: "x")
        if hex { position += 2 }
        func exponent(_ byte: UInt8) -> Bool { (byte | 0x20) == (hex ? UInt8(ascii: "p") : UInt8(ascii: "e")) }
        while position < bytes.count {
            let current = bytes[position]
            if current == UInt8(ascii: "."), Self.isDigit(byte(position + 1)) || (hex && Self.isIdentifierByte(byte(position + 1))) {
                kind = .float
                position += 1
            } else if exponent(current), byte(position + 1) == UInt8(ascii: "+") || byte(position + 1) == UInt8(ascii: "-") {
                kind = .float
                position += 2
            } else if Self.isIdentifierByte(current) {
                if exponent(current) { kind = .float }
                position += 1
            } else {
                break
            }
        }
        return kind
    }

    /// `#` and what follows it: a raw string (`#"…"#`), a regular expression (`#/…/#`), or a
    /// directive or macro name.
    private mutating func scanPound() -> SwiftToken.Kind {
        var hashes = 0
        while byte(position + hashes) == UInt8(ascii: "#") { hashes += 1 }
        if byte(position + hashes) == UInt8(ascii: "\"") {
            position += hashes
            scanString(hashes: hashes)
            return .string
        }
        if byte(position + hashes) == UInt8(ascii: "/") {
            position += hashes + 1
            while position < bytes.count, !(bytes[position] == UInt8(ascii: "/") && closes(at: position + 1, hashes: hashes)) {
                if bytes[position] == UInt8(ascii: "\n") { line += 1 }
                position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
            }
            position = min(bytes.count, position + 1 + hashes)
            return .regex
        }
        position += 1
        guard hashes == 1, position < bytes.count, Self.isIdentifierByte(bytes[position]) else { return .punctuation }
        while position < bytes.count, Self.isIdentifierByte(bytes[position]) { position += 1 }
        return .pound
    }

    /// Whether `hashes` `#` characters stand at `index`.
    private func closes(at index: Int, hashes: Int) -> Bool {
        for offset in 0..<hashes where byte(index + offset) != UInt8(ascii: "#") { return false }
        return true
    }

    /// A string literal from its opening quote (after any `#`s): one line, or `"""` to `"""`.
    /// An unterminated one-line string ends at its line's end.
    private mutating func scanString(hashes: Int) {
        let multiline = opensMultiline(at: position)
        position += multiline ? 3 : 1
        while position < bytes.count {
            let current = bytes[position]
            if current == UInt8(ascii: "\\"), closes(at: position + 1, hashes: hashes) {
                position += 1 + hashes
                if byte(position) == UInt8(ascii: "(") {
                    skipInterpolation()
                } else if position < bytes.count {
                    if bytes[position] == UInt8(ascii: "\n") { line += 1 }
                    position += 1
                }
            } else if current == UInt8(ascii: "\"") {
                if !multiline, closes(at: position + 1, hashes: hashes) {
                    position += 1 + hashes
                    return
                }
                if multiline, byte(position + 1) == UInt8(ascii: "\""), byte(position + 2) == UInt8(ascii: "\""),
                    closes(at: position + 3, hashes: hashes)
                {
                    position += 3 + hashes
                    return
                }
                position += 1
            } else if current == UInt8(ascii: "\n") {
                if !multiline { return }
                line += 1
                position += 1
            } else {
                position += 1
            }
        }
    }

    /// Whether `"""` and a line break stand at `index` (`#""""#` is a raw string holding `""`).
    private func opensMultiline(at index: Int) -> Bool {
        guard byte(index + 1) == UInt8(ascii: "\""), byte(index + 2) == UInt8(ascii: "\"") else { return false }
        var after = index + 3
        while byte(after) == 0x20 || byte(after) == 0x09 { after += 1 }
        return byte(after) == UInt8(ascii: "\n") || byte(after) == 0x0D
    }

    /// `\(…)` inside a string, from its `(`: tokens (strings within among them) to the matching `)`.
    private mutating func skipInterpolation() {
        var depth = 0
        while true {
            let token = scan()
            guard token.kind != .end else { return }
            guard token.kind == .punctuation, token.end - token.start == 1 else { continue }
            switch bytes[token.start] {
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0 { return }
            default: break
            }
        }
    }

    /// What a string literal stands for, when it is on one line and has no interpolation (a raw
    /// value: `case onTheWay = "on_the_way"`); nil otherwise.
    func stringValue(_ token: SwiftToken) -> String? {
        var start = token.start
        var hashes = 0
        while bytes[start] == UInt8(ascii: "#") {
            hashes += 1
            start += 1
        }
        let end = token.end - hashes - 1
        guard bytes[start] == UInt8(ascii: "\""), end > start, bytes[end] == UInt8(ascii: "\""), !opensMultiline(at: start) else { return nil }
        var scalars = String.UnicodeScalarView()
        var decoded: [UInt8] = []
        var index = start + 1
        func flush() {
            scalars.append(contentsOf: String(decoding: decoded, as: UTF8.self).unicodeScalars)
            decoded = []
        }
        while index < end {
            guard bytes[index] == UInt8(ascii: "\\"), closes(at: index + 1, hashes: hashes) else {
                decoded.append(bytes[index])
                index += 1
                continue
            }
            index += 1 + hashes
            guard index < end else { return nil }
            flush()
            switch bytes[index] {
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "0"): scalars.append("\0")
            case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"): scalars.append(Unicode.Scalar(bytes[index]))
            case UInt8(ascii: "u"):
                guard byte(index + 1) == UInt8(ascii: "{"), let close = bytes[index..<end].firstIndex(of: UInt8(ascii: "}")),
                    let value = UInt32(String(decoding: bytes[(index + 2)..<close], as: UTF8.self), radix: 16),
                    let scalar = Unicode.Scalar(value)
                else { return nil }
                scalars.append(scalar)
                index = close
            default: return nil  // an interpolation, or an escape Swift refuses
            }
            index += 1
        }
        flush()
        return String(scalars)
    }
}
