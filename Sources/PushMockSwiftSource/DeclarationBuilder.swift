import Foundation
import PushMockCore
import PushMockHTTP

/// Builds one `ActivityAttributes` type's declaration (the JSON form ``ActivityTypeDeclaration`` reads).
struct DeclarationBuilder {
    let index: SwiftTypeIndex
    /// The warnings, each once, in the order given; past ``SwiftSourceLimits/maximumWarnings``
    /// only counted.
    var warnings: [SwiftActivityTypes.Warning] = []
    var warned = Set<SwiftActivityTypes.Warning>()
    var warningsLeftOut = 0
    /// ``fieldType(_:scope:owner:line:field:pending:)`` calls so far; past
    /// ``SwiftSourceLimits/maximumSteps`` every type reads as `Any` and the read is refused.
    var steps = 0
    /// The aliases being followed (one met again is a cycle), and what each alias read as.
    var following = Set<String>()
    var aliasText: [String: String] = [:]

    mutating func warn(_ type: SwiftTypeIndex.TypeInfo, line: Int? = nil, _ message: String) {
        warn(file: type.file, line: line ?? type.line, message)
    }

    mutating func warn(file: String, line: Int, _ message: String) {
        let warning = SwiftActivityTypes.Warning(file: file, line: line, message: message)
        guard !warned.contains(warning) else { return }
        guard warnings.count < SwiftSourceLimits.maximumWarnings else {
            warningsLeftOut += 1
            return
        }
        warned.insert(warning)
        warnings.append(warning)
    }

