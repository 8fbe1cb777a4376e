/// One header field as it appeared on the wire (HTTP/2 names are lowercase; HTTP/1.1 names are
/// lowercased by the transport so both protocols look the same to a responder).
public struct HTTPHeader: Sendable, Hashable {
    /// The field name, lowercase.
    public var name: String
    /// The field value, as sent.
    public var value: String
    /// Ask HPACK never to index this field (for values unique to one response, such as an id).
    public var neverIndex: Bool

    /// Creates a header field.
    public init(name: String, value: String, neverIndex: Bool = false) {
        self.name = name
        self.value = value
        self.neverIndex = neverIndex
    }
}

/// An ordered list of header fields that keeps duplicates, as a strict mock needs to see them.
///
/// ```swift
/// var headers = HTTPHeaderList()
/// headers.append("apns-id", "6A0A7E1C-4F9D-4C4B-9C0E-1D2B3C4D5E6F")
/// headers["apns-id"] // the first value
/// ```
public struct HTTPHeaderList: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral {
    /// The fields in the order they were received or will be sent.
    public var fields: [HTTPHeader]

    /// Creates an empty list, reserving room for `capacity` fields.
    public init(capacity: Int = 0) {
        self.fields = []
        self.fields.reserveCapacity(capacity)
    }

    /// Creates a list from fields.
    public init(_ fields: [HTTPHeader]) {
        self.fields = fields
    }

    /// Creates a list from `(name, value)` pairs.
    public init(arrayLiteral elements: (String, String)...) {
        self.fields = elements.map { HTTPHeader(name: $0.0, value: $0.1) }
    }

    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> HTTPHeader { fields[position] }

    /// Appends a field.
    public mutating func append(_ name: String, _ value: String, neverIndex: Bool = false) {
        fields.append(HTTPHeader(name: name, value: value, neverIndex: neverIndex))
    }

    /// The first value of the field `name` (lowercase), if any.
    public subscript(name: String) -> String? {
        for field in fields where field.name == name {
            return field.value
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
