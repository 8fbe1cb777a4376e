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

    /// Whether a device subscribed to `subscribed` receives a message sent to `condition`.
    public static func matches(_ condition: String, subscribed: Set<String>) throws -> Bool {
        var parser = Parser(Array(condition.utf8))
        parser.subscribed = subscribed
        let result = try parser.expression()
        parser.skipSpaces()
        guard parser.index == parser.bytes.count else {
            throw Problem(description: "unexpected text at offset \(parser.index)")
        }
        return result
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var topics: [String] = []
        var depth = 0
        /// The topics of the device the condition is evaluated for.
        var subscribed: Set<String> = []

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
        @discardableResult
        mutating func expression() throws -> Bool {
            var value = try conjunction()
            while consume("||") { value = try conjunction() || value }
            return value
        }

        // conjunction := unary ('&&' unary)*
        mutating func conjunction() throws -> Bool {
            var value = try unary()
            while consume("&&") { value = try unary() && value }
            return value
        }

        // unary := '!' unary | '(' expression ')' | topic 'in' 'topics'
        mutating func unary() throws -> Bool {
            depth += 1
            defer { depth -= 1 }
            guard depth < 64 else { throw Problem(description: "nested too deeply") }
            if consume("!") {
                return try !unary()
            } else if consume("(") {
                let value = try expression()
                guard consume(")") else { throw Problem(description: "missing ) at offset \(index)") }
                return value
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
                return subscribed.contains(name)
            }
        }
    }
}
