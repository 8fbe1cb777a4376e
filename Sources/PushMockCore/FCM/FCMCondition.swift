/// FCM topic conditions: `'A' in topics && ('B' in topics || !('C' in topics))` (fcm.md §3).
public enum FCMCondition {
    /// Why a condition does not parse.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// The topics a condition names, in order, or a ``Problem``.
    public static func topics(in condition: String) throws -> [String] {
        var parser = Parser(Array(condition.utf8))
        try parser.expression()
        parser.skipSpaces()
        guard parser.index == parser.bytes.count else {
            throw Problem(description: "unexpected text at offset \(parser.index)")
        }
        return parser.topics
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var topics: [String] = []
        var depth = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func skipSpaces() {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
        }

        mutating func consume(_ text: String) -> Bool {
            skipSpaces()
            let token = Array(text.utf8)
            guard index + token.count <= bytes.count, Array(bytes[index..<(index + token.count)]) == token else { return false }
            index += token.count
            return true
        }

        // expression := conjunction ('||' conjunction)*
        mutating func expression() throws {
            try conjunction()
            while consume("||") { try conjunction() }
        }

        // conjunction := unary ('&&' unary)*
        mutating func conjunction() throws {
            try unary()
            while consume("&&") { try unary() }
        }

        // unary := '!' unary | '(' expression ')' | topic 'in' 'topics'
        mutating func unary() throws {
            depth += 1
            defer { depth -= 1 }
            guard depth < 64 else { throw Problem(description: "nested too deeply") }
            if consume("!") {
                try unary()
            } else if consume("(") {
                try expression()
                guard consume(")") else { throw Problem(description: "missing ) at offset \(index)") }
            } else {
                skipSpaces()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "'") || bytes[index] == UInt8(ascii: "\"") else {
                    throw Problem(description: "expected a quoted topic name at offset \(index)")
                }
                let quote = bytes[index]
                index += 1
                let start = index
                while index < bytes.count, bytes[index] != quote { index += 1 }
                guard index < bytes.count else { throw Problem(description: "unterminated topic name") }
                let name = String(decoding: bytes[start..<index], as: UTF8.self)
                index += 1
                guard FCMWalker.isTopicName(name) else { throw Problem(description: "invalid topic name '\(name)'") }
                guard consume("in"), consume("topics") else {
                    throw Problem(description: "expected 'in topics' after '\(name)'")
                }
                topics.append(name)
            }
        }
    }
}
