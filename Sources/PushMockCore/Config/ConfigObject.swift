/// What is wrong with a value of the configuration file or of a control-plane request body: the
/// file (or `request body`), the path (`apns.keys[1].keyId`) and the reason.
public struct ConfigError: Error, Hashable, CustomStringConvertible {
    public let file: String
    public let path: String
    public let message: String

    public init(file: String, path: String, message: String) {
        self.file = file
        self.path = path
        self.message = message
    }

    public var description: String { "\(file): \(path.isEmpty ? "(top level)" : path): \(message)" }
}

/// A JSON object of the configuration file (or of a body sent to the inspection API in the file's
/// formats), read strictly: wrong types and unknown keys are ``ConfigError``s that name the file
/// and the path (`apns.keys[1].keyId`).
public struct ConfigObject {
    public let file: String
    public let path: String
    private let members: [(key: String, value: JSONValue)]
    private var asked: Set<String> = []
    /// Keys whose `null` was asked for with ``isNull(_:)`` (it means "off" there).
    private var nullable: Set<String> = []

    public init(file: String, path: String, value: JSONValue) throws(ConfigError) {
        guard case .object(let members) = value else {
            throw Self.error(file, path, "expected an object")
        }
        self.file = file
        self.path = path
        self.members = members
    }

    public static func error(_ file: String, _ path: String, _ message: String) -> ConfigError {
        ConfigError(file: file, path: path, message: message)
    }

    public func error(_ key: String, _ message: String) -> ConfigError {
        Self.error(file, child(key), message)
    }

    private func child(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// The value of `key`; `null` is an error unless ``isNull(_:)`` gave it a meaning (leave a key
    /// out to mean "not set").
    private mutating func raw(_ key: String) throws(ConfigError) -> JSONValue? {
        asked.insert(key)
        guard let value = members.last(where: { $0.key == key })?.value else { return nil }
        if value == .null {
            guard nullable.contains(key) else { throw error(key, "null is not allowed here; leave the key out instead") }
            return nil
        }
        return value
    }

    /// Whether the key is present with `null` (to turn something off).
    public mutating func isNull(_ key: String) -> Bool {
        asked.insert(key)
        nullable.insert(key)
        return members.last(where: { $0.key == key })?.value == .null
    }

    public mutating func string(_ key: String) throws(ConfigError) -> String? {
        guard let value = try raw(key) else { return nil }
        guard case .string(let text) = value else { throw error(key, "expected a string") }
        return text
    }

    public mutating func int(_ key: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(ConfigError) -> Int? {
        guard let value = try raw(key) else { return nil }
        guard case .number(let text) = value, let integer = Int(text) else { throw error(key, "expected an integer") }
        guard range.contains(integer) else { throw error(key, "must be between \(range.lowerBound) and \(range.upperBound), got \(integer)") }
        return integer
    }

    public mutating func uint64(_ key: String) throws(ConfigError) -> UInt64? {
        guard let value = try raw(key) else { return nil }
        guard case .number(let text) = value, let integer = UInt64(text) else { throw error(key, "expected a non-negative integer") }
        return integer
    }

    public mutating func double(_ key: String) throws(ConfigError) -> Double? {
        guard let value = try raw(key) else { return nil }
        guard case .number(let text) = value, let number = Double(text) else { throw error(key, "expected a number") }
        return number
    }

    /// A finite number in `range`, else a clear error (never a trapping conversion later).
    public mutating func double(_ key: String, in range: ClosedRange<Double>) throws(ConfigError) -> Double? {
        guard let number = try double(key) else { return nil }
        guard number.isFinite, range.contains(number) else {
            throw error(key, "must be a number from \(range.lowerBound) to \(range.upperBound), got \(number)")
        }
        return number
    }

    public mutating func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let value = try raw(key) else { return nil }
        guard case .bool(let flag) = value else { throw error(key, "expected true or false") }
        return flag
    }

    /// The raw JSON of `key` (for values with a grammar of their own, such as activity types).
    public mutating func json(_ key: String) throws(ConfigError) -> JSONValue? {
        try raw(key)
    }

    public mutating func object(_ key: String) throws(ConfigError) -> ConfigObject? {
        guard let value = try raw(key) else { return nil }
        return try ConfigObject(file: file, path: child(key), value: value)
    }

    public mutating func objects(_ key: String) throws(ConfigError) -> [ConfigObject]? {
        guard let value = try raw(key) else { return nil }
        guard case .array(let values) = value else { throw error(key, "expected an array") }
        let path = child(key)
        return try values.enumerated().map { (item) throws(ConfigError) in
            try ConfigObject(file: file, path: "\(path)[\(item.offset)]", value: item.element)
        }
    }

    public mutating func strings(_ key: String) throws(ConfigError) -> [String]? {
        guard let value = try raw(key) else { return nil }
        guard case .array(let values) = value else { throw error(key, "expected an array of strings") }
        let error = error(key, "expected an array of strings")
        return try values.map { (value) throws(ConfigError) in
            guard case .string(let text) = value else { throw error }
            return text
        }
    }

    /// Members as objects keyed by name (`devices`).
    public mutating func objectMap(_ key: String) throws(ConfigError) -> [(String, ConfigObject)]? {
        guard let value = try raw(key) else { return nil }
        guard case .object(let map) = value else { throw error(key, "expected an object") }
        let path = child(key)
        return try map.map { (member) throws(ConfigError) in
            (member.key, try ConfigObject(file: file, path: "\(path).\(member.key)", value: member.value))
        }
    }

    /// The members' keys in order, each once (for objects whose keys are data, such as headers).
    public var keys: [String] {
        var seen = Set<String>()
        return members.map(\.key).filter { seen.insert($0).inserted }
    }

    /// Refuses keys that were never asked for: a typo must not be ignored silently.
    public func finish() throws(ConfigError) {
        let unknown = Set(members.map(\.key)).subtracting(asked)
        if let first = unknown.sorted().first {
            throw error(first, "unknown key (known here: \(asked.sorted().joined(separator: ", ")))")
        }
    }
}
