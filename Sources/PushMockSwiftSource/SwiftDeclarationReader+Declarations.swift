/// The declarations ``SwiftDeclarationReader`` reads.
extension SwiftDeclarationReader {
    /// `struct Name<Generics>: Inherited where … { members }` (and class, actor, enum).
    mutating func nominal(_ kind: SwiftTypeIndex.Kind, start: SwiftToken, scope: [String]) throws(SwiftSourceError) {
        lexer.next()
        guard lexer.peek().kind == .identifier else { return skipDeclaration() }
        let name = lexer.text(lexer.next())
        let type = SwiftTypeIndex.TypeInfo(name: (scope + [name]).joined(separator: "."), kind: kind, file: file, line: start.line)
        if isPunctuation(lexer.peek(), "<") {
            type.generic = true
            skipAngles()
        }
        type.inherited = try inheritance()
        types.append(type)
        guard skipToBody() else { return }
        _ = try members(scope: scope + [name], owner: type)
        if isPunctuation(lexer.peek(), "}") { lexer.next() }
    }

    /// `extension Type: Inherited where … { members }`.
    mutating func extensionDeclaration(scope: [String]) throws(SwiftSourceError) {
        lexer.next()
        guard let extended = try type() else { return skipDeclaration() }
        let inherited = try inheritance()
        guard skipToBody() else { return }
        let inner = scope + extended.text.split(separator: ".").map(String.init)
        let decoder = try members(scope: inner, owner: nil)
        if isPunctuation(lexer.peek(), "}") { lexer.next() }
        extensions.append(SwiftTypeIndex.Extension(extended: extended.text, scope: scope, inherited: inherited, customDecoder: decoder))
    }

    /// `typealias Name<Generics> = Type`.
    mutating func typeAlias(start: SwiftToken, scope: [String]) throws(SwiftSourceError) {
        lexer.next()
        guard lexer.peek().kind == .identifier else { return skipDeclaration() }
        let name = lexer.text(lexer.next())
        let alias = SwiftTypeIndex.TypeInfo(name: (scope + [name]).joined(separator: "."), kind: .alias, file: file, line: start.line)
        if isPunctuation(lexer.peek(), "<") {
            alias.generic = true
            skipAngles()
        }
        guard isPunctuation(lexer.peek(), "=") else { return skipDeclaration() }
        lexer.next()
        guard let target = try type() else { return skipDeclaration() }
        alias.aliasTarget = target
        types.append(alias)
    }

    /// `: A, B & C` before a body or a `where` clause: each inherited type's text.
    mutating func inheritance() throws(SwiftSourceError) -> [String] {
        guard isPunctuation(lexer.peek(), ":") else { return [] }
        lexer.next()
        var inherited: [String] = []
        while let type = try type() {
            inherited.append(type.text)
            guard isPunctuation(lexer.peek(), ",") else { break }
            lexer.next()
        }
        return inherited
    }

    /// `<…>`, nested ones included.
    mutating func skipAngles() {
        var depth = 0
        repeat {
            let token = lexer.peek()
            if token.kind == .end || isPunctuation(token, "{") || isPunctuation(token, "}") { return }
            lexer.next()
            if isPunctuation(token, "<") { depth += 1 }
            if isPunctuation(token, ">") { depth -= 1 }
        } while depth > 0
    }

    /// Past a `where` clause to the `{` of a body, taking it; false (nothing more taken) when
    /// the declaration has none.
    mutating func skipToBody() -> Bool {
        while true {
            let token = lexer.peek()
            if isPunctuation(token, "{") {
                lexer.next()
                return true
            }
            if token.kind == .end || isPunctuation(token, "}") || isPunctuation(token, ";") { return false }
            if token.newlineBefore, startsDeclaration(token) { return false }
            if nesting(token) > 0 { skipBalanced() } else { lexer.next() }
        }
    }

