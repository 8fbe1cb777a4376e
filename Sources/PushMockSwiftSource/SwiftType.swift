/// A type as written in Swift source (`[Stage]?`, `DeliveryAttributes.Stage`, `Box<Int>`): its shape
/// as far as decoding cares, and its text for messages.
struct SwiftType {
    indirect enum Shape {
        /// `Name` or `Name<Arguments>`.
        case named(String, arguments: [SwiftType])
        /// `Base.Name` or `Base.Name<Arguments>`; the base as written.
        case member(base: String, name: String, arguments: [SwiftType])
        case optional(SwiftType)
        /// `Type!`.
        case unwrapped(SwiftType)
        case array(SwiftType)
        case dictionary(key: SwiftType, value: SwiftType)
        /// `@Attribute Type`, `inout Type` and other specifiers.
        case attributed(SwiftType)
        /// `(Type)`: one unlabeled element in parentheses.
        case parenthesized(SwiftType)
        /// Anything else: a function, a tuple, `some P`, `any P`, `P & Q`, a metatype.
        case other
    }

    var shape: Shape
    /// The source text, trimmed.
    var text: String
}

/// Reads types from a ``SwiftLexer``'s tokens.
extension SwiftDeclarationReader {
    /// Specifiers a type may carry before it (`inout Stage`).
    /// Keywords no type is named (`var a: case` has no type).
    static let keywords: Set<String> = [
        "case", "var", "let", "for", "func", "struct", "class", "enum", "if", "else", "return", "import", "in", "is", "as", "where",
        "while", "switch", "default", "do", "repeat", "break", "continue", "throw", "defer", "guard", "init", "deinit", "subscript",
        "typealias", "protocol", "extension", "operator", "static", "public", "private", "internal", "fileprivate", "true", "false", "nil",
    ]
    static let typeSpecifiers: Set<String> = ["inout", "borrowing", "consuming", "__owned", "__shared", "sending", "isolated", "__setter_access"]

    /// A type from the next tokens, or nil (nothing taken) when they do not start one. Throws when
    /// the type nests deeper than ``SwiftSourceLimits/maximumTreeDepth``.
    mutating func type(depth: Int = 0) throws(SwiftSourceError) -> SwiftType? {
        let first = lexer.peek()
        guard depth <= SwiftSourceLimits.maximumTreeDepth else {
            throw SwiftSourceError(
                "\(file):\(first.line): a type is more than \(SwiftSourceLimits.maximumTreeDepth) levels deep here (a chain such as Int???…); PushMock reads no deeper"
            )
        }
        guard var shape = try baseType(depth: depth) else { return nil }
        var last = lastTaken
        var levels = depth
        while true {
            let token = lexer.peek()
            guard token.kind == .punctuation, !token.spaceBefore else { break }
            if isPunctuation(token, "?") {
                shape = .optional(SwiftType(shape: shape, text: lexer.text(first, through: last)))
            } else if isPunctuation(token, "!") {
                shape = .unwrapped(SwiftType(shape: shape, text: lexer.text(first, through: last)))
            } else if isPunctuation(token, "...") {
                shape = .other
            } else {
                break
            }
            levels += 1
            guard levels <= SwiftSourceLimits.maximumTreeDepth else {
                throw SwiftSourceError(
                    "\(file):\(token.line): a type is more than \(SwiftSourceLimits.maximumTreeDepth) levels deep here (a chain such as Int???…); PushMock reads no deeper"
                )
            }
            last = lexer.next()
        }
        lastTaken = last
        if isPunctuation(lexer.peek(), "&") {
            lexer.next()
            guard try type(depth: depth + 1) != nil else { return SwiftType(shape: .other, text: lexer.text(first, through: lastTaken)) }
            shape = .other
        }
        return SwiftType(shape: shape, text: lexer.text(first, through: lastTaken))
    }

    /// A type without its `?`, `!` and `&` suffixes.
    private mutating func baseType(depth: Int) throws(SwiftSourceError) -> SwiftType.Shape? {
        let token = lexer.peek()
        if isPunctuation(token, "@") {
            attribute()
            return try type(depth: depth + 1).map { .attributed($0) } ?? .other
        }
        if token.kind == .identifier {
            let word = lexer.text(token)
            if Self.keywords.contains(word) { return nil }
            if Self.typeSpecifiers.contains(word), startsType(lexer.peek(1)) {
                lastTaken = lexer.next()
                return try type(depth: depth + 1).map { .attributed($0) } ?? .other
            }
            if word == "some" || word == "any", startsType(lexer.peek(1)) {
                lastTaken = lexer.next()
                _ = try type(depth: depth + 1)
                return .other
            }
            return try members(of: namedType(depth: depth), from: token, depth: depth)
        }
        if isPunctuation(token, "[") { return try members(of: collectionType(depth: depth), from: token, depth: depth) }
        if isPunctuation(token, "(") { return try members(of: parenthesizedType(depth: depth), from: token, depth: depth) }
        return nil
    }