    mutating func declaration(for attributes: SwiftTypeIndex.TypeInfo) -> ActivityTypeDeclaration? {
        var named: [String: JSONValue] = [:]
        var pending: [String] = []
        let attributeFields = fields(of: attributes, pending: &pending)
        var contentFields: [(key: String, value: JSONValue)] = []
        if let content = index.resolve("ContentState", from: attributes.name.split(separator: ".").map(String.init) + []),
            content.hasPrefix(attributes.name + "."), let contentType = target(of: content)
        {
            if contentType.kind == .structure {
                contentFields = fields(of: contentType, pending: &pending)
            } else {
                warn(contentType, "\(attributes.name).ContentState is not a struct; its content-state is not checked")
            }
        } else {
            warn(attributes, "\(attributes.name) has no ContentState PushMock can find; its content-state is not checked")
        }
        var done = Set<String>()
        while let name = pending.popLast() {
            guard done.insert(name).inserted, let type = index.types[name] else { continue }
            named[name] = body(of: type, pending: &pending)
        }
        let json = JSONValue.object([
            ("attributes", .object(attributeFields)),
            ("contentState", .object(contentFields)),
            ("types", .object(named.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })),
        ])
        do {
            return try ActivityTypeDeclaration(json: json)
        } catch {
            warn(attributes, "\(attributes.name) could not be declared: \(error)")
            return nil
        }
    }

    /// The type an alias stands for, followed to its end (nil: not found).
    func target(of name: String) -> SwiftTypeIndex.TypeInfo? {
        var current = index.types[name]
        var hops = 0
        while let type = current, type.kind == .alias, hops < 16 {
            guard let target = type.aliasTarget,
                let next = index.resolve(target.text, from: Array(type.name.split(separator: ".").dropLast().map(String.init)))
            else { return nil }
            current = index.types[next]
            hops += 1
        }
        return current?.kind == .alias ? nil : current
    }

    /// A struct's decoded fields, `{"name": "Type"}` or `{"name": {"type": …, "key": …}}`.
    mutating func fields(of type: SwiftTypeIndex.TypeInfo, pending: inout [String]) -> [(key: String, value: JSONValue)] {
        if type.generic {
            warn(type, "\(type.name) is generic; its fields are not checked")
            return []
        }
        let scope = type.name.split(separator: ".").map(String.init)
        let keys = codingKeys(of: type)
        var fields: [(key: String, value: JSONValue)] = []
        for property in type.properties {
            // A `let` with a value is never decoded (the compiler warns); a property CodingKeys leaves out is not either.
            if property.isLet && property.hasDefault { continue }
            var key = property.name
            if let keys {
                guard let renamed = keys[property.name] else { continue }
                key = renamed
            }
            var text: String
            if let syntax = property.type {
                text = fieldType(syntax, scope: scope, owner: type, line: property.line, field: property.name, pending: &pending)
            } else if let literal = property.literalType {
                text = literal
            } else {
                warn(type, line: property.line, "\(type.name).\(property.name) has no type annotation PushMock can read; it is not checked")
                text = "Any"
            }
            if type.customDecoder, !text.hasSuffix("?") { text += "?" }
            fields.append((property.name, key == property.name ? .string(text) : .object([("type", .string(text)), ("key", .string(key))])))
        }
        if type.customDecoder {
            warn(
                type,
                "\(type.name) decodes itself (init(from:)): PushMock cannot know how, so it checks each field's type when present and requires none")
        }
        return fields
    }

    /// A nested `CodingKeys` enum: property name → key (nil: none, keys are the names).
    func codingKeys(of type: SwiftTypeIndex.TypeInfo) -> [String: String]? {
        guard let keys = index.types[type.codingKeysName], keys.kind == .enumeration else { return nil }
        var mapping: [String: String] = [:]
        for item in keys.cases {
            if case .string(let text)? = item.rawValue { mapping[item.name] = text } else { mapping[item.name] = item.name }
        }
        return mapping
    }

    /// A named type's body under `types`: a struct's fields or an enum's cases.
    mutating func body(of type: SwiftTypeIndex.TypeInfo, pending: inout [String]) -> JSONValue {
        guard type.kind == .enumeration else { return .object(fields(of: type, pending: &pending)) }
        let integers = ["Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"]
        let rawType = type.inherited.first.map { $0.replacingOccurrences(of: "Swift.", with: "") }
        if let rawType, rawType == "String" || integers.contains(rawType) {
            if type.customDecoder { warn(type, "\(type.name) decodes itself (init(from:)); its raw values are checked as declared") }
            var next: Int64 = 0
            var values: [JSONValue] = []
            for item in type.cases {
                switch item.rawValue {
                case .string(let text)?: values.append(.string(text))
                case .integer(let number)?:
                    values.append(.number(String(number)))
                    next = number + 1
                case nil:
                    if rawType == "String" {
                        values.append(.string(item.name))
                    } else {
                        values.append(.number(String(next)))
                        next += 1
                    }
                }
            }
            return .object([("enum", .string(rawType)), ("cases", .array(values))])
        }
        if let rawType, ["Double", "Float", "Character"].contains(rawType) {
            warn(type, "\(type.name) has \(rawType) raw values, which PushMock does not check")
        }
        let scope = type.name.split(separator: ".").map(String.init)
        var cases: [(key: String, value: JSONValue)] = []
        for item in type.cases {
            var values: [(key: String, value: JSONValue)] = []
            for (position, value) in (item.values ?? []).enumerated() {
                let label = value.label ?? "_\(position)"
                values.append(
                    (
                        label,
                        .string(fieldType(value.type, scope: scope, owner: type, line: type.line, field: "\(item.name).\(label)", pending: &pending))
                    ))
            }
            cases.append((item.name, .object(values)))
        }
        if cases.isEmpty {
            warn(type, "\(type.name) has no cases PushMock can read; it is not checked")
            return .object([])
        }
        return .object([("enum", .string("associated")), ("cases", .object(cases))])
    }

    /// The declaration's text for a Swift type (`String`, `[Stage]?`, `DeliveryAttributes.Stage`);
    /// `Any` for one that cannot be read, with a warning.
    mutating func fieldType(
        _ syntax: SwiftType, scope: [String], owner: SwiftTypeIndex.TypeInfo, line: Int, field: String, pending: inout [String]
    ) -> String {
        func unknown(_ why: String) -> String {
            warn(owner, line: line, "\(owner.name).\(field): \(why); it is not checked")
            return "Any"
        }
        steps += 1
        guard steps <= SwiftSourceLimits.maximumSteps else { return "Any" }
        var name: String
        var arguments: [SwiftType]
        switch syntax.shape {
        case .optional(let wrapped), .unwrapped(let wrapped):
            return optionalText(fieldType(wrapped, scope: scope, owner: owner, line: line, field: field, pending: &pending))
        case .array(let element):
            return "[" + fieldType(element, scope: scope, owner: owner, line: line, field: field, pending: &pending) + "]"
        case .dictionary(let keyType, let valueType):
            let key = fieldType(keyType, scope: scope, owner: owner, line: line, field: field, pending: &pending)
            let value = fieldType(valueType, scope: scope, owner: owner, line: line, field: field, pending: &pending)
            guard key == "String" || key.hasPrefix("Int") || key.hasPrefix("UInt") else {
                return unknown("a dictionary keyed by \(key) is not a JSON object")
            }
            return "[\(key): \(value)]"
        case .attributed(let base), .parenthesized(let base):
            return fieldType(base, scope: scope, owner: owner, line: line, field: field, pending: &pending)
        case .named(let text, let typeArguments):
            (name, arguments) = (text, typeArguments)
        case .member(let base, let member, let typeArguments):
            (name, arguments) = (base + "." + member, typeArguments)
        case .other:
            return unknown("\(syntax.text) is not a type PushMock reads")
        }
        for module in ["Swift.", "Foundation.", "CoreGraphics.", "CoreFoundation."] where name.hasPrefix(module) {
            name = String(name.dropFirst(module.count))
        }
        switch (name, arguments.count) {
        case ("Optional", 1):
            return optionalText(fieldType(arguments[0], scope: scope, owner: owner, line: line, field: field, pending: &pending))
        case ("Array", 1), ("Set", 1), ("ContiguousArray", 1):
            return "[" + fieldType(arguments[0], scope: scope, owner: owner, line: line, field: field, pending: &pending) + "]"
        case ("Dictionary", 2):
            let key = fieldType(arguments[0], scope: scope, owner: owner, line: line, field: field, pending: &pending)
            let value = fieldType(arguments[1], scope: scope, owner: owner, line: line, field: field, pending: &pending)
            return "[\(key): \(value)]"
        case ("String", 0), ("Bool", 0), ("Double", 0), ("Float", 0), ("Date", 0), ("URL", 0), ("UUID", 0), ("Decimal", 0),
            ("Int", 0), ("Int8", 0), ("Int16", 0), ("Int32", 0), ("Int64", 0), ("UInt", 0), ("UInt8", 0), ("UInt16", 0), ("UInt32", 0), ("UInt64", 0):
            return name
        case ("CGFloat", 0), ("TimeInterval", 0):
            return "Double"
        case ("Character", 0), ("Substring", 0):
            return "String"
        case (_, 0):
            break
        default:
            return unknown("\(syntax.text) is a generic type")
        }
        guard let qualified = index.resolve(name, from: scope) else {
            return unknown("the type \(name) is not declared in the files read")
        }
        guard let type = index.types[qualified] else { return unknown("the type \(name) is not declared in the files read") }
        if type.kind == .alias {
            guard let target = type.aliasTarget else { return unknown("\(name) is an alias PushMock cannot follow") }
            // An alias reads the same wherever it is used: read once (aliases of aliases would
            // otherwise be read again at every use, twice as often at each level).
            if let text = aliasText[qualified] { return text }
            guard following.insert(qualified).inserted else {
                return unknown("\(qualified) is an alias that stands for itself (a cycle of typealiases), which Swift refuses")
            }
            let text = fieldType(
                target, scope: Array(qualified.split(separator: ".").dropLast().map(String.init)), owner: owner, line: line, field: field,
                pending: &pending)
            following.remove(qualified)
            aliasText[qualified] = text
            return text
        }
        if type.generic { return unknown("\(qualified) is a generic type") }
        pending.append(qualified)
        return qualified
    }

    func optionalText(_ wrapped: String) -> String {
        wrapped.hasSuffix("?") ? wrapped : wrapped + "?"
    }
}
