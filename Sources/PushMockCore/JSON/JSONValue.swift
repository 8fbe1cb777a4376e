import PushMockBytes

/// A parsed JSON value, for the control plane (configuration files, API bodies): built on the
/// strict ``JSONScanner``, so booleans, integers and member order are exact. Not for the hot path.
public enum JSONValue: Sendable, Hashable {
    case object([(key: String, value: JSONValue)])
    case array([JSONValue])
    case string(String)
    /// A number with its text, so integers keep all their digits.
    case number(String)
    case bool(Bool)
    case null

    /// Parses `bytes` as one JSON text, or returns `nil` if it is not valid RFC 8259 JSON.
    public static func parse(_ bytes: [UInt8]) -> JSONValue? {
        bytes.withByteView { buffer in
            let scanner = JSONScanner(buffer)
            guard let root = scanner.root else { return nil }
            return build(root, scanner)
        }
    }

    private static func build(_ value: JSONScanner.Value, _ scanner: JSONScanner) -> JSONValue {
        switch value.kind {
        case .object:
            var members: [(key: String, value: JSONValue)] = []
            let keys = scanner.keys(of: value)
            var index = 0
            scanner.forEachMember(of: value) { _, member in
                members.append((keys[index], build(member, scanner)))
                index += 1
            }
            return .object(members)
        case .array:
            return .array(scanner.elements(of: value).map { build($0, scanner) })
        case .string:
            return .string(scanner.string(at: value) ?? "")
        case .number:
            return .number(scanner.text(of: value))
        case .bool:
            return .bool(scanner.bool(at: value) ?? false)
        case .null:
            return .null
        }
    }

    /// An integer number (digits only, fits Int64); nil for anything else.
    public var int64: Int64? {
        guard case .number(let text) = self else { return nil }
        return Int64(text)
    }

    /// The member `key` of an object (the last one when repeated).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.array(let a), .array(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .object(let members):
            hasher.combine(0)
            for member in members {
                hasher.combine(member.key)
                hasher.combine(member.value)
            }
        case .array(let values):
            hasher.combine(1)
            hasher.combine(values)
        case .string(let text):
            hasher.combine(2)
            hasher.combine(text)
        case .number(let text):
            hasher.combine(3)
            hasher.combine(text)
        case .bool(let value):
            hasher.combine(4)
            hasher.combine(value)
        case .null: hasher.combine(5)
        }
    }
}

extension JSONValue {
    /// Roughly the memory this value takes: its text and the storage around each string, array
    /// and object (what byte limits on kept JSON count).
    public var estimatedBytes: Int {
        switch self {
        case .object(let members): members.reduce(48) { $0 + 48 + $1.key.utf8.count + $1.value.estimatedBytes }
        case .array(let elements): elements.reduce(48) { $0 + 8 + $1.estimatedBytes }
        case .string(let text): 32 + text.utf8.count
        case .number(let text): 32 + text.utf8.count
        case .bool, .null: 16
        }
    }
}
