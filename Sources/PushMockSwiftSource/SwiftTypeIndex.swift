import SwiftParser
import SwiftSyntax

/// Every type declared in a set of Swift files, by its qualified name (`DeliveryAttributes.ContentState`),
/// with what synthesized `Codable` needs of it: stored properties, enum cases, `CodingKeys`, a
/// hand-written `init(from:)`, conformances (extensions included). Function bodies, computed
/// properties and everything else (SwiftUI views, say) are skipped.
struct SwiftTypeIndex {
    enum Kind { case structure, enumeration, alias }

    struct Property {
        var name: String
        var type: TypeSyntax?
        /// The type of a literal default when there is no annotation (`var count = 0`).
        var literalType: String?
        var isLet: Bool
        var hasDefault: Bool
        var line: Int
    }

    struct Case {
        var name: String
        /// The explicit raw value (`case a = "x"`, `case two = 2`).
        var rawValue: RawValue?
        /// Associated values: label (nil when unlabeled) and type.
        var values: [(label: String?, type: TypeSyntax)]?
    }

    enum RawValue: Equatable {
        case string(String)
        case integer(Int64)
    }

    final class TypeInfo {
        let name: String
        let kind: Kind
        let file: String
        let line: Int
        var inherited: [String] = []
        var properties: [Property] = []
        var cases: [Case] = []
        var aliasTarget: TypeSyntax?
        var generic = false
        var customDecoder = false

        init(name: String, kind: Kind, file: String, line: Int) {
            self.name = name
            self.kind = kind
            self.file = file
            self.line = line
        }

        /// The nested `CodingKeys` enum's mapping from property name to key, if the type has one.
        var codingKeysName: String { name + ".CodingKeys" }
    }

    private(set) var types: [String: TypeInfo] = [:]
    /// Qualified names by their last component (`Stage` → `DeliveryAttributes.Stage`, `Stage`).
    private(set) var bySimpleName: [String: [String]] = [:]
    /// Extensions seen before (or without) their type: extended type text, scope, what they add.
    private var extensions: [(extended: String, scope: [String], inherited: [String], customDecoder: Bool)] = []
    private(set) var duplicates: [(name: String, file: String, line: Int)] = []

    /// Reads one file's declarations. Throws, naming the line, for a file nested deeper than
    /// ``SwiftSourceLimits/maximumNesting`` (the parser's own bound) or whose syntax tree is deeper
    /// than ``SwiftSourceLimits/maximumTreeDepth`` (a chain such as `Int???…`, which the parser
    /// builds without nesting): no reading of such a tree is attempted.
    mutating func add(source: String, file: String) throws(SwiftSourceError) {
        try Self.checkNesting(source, file: file)
        var parser = Parser(source, maximumNestingLevel: SwiftSourceLimits.parserNestingLevel)
        let tree = SourceFileSyntax.parse(from: &parser)
        let converter = SourceLocationConverter(fileName: file, tree: tree)
        try Self.checkDepth(tree, file: file, converter: converter)
        var reader = FileReader(file: file, converter: converter)
        reader.statements(tree.statements, scope: [])
        for type in reader.types {
            if types[type.name] != nil {
                duplicates.append((type.name, file, type.line))
                continue
            }
            types[type.name] = type
            bySimpleName[String(type.name.split(separator: ".").last ?? ""), default: []].append(type.name)
        }
        extensions += reader.extensions
    }

