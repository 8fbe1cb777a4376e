import Foundation

/// Decodes a JSON value against an ``ActivityTypeDeclaration`` the way the device's `JSONDecoder`
/// (default strategies) does: a missing non-optional key fails, `null` only fits optionals, integers
/// must fit their type, a `Date` is a number of seconds since 2001-01-01, `URL` and `UUID` are strings
/// they parse from, enum raw values must be cases, unknown keys are ignored.
public enum ActivityTypeCheck {
    /// Why a value does not decode, at a JSON path such as `content-state.driver.stops[1].id`.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }

        /// A failure at `path`.
        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }
    }

    /// What a value that decodes reads as on the device.
    public struct Reading: Sendable, Hashable {
        /// Each `Date` field: its path and seconds since 2001-01-01.
        public var dates: [DateReading] = []
        /// The value with every `Date` shown as the instant the device reads (RFC 3339).
        public var decoded: JSONValue = .null
    }

    /// A `Date` field as the device reads it.
    public struct DateReading: Sendable, Hashable {
        public var path: String
        public var secondsSinceReferenceDate: Double
    }

    /// Seconds from 1970-01-01 to 2001-01-01, the reference date of `JSONDecoder`'s default Date strategy.
    public static let referenceDateOffset: Double = 978_307_200

    /// Decodes `value` as a struct with `fields`, at `path`.
    public static func decode(
        _ value: JSONValue, fields: [ActivityTypeDeclaration.Field], in declaration: ActivityTypeDeclaration, path: String
    ) -> Result<Reading, Failure> {
        var reading = Reading()
        do {
            reading.decoded = try structure(value, fields: fields, typeName: nil, declaration: declaration, path: path, reading: &reading)
            return .success(reading)
        } catch {
            return .failure(error)
        }
    }

    /// The diagnostic for a decoded `Date`: the instant the device shows, and a warning when it is
    /// more than 20 years after `now` (Unix seconds sent where ActivityKit wants seconds since 2001).
    public static func diagnostic(_ date: DateReading, now: PushInstant) -> String {
        let unix = date.secondsSinceReferenceDate + referenceDateOffset
        let text = "\(date.path) reads as \(rfc3339(unix))"
        if unix > Double(now.secondsSinceEpoch) + 20 * 365.25 * 86400 {
            return text + "; ActivityKit decodes Date as seconds since 2001-01-01 (Unix time − 978307200)"
        }
        return text
    }

    static func rfc3339(_ unixSeconds: Double) -> String {
        guard unixSeconds.isFinite, abs(unixSeconds) < 253_402_300_800 else { return "a time out of range (\(unixSeconds) s since 1970)" }
        let date = Date(timeIntervalSince1970: unixSeconds)
        return date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: unixSeconds.rounded() != unixSeconds).timeZone(separator: .omitted))
    }

    private static func structure(
        _ value: JSONValue, fields: [ActivityTypeDeclaration.Field], typeName: String?, declaration: ActivityTypeDeclaration, path: String,
        reading: inout Reading
    ) throws(Failure) -> JSONValue {
        guard case .object = value else {
            throw Failure(path: path, message: "expected \(typeName.map { "\($0) (an object)" } ?? "an object"), found \(describe(value))")
        }
        var decoded: [(key: String, value: JSONValue)] = []
        for field in fields {
            let fieldPath = "\(path).\(field.key)"
            guard let member = value[field.key] else {
                if case .optional = field.type { continue }
                throw Failure(path: fieldPath, message: "missing key \"\(field.key)\" (\(field.name): \(field.type) is not optional)")
            }
            decoded.append((field.key, try self.value(member, type: field.type, declaration: declaration, path: fieldPath, reading: &reading)))
        }
        return .object(decoded)
    }

    private static func value(
        _ value: JSONValue, type: ActivityTypeDeclaration.FieldType, declaration: ActivityTypeDeclaration, path: String, reading: inout Reading
    ) throws(Failure) -> JSONValue {
        func mismatch() -> Failure { Failure(path: path, message: "expected \(type), found \(describe(value))") }
        if case .optional(let wrapped) = type {
            if value == .null { return .null }
            return try self.value(value, type: wrapped, declaration: declaration, path: path, reading: &reading)
        }
        if value == .null { throw Failure(path: path, message: "expected \(type), found null (only an optional takes null)") }
        switch type {
        case .optional:
            return value
        case .string:
            guard case .string = value else { throw mismatch() }
            return value
        case .bool:
            guard case .bool = value else { throw mismatch() }
            return value
        case .any:
            return value
        case .decimal:
            guard case .number = value else { throw mismatch() }
            return value
        case .double, .float:
            guard case .number(let text) = value, let number = Double(text) else { throw mismatch() }
            if type == .float, number.isFinite, abs(number) > Double(Float.greatestFiniteMagnitude) {
                throw Failure(path: path, message: "the number \(text) does not fit in Float")
            }
            return value
        case .integer(let name, let signed, let bits):
            guard case .number(let text) = value else { throw mismatch() }
            try integer(text, name: name, signed: signed, bits: bits, path: path)
            return value
        case .date:
            guard case .number(let text) = value, let seconds = Double(text), seconds.isFinite else {
                throw Failure(
                    path: path, message: "expected Date (a number of seconds since 2001-01-01, JSONDecoder's default), found \(describe(value))")
            }
            reading.dates.append(DateReading(path: path, secondsSinceReferenceDate: seconds))
            return .string(rfc3339(seconds + referenceDateOffset))
        case .url:
            guard case .string(let text) = value else { throw mismatch() }
            guard URL(string: text) != nil, !text.isEmpty else { throw Failure(path: path, message: "\"\(text)\" is not a URL") }
            return value
        case .uuid:
            guard case .string(let text) = value else { throw mismatch() }
            guard UUID(uuidString: text) != nil else { throw Failure(path: path, message: "\"\(text)\" is not a UUID (8-4-4-4-12 hex digits)") }
            return value
        case .array(let element):
            guard case .array(let elements) = value else { throw mismatch() }
            var decoded: [JSONValue] = []
            for (index, item) in elements.enumerated() {
                decoded.append(try self.value(item, type: element, declaration: declaration, path: "\(path)[\(index)]", reading: &reading))
            }
            return .array(decoded)
        case .dictionary(let key, let valueType):
            guard case .object(let members) = value else { throw mismatch() }
            var decoded: [(key: String, value: JSONValue)] = []
            for (name, member) in members {
                if case .integer(let keyName, _, _) = key, Int64(name) == nil {
                    throw Failure(path: path, message: "the key \"\(name)\" is not an \(keyName)")
                }
                decoded.append((name, try self.value(member, type: valueType, declaration: declaration, path: "\(path).\(name)", reading: &reading)))
            }
            return .object(decoded)
        case .named(let name):
            return try named(value, name: name, declaration: declaration, path: path, reading: &reading)
        }
    }

    /// A number that fits an integer of `bits` bits, as JSONDecoder reads one: exactly, or with a
    /// fraction or exponent whose value is a whole number (5.0).
    private static func integer(_ text: String, name: String, signed: Bool, bits: Int, path: String) throws(Failure) {
        let signedValue: Int64? = Int64(text) ?? Double(text).flatMap { $0.rounded() == $0 ? Int64(exactly: $0) : nil }
        let unsignedValue: UInt64? = UInt64(text) ?? Double(text).flatMap { $0.rounded() == $0 ? UInt64(exactly: $0) : nil }
        guard signedValue != nil || unsignedValue != nil else {
            if let number = Double(text), number.isFinite, number.rounded() != number {
                throw Failure(path: path, message: "expected \(name), found number \(text) (not an integer)")
            }
            throw Failure(path: path, message: "the number \(text) does not fit in \(name)")
        }
        let fits: Bool
        if signed {
            let limit = Int64.max >> (64 - bits)
            fits = signedValue.map { $0 >= -limit - 1 && $0 <= limit } ?? false
        } else {
            let limit = UInt64.max >> (64 - bits)
            fits = unsignedValue.map { $0 <= limit } ?? false
        }
        guard fits else { throw Failure(path: path, message: "the number \(text) does not fit in \(name)") }
    }

    /// A value of a declared type: a structure, an enumeration with raw values, or one with
    /// associated values (an object with one key, the case).
    private static func named(
        _ value: JSONValue, name: String, declaration: ActivityTypeDeclaration, path: String, reading: inout Reading
    ) throws(Failure) -> JSONValue {
        switch declaration.types[name] {
        case .structure(let fields)?:
            return try structure(value, fields: fields, typeName: name, declaration: declaration, path: path, reading: &reading)
        case .enumeration(let raw, let cases)?:
            _ = try self.value(value, type: raw, declaration: declaration, path: path, reading: &reading)
            guard cases.contains(where: { $0 == value || ($0.int64 != nil && $0.int64 == value.int64) }) else {
                let list = cases.map { if case .string(let text) = $0 { text } else if case .number(let text) = $0 { text } else { "\($0)" } }
                throw Failure(path: path, message: "\(describe(value)) is not a case of \(name) (\(list.joined(separator: ", ")))")
            }
            return value
        case .associated(let cases)?:
            guard case .object(let members) = value else {
                throw Failure(path: path, message: "expected \(name) (an object with one key, the case), found \(describe(value))")
            }
            let names = cases.keys.sorted().joined(separator: ", ")
            guard members.count == 1, let (label, values) = members.first else {
                throw Failure(path: path, message: "\(name) is an object with exactly one key, the case (\(names)); found \(members.count) keys")
            }
            guard let fields = cases[label] else {
                throw Failure(path: "\(path).\(label)", message: "\(label) is not a case of \(name) (\(names))")
            }
            let decoded = try structure(
                values, fields: fields, typeName: "\(name).\(label)", declaration: declaration, path: "\(path).\(label)", reading: &reading)
            return .object([(label, decoded)])
        case nil:
            throw Failure(path: path, message: "\(name) is not declared")
        }
    }

    /// `String "5"`, `number 5.5`, `Bool true`, `null`, `an object`, `an array`.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "String \"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\""
        case .number(let text): "number \(text)"
        case .bool(let flag): "Bool \(flag)"
        case .null: "null"
        case .object: "an object"
        case .array: "an array"
        }
    }
}
