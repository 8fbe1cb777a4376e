/// A header field: a request's as it arrived (HTTP/2 names are lowercase; HTTP/1.1 names are
/// lowercased by the transport), a recorded delivery's, or one to send.
///
/// The transport and the core share this one type, so that a request's headers become the
/// validator's and the delivery's without being copied field by field.
public struct HeaderField: Sendable, Hashable {
    /// The field name, lowercase. Read-only, so that ``knownName`` always describes it.
    public let name: String
    /// The field value, as sent.
    public var value: String
    /// Ask HPACK never to index this field (for values unique to one response, such as an id).
    /// nghttp2 adds any other field that fits to the dynamic table, where a value that never
    /// repeats would only evict fields that do; it has no flag for a literal "without indexing",
    /// only this one (RFC 7541 §6.2.3). Not recorded: a request's fields never set it.
    public var neverIndex: Bool
    /// Which known name ``name`` is, when the transport that received the field looked
    /// (``KnownHeaderName/unchecked`` otherwise). Not part of the field's identity: two fields
    /// with the same name, value and `neverIndex` are equal however they were made.
    package let knownName: KnownHeaderName

    /// Creates a header field.
    public init(name: String, value: String, neverIndex: Bool = false) {
        self.name = name
        self.value = value
        self.neverIndex = neverIndex
        self.knownName = .unchecked
    }

    /// Creates a received field whose name the transport has looked up: `knownName` must be the
    /// one `name` is, or ``KnownHeaderName/other`` when it is none of them.
    package init(name: String, value: String, knownName: KnownHeaderName) {
        self.name = name
        self.value = value
        self.neverIndex = false
        self.knownName = knownName
    }

    public static func == (lhs: HeaderField, rhs: HeaderField) -> Bool {
        lhs.name == rhs.name && lhs.value == rhs.value && lhs.neverIndex == rhs.neverIndex
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(value)
        hasher.combine(neverIndex)
    }
}

extension HeaderField: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, value
    }

    /// Reads `{"name": …, "value": …}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(name: try container.decode(String.self, forKey: .name), value: try container.decode(String.self, forKey: .value))
    }

    /// Writes `{"name": …, "value": …}` (what a delivery records).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(value, forKey: .value)
    }
}
