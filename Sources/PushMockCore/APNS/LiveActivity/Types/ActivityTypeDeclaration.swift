/// An `ActivityAttributes` type declared by its fields, in a small JSON form that reads like Swift
/// (issue 12):
///
/// ```json
/// {"attributes": {"orderID": "String"},
///  "contentState": {"stage": "Stage", "etaMinutes": {"type": "Int", "key": "eta_minutes"}, "eta": "Date", "driver": "Driver?"},
///  "types": {"Driver": {"name": "String", "stops": "[Stop]"}, "Stop": {"id": "UUID"},
///            "Stage": {"enum": "String", "cases": ["preparing", "onTheWay"]}}}
/// ```
public struct ActivityTypeDeclaration: Sendable, Hashable {
    /// A Swift type a field may have.
    public indirect enum FieldType: Sendable, Hashable, CustomStringConvertible {
        case string, bool, double, float, date, url, uuid
        /// `Decimal`: a JSON number.
        case decimal
        /// `Any`: a value of a type PushMock could not read (present unless optional, not checked).
        case any
        /// `Int`, `Int8`…`UInt64`: signedness and width.
        case integer(name: String, signed: Bool, bits: Int)
        case optional(FieldType)
        case array(FieldType)
        /// `[String: V]` or `[Int: V]` (JSONDecoder reads both from a JSON object).
        case dictionary(key: FieldType, value: FieldType)
        /// A nested struct or enum under `types`.
        case named(String)

        public var description: String {
            switch self {
            case .string: "String"
            case .bool: "Bool"
            case .double: "Double"
            case .float: "Float"
            case .date: "Date"
            case .url: "URL"
            case .uuid: "UUID"
            case .decimal: "Decimal"
            case .any: "Any"
            case .integer(let name, _, _): name
            case .optional(let wrapped): "\(wrapped)?"
            case .array(let element): "[\(element)]"
            case .dictionary(let key, let value): "[\(key): \(value)]"
            case .named(let name): name
            }
        }
    }

