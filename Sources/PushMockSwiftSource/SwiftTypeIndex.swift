/// Every type declared in a set of Swift files, by its qualified name (`DeliveryAttributes.ContentState`),
/// with what synthesized `Codable` needs of it: stored properties, enum cases, `CodingKeys`, a
/// hand-written `init(from:)`, conformances (extensions included). Function bodies, computed
/// properties and everything else (SwiftUI views, say) are skipped.
struct SwiftTypeIndex {
    enum Kind { case structure, enumeration, alias }

    struct Property {
        var name: String
        var type: SwiftType?
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
        var values: [(label: String?, type: SwiftType)]?
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
        var aliasTarget: SwiftType?
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
    /// An extension: the extended type's text, the scope it is declared in, what it adds.
    struct Extension {
        var extended: String
        var scope: [String]
        var inherited: [String]
        var customDecoder: Bool
    }

    /// Extensions seen before (or without) their type.
    private var extensions: [Extension] = []
    private(set) var duplicates: [(name: String, file: String, line: Int)] = []

    /// Reads one file's declarations. Throws, naming the line, for a file nested deeper than
    /// ``SwiftSourceLimits/maximumNesting``, or with a type deeper than
    /// ``SwiftSourceLimits/maximumTreeDepth`` (a chain such as `Int???…`, which has no brackets).
    mutating func add(source: String, file: String) throws(SwiftSourceError) {
        try Self.checkNesting(source, file: file)
        var reader = SwiftDeclarationReader(source: source, file: file)
        try reader.read()
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

    /// Refuses, before reading, a text whose brackets, parentheses, braces (string interpolations
    /// among them), `#if` blocks or `<` on one line nest deeper than
    /// ``SwiftSourceLimits/maximumNesting``: the reader recurses on them, and no app's types come
    /// near the bound. Comments and strings are not told apart, so the count can only be higher
    /// than the code's own nesting where they hold unbalanced brackets.
    static func checkNesting(_ source: String, file: String) throws(SwiftSourceError) {
        let limit = SwiftSourceLimits.maximumNesting
        var brackets = 0
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
            case UInt8(ascii: "["), UInt8(ascii: "("), UInt8(ascii: "{"):
                brackets += 1
                if brackets > limit { throw refuse("brackets, parentheses, braces and string interpolations") }
            case UInt8(ascii: "]"), UInt8(ascii: ")"), UInt8(ascii: "}"):
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
}

extension String {
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count > 1 ? String(dropFirst().dropLast()) : self
    }

    var replacingUnderscores: String {
        filter { $0 != "_" }
    }
}