    /// `var a: A = 1, b: B { … }`: the stored properties it declares, in order.
    mutating func variable() throws(SwiftSourceError) -> [SwiftTypeIndex.Property] {
        let isLet = isWord(lexer.next(), "let")
        var bindings: [(name: String?, type: SwiftType?, literal: String?, hasDefault: Bool, computed: Bool, line: Int)] = []
        while true {
            let pattern = lexer.peek()
            var name: String?
            if pattern.kind == .identifier {
                name = lexer.text(lexer.next())
            } else if isPunctuation(pattern, "(") {
                skipBalanced()
            } else {
                skipDeclaration()
                break
            }
            var annotation: SwiftType?
            if isPunctuation(lexer.peek(), ":") {
                lexer.next()
                // A `:` with no type after it is a type PushMock cannot read.
                annotation = try type() ?? SwiftType(shape: .other, text: "")
            }
            var initializer: (hasValue: Bool, literal: String?) = (false, nil)
            if isPunctuation(lexer.peek(), "=") {
                lexer.next()
                initializer = (true, expression())
            }
            var computed = false
            if isPunctuation(lexer.peek(), "{") { computed = accessorsCompute() }
            bindings.append((name, annotation, initializer.literal, initializer.hasValue, computed, pattern.line))
            guard isPunctuation(lexer.peek(), ",") else { break }
            lexer.next()
        }
        // `let a, b: Int`: an annotation applies to the names before it that have none.
        var found: [SwiftTypeIndex.Property] = []
        var laterType: SwiftType?
        for binding in bindings.reversed() {
            if let annotated = binding.type { laterType = annotated }
            guard let name = binding.name, !binding.computed else { continue }
            let type = binding.type ?? (binding.hasDefault ? nil : laterType)
            found.append(
                SwiftTypeIndex.Property(
                    name: name.trimmingBackticks, type: type, literalType: type == nil ? binding.literal : nil, isLet: isLet,
                    hasDefault: binding.hasDefault, line: binding.line))
        }
        return found.reversed()
    }

    /// An initializer's expression, up to a `,` or `;`, the `}` closing the block, a property's
    /// observers, or a line that starts another declaration. Answers the type of a lone literal
    /// (`"live"`, `-1`, `0.5`, `true`), nil for anything else.
    mutating func expression() -> String? {
        var tokens: [SwiftToken] = []
        var previous: SwiftToken?
        // `Mutex<Task<Void, Never>?>(nil)`: a `<` right after a name, with no space, opens
        // generic arguments, whose commas do not end the expression.
        var angles = 0
        while true {
            let token = lexer.peek()
            if token.kind == .end || isPunctuation(token, ";") || nesting(token) < 0 { break }
            if isPunctuation(token, ","), angles == 0 { break }
            if isPunctuation(token, "<"), !token.spaceBefore, previous?.kind == .identifier { angles += 1 }
            if isPunctuation(token, ">"), angles > 0 { angles -= 1 }
            if token.newlineBefore { angles = 0 }
            if token.newlineBefore, startsDeclaration(token) { break }
            if isPunctuation(token, "{") {
                let inside = lexer.peek(1)
                if isWord(inside, "willSet") || isWord(inside, "didSet") { break }
            }
            if tokens.count < 3 { tokens.append(token) }
            previous = token
            if nesting(token) > 0 { skipBalanced() } else { lexer.next() }
        }
        if tokens.count == 2, isPunctuation(tokens[0], "-"), !tokens[1].spaceBefore, tokens[1].kind == .integer || tokens[1].kind == .float {
            tokens.removeFirst()
        }
        guard tokens.count == 1, let only = tokens.first else { return nil }
        switch only.kind {
        case .string: return "String"
        case .integer: return "Int"
        case .float: return "Double"
        case .identifier where isWord(only, "true") || isWord(only, "false"): return "Bool"
        default: return nil
        }
    }

    /// A property's `{ … }`: a getter, or accessors. Computed unless its only accessors are
    /// `willSet` and `didSet`.
    mutating func accessorsCompute() -> Bool {
        lexer.next()
        var offset = 0
        while isPunctuation(lexer.peek(offset), "@") || isWord(lexer.peek(offset), "mutating") || isWord(lexer.peek(offset), "nonmutating") {
            offset += isPunctuation(lexer.peek(offset), "@") ? 2 : 1
        }
        let first = lexer.peek(offset)
        guard first.kind == .identifier, Self.accessorKeywords.contains(lexer.text(first)) else {
            skipBalanced(alreadyOpen: true)
            return true
        }
        var computed = false
        var depth = 1
        while depth > 0 {
            let token = lexer.next()
            if token.kind == .end { break }
            depth += nesting(token)
            if depth == 1, token.kind == .identifier, Self.accessorKeywords.contains(lexer.text(token)) {
                computed = computed || !(isWord(token, "willSet") || isWord(token, "didSet"))
            }
        }
        return computed
    }

