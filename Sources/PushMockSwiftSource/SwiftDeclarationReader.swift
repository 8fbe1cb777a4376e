/// Reads the declarations of one Swift file that synthesized `Codable` cares about: structs,
/// classes, actors and enums (nested ones too), their stored properties and cases, typealiases,
/// extensions, and `init(from:)`. Everything else is skipped token by token, braces balanced:
/// function bodies, computed properties, protocols, statements, macros. Of an `#if`, the first
/// branch is read, as an app built for iOS compiles it.
struct SwiftDeclarationReader {
    var lexer: SwiftLexer
    let file: String
    var types: [SwiftTypeIndex.TypeInfo] = []
    var extensions: [SwiftTypeIndex.Extension] = []
    /// The last token a step took (a type's text ends there).
    var lastTaken: SwiftToken

    init(source: String, file: String) {
        lexer = SwiftLexer(source)
        self.file = file
        lastTaken = SwiftToken(kind: .end, start: 0, end: 0, line: 1, newlineBefore: false, spaceBefore: false)
    }

    static let declarationKeywords: Set<String> = [
        "struct", "class", "actor", "enum", "protocol", "extension", "typealias", "var", "let", "func", "init", "deinit", "subscript",
        "case", "import", "operator", "precedencegroup", "associatedtype", "macro",
    ]
    static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "open", "package", "static", "class", "final", "lazy", "weak", "unowned",
        "mutating", "nonmutating", "override", "required", "convenience", "dynamic", "optional", "indirect", "nonisolated",
        "distributed", "prefix", "postfix", "infix", "consuming", "borrowing", "__consuming", "isolated", "_const",
    ]
    static let accessorKeywords: Set<String> = [
        "get", "set", "willSet", "didSet", "_read", "_modify", "init", "unsafeAddress", "unsafeMutableAddress", "read", "modify",
    ]

    /// Reads the whole file.
    mutating func read() throws(SwiftSourceError) {
        while lexer.peek().kind != .end {
            _ = try members(scope: [], owner: nil)
            if lexer.peek().kind != .end { lexer.next() }  // a stray `}` or `#endif`
        }
    }

    func isPunctuation(_ token: SwiftToken, _ text: StaticString) -> Bool {
        token.kind == .punctuation && lexer.token(token, is: text)
    }

    func isWord(_ token: SwiftToken, _ text: StaticString) -> Bool {
        token.kind == .identifier && lexer.token(token, is: text)
    }

    func isPound(_ token: SwiftToken, _ text: StaticString) -> Bool {
        token.kind == .pound && lexer.token(token, is: text)
    }

    /// `#if`, `#elseif`, `#else` or `#endif`.
    func isDirective(_ token: SwiftToken) -> Bool {
        isPound(token, "#if") || isPound(token, "#elseif") || isPound(token, "#else") || isPound(token, "#endif")
    }

    /// Whether a declaration (or a directive) starts at `token`.
    func startsDeclaration(_ token: SwiftToken) -> Bool {
        if token.kind == .pound || isPunctuation(token, "@") { return true }
        guard token.kind == .identifier else { return false }
        let word = lexer.text(token)
        return Self.declarationKeywords.contains(word) || Self.modifiers.contains(word)
    }

    /// Declarations up to the `}` that closes their block, an `#else`, `#elseif` or `#endif`, or
    /// the end (none of them taken). Answers whether an `init(from:)` was among them.
    mutating func members(scope: [String], owner: SwiftTypeIndex.TypeInfo?) throws(SwiftSourceError) -> Bool {
        var decoder = false
        while true {
            let token = lexer.peek()
            switch token.kind {
            case .end: return decoder
            case .punctuation where isPunctuation(token, "}"): return decoder
            case .punctuation where isPunctuation(token, ";"): lexer.next()
            case .pound where isPound(token, "#if"): try condition(scope: scope, owner: owner)
            case .pound where isPound(token, "#else") || isPound(token, "#elseif") || isPound(token, "#endif"): return decoder
            default: decoder = try declaration(scope: scope, owner: owner) || decoder
            }
        }
    }

    /// `#if` … `#endif`: the first branch's declarations; the others are skipped.
    mutating func condition(scope: [String], owner: SwiftTypeIndex.TypeInfo?) throws(SwiftSourceError) {
        lexer.next()
        while lexer.peek().kind != .end, !lexer.peek().newlineBefore { lexer.next() }
        _ = try members(scope: scope, owner: owner)
        var depth = 1
        while depth > 0 {
            let token = lexer.next()
            if token.kind == .end { return }
            if isPound(token, "#if") { depth += 1 }
            if isPound(token, "#endif") { depth -= 1 }
        }
    }

    /// One declaration, or one statement to skip. Answers whether it was an `init(from:)`.
    mutating func declaration(scope: [String], owner: SwiftTypeIndex.TypeInfo?) throws(SwiftSourceError) -> Bool {
        let start = lexer.peek()
        var modifiers: Set<String> = []
        var conditions = 0
        while true {
            let token = lexer.peek()
            if isPunctuation(token, "@") {
                attribute()
                continue
            }
            // `#if compiler(>=6.3)` around some of the attributes: each branch's are taken.
            if isPound(token, "#if") || (conditions > 0 && isDirective(token)) {
                conditions += isPound(token, "#if") ? 1 : isPound(token, "#endif") ? -1 : 0
                lexer.next()
                while lexer.peek().kind != .end, !lexer.peek().newlineBefore { lexer.next() }
                continue
            }
            guard token.kind == .identifier else { break }
            let word = lexer.text(token)
            guard Self.modifiers.contains(word) else { break }
            if word == "class" {
                let after = lexer.peek(1)
                guard after.kind == .identifier, startsDeclaration(after) else { break }
            }
            lexer.next()
            modifiers.insert(word)
            if isPunctuation(lexer.peek(), "("), !lexer.peek().spaceBefore { skipBalanced() }  // private(set)
        }
        let keyword = lexer.peek()
        let word = keyword.kind == .identifier ? lexer.text(keyword) : ""
        switch word {
        case "struct", "class", "enum":
            try nominal(word == "enum" ? .enumeration : .structure, start: start, scope: scope)
        case "actor" where lexer.peek(1).kind == .identifier:
            try nominal(.structure, start: start, scope: scope)
        case "typealias": try typeAlias(start: start, scope: scope)
        case "extension": try extensionDeclaration(scope: scope)
        case "var", "let":
            let found = try variable()
            if let owner, !modifiers.contains("static"), !modifiers.contains("class"), !modifiers.contains("lazy") { owner.properties += found }
        case "case" where owner != nil:
            if let owner { owner.cases += try enumCases() }
        case "init":
            let decoder = try initializerTakesDecoder()
            if decoder, let owner { owner.customDecoder = true }
            return decoder
        default:
            skipDeclaration()
        }
        return false
    }

    /// `@Name`, `@Name(arguments)`.
    mutating func attribute() {
        lastTaken = lexer.next()
        guard lexer.peek().kind == .identifier, !lexer.peek().spaceBefore else { return }
        lastTaken = lexer.next()
        while isPunctuation(lexer.peek(), "."), lexer.peek(1).kind == .identifier {
            lexer.next()
            lastTaken = lexer.next()
        }
        if isPunctuation(lexer.peek(), "("), !lexer.peek().spaceBefore { skipBalanced() }
    }

    /// From an opening bracket, parenthesis or brace (taken first unless `alreadyOpen`) to the one
    /// that closes it, whatever kind: the input may be unbalanced, and this must end.
    mutating func skipBalanced(alreadyOpen: Bool = false) {
        var depth = alreadyOpen ? 1 : 0
        repeat {
            let token = lexer.next()
            guard token.kind != .end else { return }
            lastTaken = token
            guard token.kind == .punctuation, token.end - token.start == 1 else { continue }
            switch lexer.bytes[token.start] {
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        } while depth > 0
    }

    /// Whether `token` opens or closes a bracket, parenthesis or brace: +1, -1, or 0.
    func nesting(_ token: SwiftToken) -> Int {
        guard token.kind == .punctuation, token.end - token.start == 1 else { return 0 }
        switch lexer.bytes[token.start] {
        case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"): return 1
        case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"): return -1
        default: return 0
        }
    }

    /// A declaration or statement PushMock does not read: its tokens up to the end of its body
    /// (`{…}`), a `;`, the `}` closing its block, or a line that starts another declaration. Takes
    /// at least one token unless the next is that `}` or the end.
    mutating func skipDeclaration() {
        var first = true
        while true {
            let token = lexer.peek()
            if token.kind == .end || isPunctuation(token, "}") || isDirective(token) { return }
            if !first, isPunctuation(token, ")") || isPunctuation(token, "]") || (token.newlineBefore && startsDeclaration(token)) { return }
            if isPunctuation(token, ";") {
                lexer.next()
                return
            }
            if isPunctuation(token, "{") {
                skipBalanced()
                return
            }
            if nesting(token) > 0 { skipBalanced() } else { lexer.next() }
            first = false
        }
    }
}
