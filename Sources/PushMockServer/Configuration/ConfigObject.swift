import PushMockCore

/// A JSON object of the configuration file, read strictly: wrong types and unknown keys are errors
/// that name the file and the path (`apns.keys[1].keyId`).
struct ConfigObject {
    let file: String
    let path: String
    private let members: [(key: String, value: JSONValue)]
    private var asked: Set<String> = []
    /// Keys whose `null` was asked for with ``isNull(_:)`` (it means "off" there).
    private var nullable: Set<String> = []

    init(file: String, path: String, value: JSONValue) throws {
        guard case .object(let members) = value else {
            throw Self.error(file, path, "expected an object")
        }
        self.file = file
        self.path = path
        self.members = members
    }

    static func error(_ file: String, _ path: String, _ message: String) -> PushMockError {
        PushMockError(code: .invalidConfiguration, message: "\(file): \(path.isEmpty ? "(top level)" : path): \(message)")
    }

    func error(_ key: String, _ message: String) -> PushMockError {
        Self.error(file, child(key), message)
    }

    private func child(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// The value of `key`; `null` is an error unless ``isNull(_:)`` gave it a meaning (leave a key
    /// out to mean "not set").
    private mutating func raw(_ key: String) throws -> JSONValue? {
        asked.insert(key)
        guard let value = members.last(where: { $0.key == key })?.value else { return nil }
        if value == .null {
            guard nullable.contains(key) else { throw error(key, "null is not allowed here; leave the key out instead") }
            return nil
        }
        return value
    }

    /// Whether the key is present with `null` (to turn something off).
    mutating func isNull(_ key: String) -> Bool {
        asked.insert(key)
        nullable.insert(key)
        return members.last(where: { $0.key == key })?.value == .null
    }

    mutating func string(_ key: String) throws -> String? {
        guard let value = try raw(key) else { return nil }
        guard case .string(let text) = value else { throw error(key, "expected a string") }
        return text
    }

    mutating func int(_ key: String, in range: ClosedRange<Int> = Int.min...Int.max) throws -> Int? {
        guard let value = try raw(key) else { return nil }
        guard case .number(let text) = value, let integer = Int(text) else { throw error(key, "expected an integer") }
        guard range.contains(integer) else { throw error(key, "must be between \(range.lowerBound) and \(range.upperBound), got \(integer)") }
        return integer
    }

    mutating func uint64(_ key: String) throws -> UInt64? {
        guard let value = try raw(key) else { return nil }
        guard case .number(let text) = value, let integer = UInt64(text) else { throw error(key, "expected a non-negative integer") }
        return integer
    }

    mutating func double(_ key: String) throws -> Double? {
        guard let value = try raw(key) else { return nil }
        guard case .number(let text) = value, let number = Double(text) else { throw error(key, "expected a number") }
        return number
    }

    /// A finite number in `range`, else a clear error (never a trapping conversion later).
    mutating func double(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let number = try double(key) else { return nil }
        guard number.isFinite, range.contains(number) else { throw error(key, "must be a number from \(range.lowerBound) to \(range.upperBound), got \(number)") }
        return number
    }

    mutating func bool(_ key: String) throws -> Bool? {
        guard let value = try raw(key) else { return nil }
        guard case .bool(let flag) = value else { throw error(key, "expected true or false") }
        return flag
    }

    /// The raw JSON of `key` (for values with a grammar of their own, such as activity types).
    mutating func json(_ key: String) throws -> JSONValue? {
        try raw(key)
    }

    mutating func object(_ key: String) throws -> ConfigObject? {
        guard let value = try raw(key) else { return nil }
        return try ConfigObject(file: file, path: child(key), value: value)
    }

    mutating func objects(_ key: String) throws -> [ConfigObject]? {
        guard let value = try raw(key) else { return nil }
        guard case .array(let values) = value else { throw error(key, "expected an array") }
        return try values.enumerated().map { try ConfigObject(file: file, path: "\(child(key))[\($0.offset)]", value: $0.element) }
    }

    mutating func strings(_ key: String) throws -> [String]? {
        guard let value = try raw(key) else { return nil }
        guard case .array(let values) = value else { throw error(key, "expected an array of strings") }
        return try values.map {
            guard case .string(let text) = $0 else { throw error(key, "expected an array of strings") }
            return text
        }
    }

    /// Members as objects keyed by name (`devices`).
    mutating func objectMap(_ key: String) throws -> [(String, ConfigObject)]? {
        guard let value = try raw(key) else { return nil }
        guard case .object(let map) = value else { throw error(key, "expected an object") }
        return try map.map { ($0.key, try ConfigObject(file: file, path: "\(child(key)).\($0.key)", value: $0.value)) }
    }

    /// Refuses keys that were never asked for: a typo must not be ignored silently.
    func finish() throws {
        let unknown = Set(members.map(\.key)).subtracting(asked)
        if let first = unknown.sorted().first {
            throw error(first, "unknown key (known here: \(asked.sorted().joined(separator: ", ")))")
        }
    }
}