    /// `case a, b(x: Int, Stop) = "raw"`: each element.
    mutating func enumCases() throws(SwiftSourceError) -> [SwiftTypeIndex.Case] {
        lexer.next()
        var cases: [SwiftTypeIndex.Case] = []
        while lexer.peek().kind == .identifier {
            var item = SwiftTypeIndex.Case(name: lexer.text(lexer.next()), rawValue: nil, values: nil)
            if isPunctuation(lexer.peek(), "(") { item.values = try parameters().map { ($0.label, $0.type) } }
            if isPunctuation(lexer.peek(), "=") {
                lexer.next()
                item.rawValue = rawValue()
            }
            cases.append(item)
            guard isPunctuation(lexer.peek(), ",") else { break }
            lexer.next()
        }
        return cases
    }

    /// A raw value: a string literal, or an integer one with an optional `-`; the rest of the
    /// expression is skipped.
    mutating func rawValue() -> SwiftTypeIndex.RawValue? {
        let first = lexer.peek()
        var value: SwiftTypeIndex.RawValue?
        if first.kind == .string {
            value = lexer.stringValue(first).map { .string($0) }
        } else if first.kind == .integer {
            value = Int64(lexer.text(first).replacingUnderscores).map { .integer($0) }
        } else if isPunctuation(first, "-"), lexer.peek(1).kind == .integer, !lexer.peek(1).spaceBefore {
            value = Int64(lexer.text(lexer.peek(1)).replacingUnderscores).map { .integer(-$0) }
        }
        // A value only when the expression is the literal alone (`= 1 + 2` has none).
        return expression() != nil ? value : nil
    }

    /// `(label name: Type = default, Type)`: each parameter's first name (nil for none or `_`)
    /// and type; a parameter whose type cannot be read is left out.
    mutating func parameters() throws(SwiftSourceError) -> [(label: String?, type: SwiftType)] {
        lexer.next()
        var found: [(label: String?, type: SwiftType)] = []
        while true {
            let token = lexer.peek()
            if token.kind == .end { break }
            if isPunctuation(token, ")") {
                lexer.next()
                break
            }
            var label: String?
            if token.kind == .identifier, isPunctuation(lexer.peek(1), ":") {
                label = lexer.text(lexer.next())
                lexer.next()
            } else if token.kind == .identifier, lexer.peek(1).kind == .identifier, isPunctuation(lexer.peek(2), ":") {
                label = lexer.text(lexer.next())
                lexer.next()
                lexer.next()
            }
            if let type = try type() { found.append((label == "_" ? nil : label, type)) }
            // A default value, or whatever else is left of the parameter.
            while lexer.peek().kind != .end, !isPunctuation(lexer.peek(), ","), !isPunctuation(lexer.peek(), ")") {
                if nesting(lexer.peek()) > 0 { skipBalanced() } else if nesting(lexer.peek()) < 0 { break } else { lexer.next() }
            }
            if isPunctuation(lexer.peek(), ",") { lexer.next() }
            if nesting(lexer.peek()) < 0, !isPunctuation(lexer.peek(), ")") { break }
        }
        return found
    }

    /// `init(from decoder: any Decoder) throws { … }`: whether this initializer is that one. The
    /// rest of the declaration is skipped.
    mutating func initializerTakesDecoder() throws(SwiftSourceError) -> Bool {
        lexer.next()
        while isPunctuation(lexer.peek(), "?") || isPunctuation(lexer.peek(), "!") { lexer.next() }
        if isPunctuation(lexer.peek(), "<") { skipAngles() }
        guard isPunctuation(lexer.peek(), "(") else {
            skipDeclaration()
            return false
        }
        let taken = try parameters()
        let decoder = taken.count == 1 && taken[0].label == "from" && taken[0].type.text.hasSuffix("Decoder")
        if !isPunctuation(lexer.peek(), "}") { skipDeclaration() }
        return decoder
    }
}