    /// One stored property: its Swift name, the JSON key (`CodingKeys`), its type.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var key: String
        public var type: FieldType
    }

    /// A type under `types`.
    public enum NamedType: Sendable, Hashable {
        case structure([Field])
        /// An enum with raw values (`String` or an integer type) and its cases' raw values.
        case enumeration(raw: FieldType, cases: [JSONValue])
        /// An enum without raw values, coded as Swift synthesizes it (since 5.5): an object with
        /// one key, the case's name, whose value is an object of its associated values (labeled by
        /// their labels, unlabeled ones `_0`, `_1`… by position; `{}` for a case without any).
        case associated(cases: [String: [Field]])
    }

    public var attributes: [Field]
    public var contentState: [Field]
    public var types: [String: NamedType]
    /// The declaration as it was given (what `GET /api/v1/activity-types` shows).
    public var source: JSONValue
    /// Where it was read from, for a type read from Swift source (`file:line`) or a preset.
    public var origin: String?
    /// The SDK whose type this is, for a preset (``ActivityTypePresets``).
    public var preset: String?

    /// A declaration that cannot be used, with the JSON path of the problem.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { path.isEmpty ? message : "\(path): \(message)" }
    }

    /// Reads a declaration (`{"attributes": {…}, "contentState": {…}, "types": {…}}`).
    public init(json: JSONValue) throws(Problem) {
        guard case .object(let members) = json else {
            throw Problem(path: "", message: "a declaration is an object with attributes, contentState and types")
        }
        for (key, _) in members where !["attributes", "contentState", "types"].contains(key) {
            throw Problem(path: key, message: "unknown member; a declaration has attributes, contentState and types")
        }
        var types: [String: NamedType] = [:]
        if let declared = json["types"] {
            guard case .object(let named) = declared else { throw Problem(path: "types", message: "expected an object of type names") }
            for (name, body) in named {
                guard Self.isTypeName(name) else {
                    throw Problem(path: "types.\(name)", message: "a type name is a Swift identifier starting with a capital letter")
                }
                types[name] = try Self.namedType(body, path: "types.\(name)")
            }
        }
        self.types = types
        self.attributes = try Self.fields(json["attributes"] ?? .object([]), path: "attributes")
        self.contentState = try Self.fields(json["contentState"] ?? .object([]), path: "contentState")
        self.source = json
        // Every name used is declared, and no struct contains itself without an optional or collection.
        for field in attributes { try check(field.type, path: "attributes.\(field.name)") }
        for field in contentState { try check(field.type, path: "contentState.\(field.name)") }
        for (name, type) in types {
            if case .structure(let fields) = type {
                for field in fields { try check(field.type, path: "types.\(name).\(field.name)") }
            }
            if case .associated(let cases) = type {
                for (label, fields) in cases {
                    for field in fields { try check(field.type, path: "types.\(name).cases.\(label).\(field.name)") }
                }
            }
        }
    }

    private func check(_ type: FieldType, path: String) throws(Problem) {
        switch type {
        case .optional(let wrapped), .array(let wrapped): try check(wrapped, path: path)
        case .dictionary(_, let value): try check(value, path: path)
        case .named(let name):
            guard types[name] != nil else { throw Problem(path: path, message: "\(name) is not a built-in type and not declared under types") }
        default: break
        }
    }

    /// Whether `name` is a Swift type name: an identifier starting with a capital letter, or a
    /// nested one (`DeliveryAttributes.ContentState`, as read from Swift source).
    public static func isTypeName(_ name: String) -> Bool {
        name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            guard let first = part.unicodeScalars.first, ("A"..."Z").contains(first) else { return false }
            return part.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
        }
    }

    static func fields(_ json: JSONValue, path: String) throws(Problem) -> [Field] {
        guard case .object(let members) = json else {
            throw Problem(path: path, message: "expected an object of fields, such as {\"stage\": \"String\"}")
        }
        var fields: [Field] = []
        for (name, spec) in members {
            let fieldPath = "\(path).\(name)"
            switch spec {
            case .string(let text):
                fields.append(Field(name: name, key: name, type: try parse(text, path: fieldPath)))
            case .object:
                guard case .string(let text)? = spec["type"] else {
                    throw Problem(path: fieldPath, message: "a field object needs \"type\" (and may rename with \"key\")")
                }
                var key = name
                if let renamed = spec["key"] {
                    guard case .string(let text) = renamed, !text.isEmpty else {
                        throw Problem(path: "\(fieldPath).key", message: "expected the JSON key as a string")
                    }
                    key = text
                }
                fields.append(Field(name: name, key: key, type: try parse(text, path: fieldPath)))
            default:
                throw Problem(path: fieldPath, message: "expected a Swift type such as \"Int\" or {\"type\": \"Int\", \"key\": \"eta_minutes\"}")
            }
        }
        return fields
    }

    static func namedType(_ json: JSONValue, path: String) throws(Problem) -> NamedType {
        if case .string("associated")? = json["enum"] {
            guard case .object(let cases)? = json["cases"], !cases.isEmpty else {
                throw Problem(
                    path: "\(path).cases",
                    message: "expected an object of cases and their associated values, such as {\"moved\": {\"to\": \"Int\"}, \"idle\": {}}")
            }
            var read: [String: [Field]] = [:]
            for (name, values) in cases {
                read[name] = try fields(values, path: "\(path).cases.\(name)")
            }
            return .associated(cases: read)
        }
        if case .string(let raw)? = json["enum"] {
            let rawType = try parse(raw, path: "\(path).enum")
            switch rawType {
            case .string, .integer: break
            default: throw Problem(path: "\(path).enum", message: "raw values are String or an integer type, got \(raw)")
            }
            guard case .array(let cases)? = json["cases"], !cases.isEmpty else {
                throw Problem(path: "\(path).cases", message: "expected a non-empty array of raw values")
            }
            for (index, value) in cases.enumerated() {
                switch (rawType, value) {
                case (.string, .string), (.integer, .number): continue
                default: throw Problem(path: "\(path).cases[\(index)]", message: "expected a \(rawType) raw value")
                }
            }
            return .enumeration(raw: rawType, cases: cases)
        }
        return .structure(try fields(json, path: path))
    }

    /// The longest type text read (`[String: [Stop]]?` is 17): longer ones are refused, not parsed.
    public static let maxTypeLength = 256
    /// The deepest nesting of `[…]` and `?` read.
    public static let maxTypeDepth = 16

    /// Parses `String`, `Int?`, `[Stop]`, `[String: Int]`, `Driver`… in one pass over the text,
    /// within ``maxTypeLength`` and ``maxTypeDepth`` (a body of nested brackets costs as much as
    /// its length, never its square).
    public static func parse(_ text: String, path: String) throws(Problem) -> FieldType {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxTypeLength else {
            throw Problem(path: path, message: "a type is at most \(maxTypeLength) characters, got \(bytes.count)")
        }
        var parser = TypeParser(bytes: bytes, text: text, path: path)
        let type = try parser.type(depth: 0)
        parser.skipSpaces()
        guard parser.index == bytes.count else { throw parser.unreadable() }
        return type
    }

    private struct TypeParser {
        let bytes: [UInt8]
        let text: String
        let path: String
        var index = 0

        mutating func skipSpaces() {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
        }

        func unreadable() -> Problem {
            Problem(
                path: path,
                message:
                    "\(text) is not a type PushMock reads (String, Int, Double, Decimal, Bool, Date, URL, UUID, Any, T?, [T], [K: V] or a name under types)"
            )
        }

        mutating func type(depth: Int) throws(Problem) -> FieldType {
            guard depth <= ActivityTypeDeclaration.maxTypeDepth else {
                throw Problem(path: path, message: "a type nests at most \(ActivityTypeDeclaration.maxTypeDepth) brackets and optionals deep")
            }
            skipSpaces()
            var result: FieldType
            if index < bytes.count, bytes[index] == UInt8(ascii: "[") {
                index += 1
                let first = try type(depth: depth + 1)
                skipSpaces()
                if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
                    index += 1
                    switch first {
                    case .string, .integer: break
                    default:
                        throw Problem(path: path, message: "dictionary keys are String or Int (JSONDecoder reads those from an object), got \(first)")
                    }
                    let value = try type(depth: depth + 1)
                    result = .dictionary(key: first, value: value)
                    skipSpaces()
                } else {
                    result = .array(first)
                }
                guard index < bytes.count, bytes[index] == UInt8(ascii: "]") else { throw unreadable() }
                index += 1
            } else {
                let start = index
                while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
                guard index > start else { throw unreadable() }
                result = try named(String(decoding: bytes[start..<index], as: UTF8.self))
            }
            var optionals = 0
            while true {
                skipSpaces()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "?") else { break }
                optionals += 1
                guard depth + optionals <= ActivityTypeDeclaration.maxTypeDepth else {
                    throw Problem(path: path, message: "a type nests at most \(ActivityTypeDeclaration.maxTypeDepth) brackets and optionals deep")
                }
                index += 1
                result = .optional(result)
            }
            return result
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }

        func named(_ name: String) throws(Problem) -> FieldType {
            switch name {
            case "String": return .string
            case "Bool": return .bool
            case "Double", "CGFloat": return .double
            case "Decimal": return .decimal
            case "Any": return .any
            case "Float": return .float
            case "Date": return .date
            case "URL": return .url
            case "UUID": return .uuid
            case "Int", "Int64": return .integer(name: name, signed: true, bits: 64)
            case "Int32": return .integer(name: name, signed: true, bits: 32)
            case "Int16": return .integer(name: name, signed: true, bits: 16)
            case "Int8": return .integer(name: name, signed: true, bits: 8)
            case "UInt", "UInt64": return .integer(name: name, signed: false, bits: 64)
            case "UInt32": return .integer(name: name, signed: false, bits: 32)
            case "UInt16": return .integer(name: name, signed: false, bits: 16)
            case "UInt8": return .integer(name: name, signed: false, bits: 8)
            default:
                guard ActivityTypeDeclaration.isTypeName(name) else { throw unreadable() }
                return .named(name)
            }
        }
    }
}
