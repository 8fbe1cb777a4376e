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

    /// Reads one file's declarations.
    mutating func add(source: String, file: String) {
        let tree = Parser.parse(source: source)
        let converter = SourceLocationConverter(fileName: file, tree: tree)
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