    /// `Base.Name`, `Base.Name<Arguments>`, `[Element].Iterator`, `Base.Type`: the members after a
    /// type that starts at `first`.
    private mutating func members(of base: SwiftType.Shape, from first: SwiftToken, depth: Int) throws(SwiftSourceError) -> SwiftType.Shape {
        var shape = base
        while isPunctuation(lexer.peek(), "."), !lexer.peek().spaceBefore, lexer.peek(1).kind == .identifier {
            let baseText = lexer.text(first, through: lastTaken)
            lexer.next()
            let name = lexer.next()
            lastTaken = name
            let word = lexer.text(name)
            if word == "Type" || word == "Protocol" {
                shape = .other
            } else {
                shape = .member(base: baseText, name: word, arguments: try genericArguments(depth: depth))
            }
        }
        return shape
    }

    private func startsType(_ token: SwiftToken) -> Bool {
        token.kind == .identifier || isPunctuation(token, "(") || isPunctuation(token, "[") || isPunctuation(token, "@")
    }

    /// `Name` or `Name<Arguments>`.
    private mutating func namedType(depth: Int) throws(SwiftSourceError) -> SwiftType.Shape {
        let first = lexer.next()
        lastTaken = first
        return .named(lexer.text(first), arguments: try genericArguments(depth: depth))
    }

    /// `<A, B>` right after a name; value arguments (`InlineArray<3, Int>`'s `3`) are left out.
    private mutating func genericArguments(depth: Int) throws(SwiftSourceError) -> [SwiftType] {
        guard isPunctuation(lexer.peek(), "<"), !lexer.peek().spaceBefore else { return [] }
        lexer.next()
        var arguments: [SwiftType] = []
        while true {
            let token = lexer.peek()
            // Unclosed (code that does not compile): a brace is the declaration's, not the type's.
            if token.kind == .end || isPunctuation(token, "{") || isPunctuation(token, "}") { break }
            if isPunctuation(token, ">") {
                lastTaken = lexer.next()
                break
            }
            if isPunctuation(token, ",") {
                lexer.next()
                continue
            }
            if let argument = try type(depth: depth + 1) {
                arguments.append(argument)
            } else {
                lexer.next()  // a value argument, or text no type starts with
            }
        }
        return arguments
    }

    /// `[Element]` or `[Key: Value]`.
    private mutating func collectionType(depth: Int) throws(SwiftSourceError) -> SwiftType.Shape {
        lexer.next()
        guard let element = try type(depth: depth + 1) else {
            skipBalanced(alreadyOpen: true)
            return .other
        }
        var shape = SwiftType.Shape.array(element)
        if isPunctuation(lexer.peek(), ":") {
            lexer.next()
            guard let value = try type(depth: depth + 1) else {
                skipBalanced(alreadyOpen: true)
                return .other
            }
            shape = .dictionary(key: element, value: value)
        }
        guard isPunctuation(lexer.peek(), "]") else {
            skipBalanced(alreadyOpen: true)
            return .other
        }
        lastTaken = lexer.next()
        return shape
    }

    /// `(Type)`, a tuple `(a: A, B)`, or a function type `(A) async throws -> B`.
    private mutating func parenthesizedType(depth: Int) throws(SwiftSourceError) -> SwiftType.Shape {
        lexer.next()
        var elements: [(labeled: Bool, type: SwiftType?)] = []
        while true {
            let token = lexer.peek()
            if token.kind == .end || isPunctuation(token, "{") || isPunctuation(token, "}") { break }
            if isPunctuation(token, ")") {
                lastTaken = lexer.next()
                break
            }
            if isPunctuation(token, ",") {
                lexer.next()
                continue
            }
            var labeled = false
            if token.kind == .identifier, isPunctuation(lexer.peek(1), ":") {
                labeled = true
                lexer.next()
                lexer.next()
            } else if token.kind == .identifier, lexer.peek(1).kind == .identifier, isPunctuation(lexer.peek(2), ":") {
                labeled = true
                lexer.next()
                lexer.next()
                lexer.next()
            }
            let element = try type(depth: depth + 1)
            if element == nil { lexer.next() }
            elements.append((labeled, element))
        }
        var function = false
        while lexer.peek().kind == .identifier, ["async", "throws", "rethrows"].contains(lexer.text(lexer.peek())) {
            lastTaken = lexer.next()
            if isPunctuation(lexer.peek(), "("), !lexer.peek().spaceBefore { skipBalanced() }
        }
        if isPunctuation(lexer.peek(), "->") {
            lexer.next()
            function = true
            _ = try type(depth: depth + 1)
        }
        if !function, elements.count == 1, let only = elements.first, !only.labeled, let inner = only.type {
            return .parenthesized(inner)
        }
        return .other
    }
}