    /// Refuses, before parsing, a text whose brackets, parentheses, braces (string interpolations
    /// among them), `#if` blocks or `<` on one line nest deeper than
    /// ``SwiftSourceLimits/maximumNesting``, or square brackets deeper than
    /// ``SwiftSourceLimits/maximumSquareBracketNesting``: the parser is slow on them long before
    /// its own bound (its lookahead doubles with each `[` level), and its lexer's memory grows
    /// with interpolations. Comments and strings are not told apart, so the
    /// count can only be higher than the code's own nesting where they hold unbalanced brackets.
    static func checkNesting(_ source: String, file: String) throws(SwiftSourceError) {
        let limit = SwiftSourceLimits.maximumNesting
        var brackets = 0
        var squares = 0
        var lookahead = 0
        var angles = 0
        var conditions = 0
        var line = 1
        func refuse(_ what: String) -> SwiftSourceError {
            SwiftSourceError("\(file):\(line): \(what) nest more than \(limit) deep here; PushMock reads no deeper (no app's types come near it)")
        }
        let bytes = Array(source.utf8)
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\n"):
                line += 1
                angles = 0
            case UInt8(ascii: "["):
                squares += 1
                if squares > SwiftSourceLimits.maximumSquareBracketNesting {
                    throw SwiftSourceError(
                        "\(file):\(line): square brackets nest more than \(SwiftSourceLimits.maximumSquareBracketNesting) deep here; the Swift parser's time doubles with each level, so PushMock reads no deeper (no app's types come near it)"
                    )
                }
                lookahead += 1 << (squares - 1)
                if lookahead > SwiftSourceLimits.maximumBracketLookahead {
                    throw SwiftSourceError(
                        "\(file):\(line): the file holds so many deeply nested square brackets that parsing it would take minutes (each [ at depth d costs 2^(d-1), more than \(SwiftSourceLimits.maximumBracketLookahead) in all by here); PushMock reads no further"
                    )
                }
                fallthrough
            case UInt8(ascii: "("), UInt8(ascii: "{"):
                brackets += 1
                if brackets > limit { throw refuse("brackets, parentheses, braces and string interpolations") }
            case UInt8(ascii: "]"):
                squares = max(0, squares - 1)
                fallthrough
            case UInt8(ascii: ")"), UInt8(ascii: "}"):
                brackets = max(0, brackets - 1)
            case UInt8(ascii: "<"):
                angles += 1
                if angles > limit { throw refuse("generic arguments (<) on one line") }
            case UInt8(ascii: ">"):
                angles = max(0, angles - 1)
            case UInt8(ascii: "#"):
                if Self.word(bytes, at: index + 1, "if") {
                    conditions += 1
                    if conditions > limit { throw refuse("#if blocks") }
                } else if Self.word(bytes, at: index + 1, "endif") {
                    conditions = max(0, conditions - 1)
                }
            default:
                break
            }
            index += 1
        }
    }

    /// Whether `bytes` hold the word `word` at `index`, not followed by an identifier character.
    static func word(_ bytes: [UInt8], at index: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        guard index + count < bytes.count else { return true }
        let next = bytes[index + count]
        return !(next == UInt8(ascii: "_") || (next >= 0x30 && next <= 0x39) || ((next | 0x20) >= 0x61 && (next | 0x20) <= 0x7A))
    }

    /// Walks the tree without recursion and throws at the first node past the depth bound, or at
    /// the parser's own "too deeply nested" marker.
    static func checkDepth(_ tree: SourceFileSyntax, file: String, converter: SourceLocationConverter) throws(SwiftSourceError) {
        // The parser stops nesting at its bound and keeps the rest of the file as unexpected
        // text, marked (the flag is carried up to the root): the deepest marked node names the line.
        if tree.hasMaximumNestingLevelOverflow {
            var node = Syntax(tree)
            while let next = node.children(viewMode: .all).first(where: { $0.hasMaximumNestingLevelOverflow }) { node = next }
            let line = node.startLocation(converter: converter).line
            throw SwiftSourceError(
                "\(file):\(line): the source is nested more than the parser's \(SwiftSourceLimits.parserNestingLevel) levels here; PushMock reads no deeper"
            )
        }
        let limit = SwiftSourceLimits.maximumTreeDepth
        var stack: [(node: Syntax, depth: Int)] = [(Syntax(tree), 0)]
        while let (node, depth) = stack.popLast() {
            if depth > limit {
                let line = node.startLocation(converter: converter).line
                throw SwiftSourceError(
                    "\(file):\(line): the syntax tree is more than \(limit) levels deep here (a chain such as Int???…); PushMock reads no deeper"
                )
            }
            for child in node.children(viewMode: .all) { stack.append((child, depth + 1)) }
        }
    }

    /// Applies the extensions once every file is read (an extension may come before its type).
    mutating func finish() {
        for item in extensions {
            guard let name = resolve(item.extended, from: item.scope), let type = types[name] else { continue }
            type.inherited += item.inherited
            type.customDecoder = type.customDecoder || item.customDecoder
        }
        extensions = []
    }

    /// The qualified name of the type `text` (`Stage`, `DeliveryAttributes.Stage`) as seen from
    /// inside `scope` (the qualified name's components of the type that mentions it): the
    /// innermost enclosing scope first, then the top level, then a type of that name declared
    /// anywhere (another module of the same app) when there is exactly one.
    func resolve(_ text: String, from scope: [String]) -> String? {
        let parts = text.split(separator: ".").map(String.init)
        guard !parts.isEmpty else { return nil }
        var prefix = scope
        while true {
            let candidate = (prefix + parts).joined(separator: ".")
            if types[candidate] != nil { return candidate }
            if prefix.isEmpty { break }
            prefix.removeLast()
        }
        if parts.count == 1, let found = bySimpleName[parts[0]], found.count == 1 { return found[0] }
        return nil
    }

    /// Reads the declarations of one file.
    private struct FileReader {
        let file: String
        let converter: SourceLocationConverter
        var types: [TypeInfo] = []
        var extensions: [(extended: String, scope: [String], inherited: [String], customDecoder: Bool)] = []

        func line(_ node: some SyntaxProtocol) -> Int {
            node.startLocation(converter: converter).line
        }

        mutating func statements(_ items: CodeBlockItemListSyntax, scope: [String]) {
            for item in items {
                if case .decl(let decl) = item.item { declaration(decl, scope: scope, owner: nil) }
            }
        }

        mutating func members(_ items: MemberBlockItemListSyntax, scope: [String], owner: TypeInfo?) {
            for item in items { declaration(item.decl, scope: scope, owner: owner) }
        }

        mutating func declaration(_ decl: DeclSyntax, scope: [String], owner: TypeInfo?) {
            if decl.is(StructDeclSyntax.self) || decl.is(ClassDeclSyntax.self) || decl.is(ActorDeclSyntax.self) || decl.is(EnumDeclSyntax.self),
                let group = decl.asProtocol((any DeclGroupSyntax).self), let named = decl.asProtocol((any NamedDeclSyntax).self)
            {
                nominal(
                    named.name.text, decl.is(EnumDeclSyntax.self) ? .enumeration : .structure, decl, inheritance: group.inheritanceClause,
                    generic: decl.asProtocol((any WithGenericParametersSyntax).self)?.genericParameterClause != nil,
                    members: group.memberBlock.members, scope: scope)
            } else if let node = decl.as(TypeAliasDeclSyntax.self) {
                let type = TypeInfo(name: (scope + [node.name.text]).joined(separator: "."), kind: .alias, file: file, line: line(node))
                type.aliasTarget = node.initializer.value
                type.generic = node.genericParameterClause != nil
                types.append(type)
            } else if let node = decl.as(ExtensionDeclSyntax.self) {
                let extended = node.extendedType.trimmedDescription
                let inner = scope + extended.split(separator: ".").map(String.init)
                let decoder = node.memberBlock.members.contains { Self.isDecoderInit($0.decl) }
                extensions.append((extended, scope, Self.inherited(node.inheritanceClause), decoder))
                members(node.memberBlock.members, scope: inner, owner: nil)
            } else if let node = decl.as(IfConfigDeclSyntax.self), let clause = node.clauses.first {
                // `#if canImport(ActivityKit)` around a whole file: its first branch.
                switch clause.elements {
                case .statements(let items)?: statements(items, scope: scope)
                case .decls(let items)?: members(items, scope: scope, owner: owner)
                default: break
                }
            } else if let owner, let node = decl.as(VariableDeclSyntax.self) {
                owner.properties += properties(node)
            } else if let owner, let node = decl.as(EnumCaseDeclSyntax.self) {
                for element in node.elements {
                    owner.cases.append(
                        Case(
                            name: element.name.text,
                            rawValue: element.rawValue.flatMap { Self.rawValue($0.value) },
                            values: element.parameterClause.map { clause in
                                clause.parameters.map { parameter in
                                    let label = parameter.firstName.flatMap { $0.tokenKind == .wildcard ? nil : $0.text }
                                    return (label, parameter.type)
                                }
                            }
                        ))
                }
            } else if let owner, Self.isDecoderInit(decl) {
                owner.customDecoder = true
            }
        }

        mutating func nominal(
            _ name: String, _ kind: Kind, _ node: some SyntaxProtocol, inheritance: InheritanceClauseSyntax?, generic: Bool,
            members items: MemberBlockItemListSyntax, scope: [String]
        ) {
            let type = TypeInfo(name: (scope + [name]).joined(separator: "."), kind: kind, file: file, line: line(node))
            type.inherited = Self.inherited(inheritance)
            type.generic = generic
            types.append(type)
            members(items, scope: scope + [name], owner: type)
        }

        static func inherited(_ clause: InheritanceClauseSyntax?) -> [String] {
            clause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
        }

        /// `init(from decoder: Decoder)` (or `any Decoder`).
        static func isDecoderInit(_ decl: DeclSyntax) -> Bool {
            guard let node = decl.as(InitializerDeclSyntax.self) else { return false }
            let parameters = node.signature.parameterClause.parameters
            return parameters.count == 1 && parameters.first?.firstName.text == "from"
                && parameters.first?.type.trimmedDescription.hasSuffix("Decoder") == true
        }

        /// The stored instance properties a `var`/`let` declares (`static`, `lazy` and computed ones are not).
        func properties(_ node: VariableDeclSyntax) -> [Property] {
            for modifier in node.modifiers {
                switch modifier.name.tokenKind {
                case .keyword(.static), .keyword(.class), .keyword(.lazy): return []
                default: continue
                }
            }
            let isLet = node.bindingSpecifier.tokenKind == .keyword(.let)
            var found: [Property] = []
            // `let a, b: Int`: an annotation applies to the names before it that have none.
            var laterType: TypeSyntax?
            for binding in node.bindings.reversed() {
                if let annotated = binding.typeAnnotation?.type { laterType = annotated }
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
                if let accessors = binding.accessorBlock, Self.isComputed(accessors) { continue }
                let type = binding.typeAnnotation?.type ?? (binding.initializer == nil ? laterType : nil)
                found.append(
                    Property(
                        name: pattern.identifier.text.trimmingBackticks, type: type,
                        literalType: type == nil ? binding.initializer.flatMap { Self.literalType($0.value) } : nil,
                        isLet: isLet, hasDefault: binding.initializer != nil, line: line(binding)
                    ))
            }
            return found.reversed()
        }

        /// A getter, or `get`/`set` accessors: computed. Only `willSet`/`didSet`: stored.
        static func isComputed(_ block: AccessorBlockSyntax) -> Bool {
            switch block.accessors {
            case .getter: return true
            case .accessors(let list):
                return list.contains { accessor in
                    switch accessor.accessorSpecifier.tokenKind {
                    case .keyword(.willSet), .keyword(.didSet): false
                    default: true
                    }
                }
            }
        }

        static func literalType(_ expression: ExprSyntax) -> String? {
            if expression.is(StringLiteralExprSyntax.self) { return "String" }
            if expression.is(IntegerLiteralExprSyntax.self) { return "Int" }
            if expression.is(FloatLiteralExprSyntax.self) { return "Double" }
            if expression.is(BooleanLiteralExprSyntax.self) { return "Bool" }
            if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" { return literalType(prefix.expression) }
            return nil
        }

        static func rawValue(_ expression: ExprSyntax) -> RawValue? {
            if let text = expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue { return .string(text) }
            if let literal = expression.as(IntegerLiteralExprSyntax.self), let value = Int64(literal.literal.text.replacingUnderscores) {
                return .integer(value)
            }
            if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-",
                case .integer(let value)? = rawValue(prefix.expression)
            {
                return .integer(-value)
            }
            return nil
        }
    }
}

extension String {
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count > 1 ? String(dropFirst().dropLast()) : self
    }

    var replacingUnderscores: String {
        filter { $0 != "_" }
    }
}
