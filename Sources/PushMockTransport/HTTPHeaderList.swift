@_exported import PushMockHTTP

/// An ordered list of header fields that keeps duplicates, as a strict mock needs to see them.
///
/// ```swift
/// var headers = HTTPHeaderList()
/// headers.append("apns-id", "6A0A7E1C-4F9D-4C4B-9C0E-1D2B3C4D5E6F")
/// headers["apns-id"] // the first value
/// ```
public struct HTTPHeaderList: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral {
    /// The fields in the order they were received or will be sent.
    public var fields: [HeaderField]

    /// Creates an empty list, reserving room for `capacity` fields.
    public init(capacity: Int = 0) {
        self.fields = []
        self.fields.reserveCapacity(capacity)
    }

    /// Creates a list from fields.
    public init(_ fields: [HeaderField]) {
        self.fields = fields
    }

    /// Creates a list from `(name, value)` pairs.
    public init(arrayLiteral elements: (String, String)...) {
        self.fields = elements.map { HeaderField(name: $0.0, value: $0.1) }
    }

    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> HeaderField { fields[position] }

    /// Appends a field.
    public mutating func append(_ name: String, _ value: String, neverIndex: Bool = false) {
        fields.append(HeaderField(name: name, value: value, neverIndex: neverIndex))
    }

    /// The first value of the field `name` (lowercase), if any.
    public subscript(name: String) -> String? {
        for field in fields where field.name == name {
            return field.value
        }
        return nil
    }

    /// The first value of the field named `name`: by the name the HTTP/2 transport found when it
    /// received the field, with no string comparison, or by the name's text for a field it did
    /// not look up.
    package subscript(known name: KnownHeaderName) -> String? {
        for index in fields.indices {
            // Compared as bytes: `==` on the enum went through the generic `RawRepresentable` one.
            let known = fields[index].knownName
            if known.rawValue == name.rawValue { return fields[index].value }
            if case .unchecked = known, let text = name.text,
                fields[index].name.utf8.elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
            {
                return fields[index].value
            }
        }
        return nil
    }

    /// Every value of the field `name` (lowercase), in order.
    public func values(for name: String) -> [String] {
        fields.compactMap { $0.name == name ? $0.value : nil }
    }

    /// How many times the field `name` (lowercase) occurs.
    public func count(of name: String) -> Int {
        var count = 0
        for field in fields where field.name == name {
            count += 1
        }
        return count
    }
}
