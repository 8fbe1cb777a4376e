import PushMockCore

/// How often the real service agreed with PushMock on one answer: every push PushMock forwarded
/// (shadow, relay or passthrough) and the upstream answered counts once, by the service, PushMock's
/// own answer (`reason`, nil for a success) and the upstream it went to.
///
/// `GET /api/v1/parity`, beside each entry of `GET /api/v1/rejections`, on the catalogue page and
/// in `pushmock rejections`: "BadDeviceToken: agreed with Apple (sandbox) 14 times, last on 2026-12-03".
public struct ParityRecord: Sendable, Codable, Hashable {
    /// `apns` or `fcm`.
    public var service: String
    /// PushMock's reason (the APNs `reason`, the FCM error code); nil when PushMock answered success
    /// (a push a device would drop is a success to the service).
    @Nullable public var reason: String?
    /// PushMock's status, as last seen.
    public var status: Int
    /// Which upstream answered: `Apple (sandbox)`, `Apple (production)`, `Google`, or the host of
    /// another upstream (another PushMock, say).
    public var upstream: String
    /// Answers that agreed: the same status class, and the same reason on an error.
    public var agreed: Int
    /// Answers that did not.
    public var disagreed: Int
    /// When the last agreeing answer came.
    @Nullable public var lastAgreed: InspectionTime? = nil
    /// When the last disagreeing answer came.
    @Nullable public var lastDisagreed: InspectionTime? = nil
    /// What the upstream answered instead, when it disagreed (`410 Unregistered`), with how often.
    public var upstreamAnswers: [String: Int]
    /// The delivery of the last disagreement (`GET /api/v1/deliveries/{id}` shows both answers).
    @Nullable public var lastDisagreement: UInt64? = nil

    enum CodingKeys: String, CodingKey {
        case service, reason, status, upstream, agreed, disagreed, lastAgreed, lastDisagreed, upstreamAnswers, lastDisagreement, summary
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        service = try container.decode(String.self, forKey: .service)
        _reason = try container.decode(Nullable<String>.self, forKey: .reason)
        status = try container.decode(Int.self, forKey: .status)
        upstream = try container.decode(String.self, forKey: .upstream)
        agreed = try container.decode(Int.self, forKey: .agreed)
        disagreed = try container.decode(Int.self, forKey: .disagreed)
        _lastAgreed = try container.decode(Nullable<InspectionTime>.self, forKey: .lastAgreed)
        _lastDisagreed = try container.decode(Nullable<InspectionTime>.self, forKey: .lastDisagreed)
        upstreamAnswers = try container.decodeIfPresent([String: Int].self, forKey: .upstreamAnswers) ?? [:]
        _lastDisagreement = try container.decode(Nullable<UInt64>.self, forKey: .lastDisagreement)
    }

