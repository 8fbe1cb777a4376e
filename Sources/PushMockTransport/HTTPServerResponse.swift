import PushMockBytes

/// A response for the transport to send.
///
/// A `nil` body is sent on HTTP/2 as a single HEADERS frame with END_STREAM (no empty DATA frame,
/// which some clients, such as aioapns, cannot handle) and on HTTP/1.1 with `content-length: 0`.
public struct HTTPServerResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields, without `:status` and without `content-length` (the transport adds it).
    public var headers: HTTPHeaderList
    /// The body, or `nil` for a header-only response.
    public var body: [UInt8]?
    /// One more field, after ``headers``, whose value is a UUID the transport writes straight into
    /// the answer's header block: an id made for one answer and never kept (APNs'
    /// `apns-unique-id`) as a `String` was allocated, checked and freed only to be copied there.
    public var generatedID: GeneratedID? {
        get { generated == 0 ? nil : GeneratedID(packed: generated) }
        set { generated = newValue?.packed ?? 0 }
    }

    /// ``generatedID`` packed in one word (0: none), so that a response stays four words, which
    /// Swift copies in place: with the id's fields stored as they are, every copy of a response
    /// went through outlined value-witness calls, about 180 instructions an FCM answer, which
    /// never carries one.
    private var generated: UInt64 = 0

    /// A field whose value is a random (version 4) UUID's text, `8-4-4-4-12` lowercase hex digits,
    /// made from 56 random bits: each the same for the same bits, and a collision as unlikely as
    /// 56 random bits make it (one in about 2^28 ids of a run to see one at all).
    public struct GeneratedID: Sendable, Equatable {
        /// The random bits (the low 56), the name's raw value (the next 7) and the never-index flag
        /// (the top bit). Never 0: a known name's raw value is at least 2.
        fileprivate let packed: UInt64

        fileprivate init(packed: UInt64) {
            self.packed = packed
        }

        /// Creates the field named `name` (a known name) with a UUID made from the low 56 bits of
        /// `random`.
        package init(name: KnownHeaderName, random: UInt64, neverIndex: Bool) {
            precondition(name.text != nil && name.rawValue < 128, "a generated id's field needs a known name")
            packed = random & 0x00FF_FFFF_FFFF_FFFF | UInt64(name.rawValue) << 56 | (neverIndex ? 1 << 63 : 0)
        }

        /// The field's name.
        package var name: KnownHeaderName { KnownHeaderName(rawValue: UInt8(truncatingIfNeeded: packed >> 56) & 0x7F)! }

        /// The field name, lowercase.
        public var nameText: StaticString { name.text! }

        /// Ask HPACK never to index this field (``HeaderField/neverIndex``).
        public var neverIndex: Bool { packed >> 63 == 1 }

        /// The UUID's 128 bits, highest first: the random bits spread by SplitMix64's finalizer,
        /// with the version (4) and variant (RFC 9562) bits set.
        public var bits: (high: UInt64, low: UInt64) {
            let seed = packed & 0x00FF_FFFF_FFFF_FFFF
            let high = Self.mix(seed &+ 0x9E37_79B9_7F4A_7C15)
            let low = Self.mix(seed &+ 0x3C6E_F372_FE94_F82A)
            return ((high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000, (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
        }

        private static func mix(_ value: UInt64) -> UInt64 {
            var z = value
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        /// Writes the value's text, 36 bytes.
        func write(to writer: inout ByteWriter) {
            let (high, low) = bits
            writer.putUUID(high: high, low: low, uppercase: false)
        }

        /// The value's text.
        public var value: String {
            String(asciiCapacity: 36) { write(to: &$0) }
        }

        /// The field as a header field.
        public var field: HeaderField {
            HeaderField(name: nameText.description, value: value, neverIndex: neverIndex)
        }
    }

    /// Every field the answer carries: ``headers``, then ``generatedID``'s.
    public var allHeaders: HTTPHeaderList {
        guard let generatedID else { return headers }
        return HTTPHeaderList(headers.fields + [generatedID.field])
    }

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaderList = [], body: [UInt8]? = nil, generatedID: GeneratedID? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.generated = generatedID?.packed ?? 0
    }

    /// What the transport sends for this response: itself when its status is final (200–599),
    /// else a 500 saying so. A 1xx head must not be followed by a body, and NIO's HTTP/1.1 encoder
    /// traps when one is; no responder's mistake may end the process or break a stream.
    /// 204, 205 and 304 never carry a body (RFC 9110 §15.3.5, §15.3.6, §15.4.5): whoever produced
    /// one (a fault, an upstream answer passed through), it is left out, or a client reading the
    /// connection would fall out of step.
    public var final: HTTPServerResponse {
        if Self.forbidsBody(status) && body != nil {
            var bare = self
            bare.body = nil
            bare.headers = HTTPHeaderList(headers.filter { $0.name != "content-type" })
            return bare
        }
        if status >= 200 && status <= 599 { return self }
        return .json(
            status: 500, #"{"reason":"InternalServerError","description":"the server produced status \#(status), which is not a final status"}"#)
    }

    /// Whether a response with `status` must have no body.
    public static func forbidsBody(_ status: Int) -> Bool {
        status == 204 || status == 205 || status == 304
    }

    /// A JSON response: `content-type: application/json` and the given UTF-8 body.
    public static func json(status: Int, _ json: String, headers: HTTPHeaderList = []) -> HTTPServerResponse {
        var all = headers
        all.append("content-type", "application/json")
        return HTTPServerResponse(status: status, headers: all, body: Array(json.utf8))
    }
}