    /// The record's fields and its ``summary``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(service, forKey: .service)
        try container.encode(_reason, forKey: .reason)
        try container.encode(status, forKey: .status)
        try container.encode(upstream, forKey: .upstream)
        try container.encode(agreed, forKey: .agreed)
        try container.encode(disagreed, forKey: .disagreed)
        try container.encode(_lastAgreed, forKey: .lastAgreed)
        try container.encode(_lastDisagreed, forKey: .lastDisagreed)
        try container.encode(upstreamAnswers, forKey: .upstreamAnswers)
        try container.encode(_lastDisagreement, forKey: .lastDisagreement)
        try container.encode(summary, forKey: .summary)
    }

    /// An empty record of one answer at one upstream.
    public init(service: String, reason: String?, status: Int, upstream: String) {
        self.service = service
        self.reason = reason
        self.status = status
        self.upstream = upstream
        agreed = 0
        disagreed = 0
        upstreamAnswers = [:]
    }

    /// What the record counts: the same key, the same record.
    public struct Key: Sendable, Hashable, Comparable {
        public var service: String
        public var reason: String
        public var upstream: String

        public static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.service, lhs.reason, lhs.upstream) < (rhs.service, rhs.reason, rhs.upstream)
        }
    }

    public var key: Key { Key(service: service, reason: reason ?? "", upstream: upstream) }

    /// Counts one answer of the upstream (`upstreamStatus`, `upstreamReason`) to delivery `id`, at `milliseconds`.
    public mutating func count(agrees: Bool, upstreamStatus: Int, upstreamReason: String?, delivery id: UInt64, at milliseconds: Int64) {
        if agrees {
            agreed += 1
            lastAgreed = InspectionTime(milliseconds: max(milliseconds, lastAgreed?.milliseconds ?? .min))
        } else {
            disagreed += 1
            lastDisagreed = InspectionTime(milliseconds: max(milliseconds, lastDisagreed?.milliseconds ?? .min))
            lastDisagreement = id
            let answer = upstreamReason.map { "\(upstreamStatus) \($0)" } ?? "\(upstreamStatus)"
            // A record keeps a bounded set of answers: an upstream answering a new reason each time
            // cannot grow it without end.
            if upstreamAnswers[answer] != nil || upstreamAnswers.count < Self.maximumAnswers {
                upstreamAnswers[answer, default: 0] += 1
            } else {
                upstreamAnswers[Self.otherAnswers, default: 0] += 1
            }
        }
    }

    /// The most distinct disagreeing answers a record names; the rest count under ``otherAnswers``.
    public static let maximumAnswers = 16
    static let otherAnswers = "other"

    /// `other` folded in: two records of the same key (two instances of a fleet, two runs) as one.
    public mutating func merge(_ other: ParityRecord) {
        agreed += other.agreed
        disagreed += other.disagreed
        if let time = other.lastAgreed, lastAgreed.map({ time > $0 }) ?? true { lastAgreed = time }
        if let time = other.lastDisagreed, lastDisagreed.map({ time > $0 }) ?? true {
            lastDisagreed = time
            lastDisagreement = other.lastDisagreement
            status = other.status
        }
        for (answer, count) in other.upstreamAnswers { upstreamAnswers[answer, default: 0] += count }
    }

    /// The record in a line: `BadDeviceToken: agreed with Apple (sandbox) 14 times, last on 2026-12-03`.
    public var summary: String {
        var parts: [String] = []
        if agreed > 0 {
            parts.append("agreed with \(upstream) \(Self.times(agreed)), last on \(Self.day(lastAgreed))")
        }
        if disagreed > 0 {
            let answers = upstreamAnswers.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) ×\($0.value)" }
            let with = agreed > 0 ? "disagreed" : "disagreed with \(upstream)"
            parts.append("\(with) \(Self.times(disagreed)), last on \(Self.day(lastDisagreed)) (it answered \(answers.joined(separator: ", ")))")
        }
        return "\(reason ?? "success"): " + (parts.isEmpty ? "no answer yet from \(upstream)" : parts.joined(separator: "; "))
    }

    static func times(_ count: Int) -> String { count == 1 ? "once" : "\(count) times" }

    static func day(_ time: InspectionTime?) -> String { time.map { String($0.text.prefix(10)) } ?? "?" }

    /// The name of the upstream at base URL `url`: Apple's and Google's hosts by name, another by
    /// its host and port.
    public static func upstreamName(_ url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        let authority = String(rest.prefix { $0 != "/" && $0 != "?" })
        let host = authority.split(separator: ":").first.map(String.init) ?? authority
        switch host.lowercased() {
        case "api.push.apple.com": return "Apple (production)"
        case "api.sandbox.push.apple.com", "api.development.push.apple.com": return "Apple (sandbox)"
        case "fcm.googleapis.com": return "Google"
        default: return authority.isEmpty ? url : authority
        }
    }

    /// Every record of `records` with the same key merged into one, sorted by service, reason and upstream.
    public static func merged(_ records: some Sequence<ParityRecord>) -> [ParityRecord] {
        var byKey: [Key: ParityRecord] = [:]
        for record in records {
            if var known = byKey[record.key] {
                known.merge(record)
                byKey[record.key] = known
            } else {
                byKey[record.key] = record
            }
        }
        return byKey.values.sorted { $0.key < $1.key }
    }
}

/// `GET /api/v1/parity`.
public struct ParityList: Sendable, Codable {
    /// Every record, by service, reason and upstream.
    public var records: [ParityRecord]

    public init(records: [ParityRecord]) {
        self.records = records
    }
}
