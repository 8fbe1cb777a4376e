import Foundation
public import PushMockCore

/// One request PushMock forwarded, with its own answer and the real service's, normalised so that a
/// project can commit it (`pushmock parity export`, `GET /api/v1/parity/fixtures`): device tokens,
/// projects, ids and times are replaced by placeholders, and credentials are left out. The same
/// request answered the same way twice is one fixture, named by a hash of its content.
public struct ParityFixture: Sendable, Codable, Hashable {
    /// `<service>-<reason or success>-<agrees|disagrees>-<8 hex digits of the content>`: stable,
    /// so that exporting again rewrites the same files.
    public var name: String
    /// `apns` or `fcm`.
    public var service: String
    /// The upstream that answered (``ParityRecord/upstreamName(_:)``).
    public var upstream: String
    /// The request as sent, normalised.
    public var request: Request
    /// PushMock's answer.
    public var pushmock: Answer
    /// The upstream's answer.
    public var upstreamAnswer: Answer
    /// Whether the two agree (``RelayResult/agrees(status:reason:ownStatus:ownReason:ownOutcome:)``).
    public var agrees: Bool

    public struct Request: Sendable, Codable, Hashable {
        public var method: String
        public var path: String
        /// The fields a sender's request carries to the service (APNs' `apns-*`, the content type),
        /// in order; never `authorization`.
        public var headers: [HeaderField]
        /// The body: its JSON when it is JSON, else its text.
        public var body: JSONValue
    }

    public struct Answer: Sendable, Codable, Hashable {
        public var status: Int
        /// The reason (APNs) or error code (FCM); nil on success.
        @Nullable public var reason: String?
    }

    /// The placeholders that stand for what differs from one run to the next.
    public enum Placeholder {
        public static let device = "{device}"
        public static let project = "{project}"
        public static let id = "{id}"
        public static let time = "{time}"
    }

    /// The fixture of `delivery`; nil when it was not forwarded or no answer came.
    public init?(_ delivery: Delivery) {
        guard let relay = delivery.relay, let upstreamStatus = relay.status, let agrees = relay.agrees,
            delivery.service == .apns || delivery.service == .fcm
        else { return nil }
        service = delivery.service.rawValue
        upstream = ParityRecord.upstreamName(relay.upstream)
        self.agrees = agrees
        let normaliser = Normaliser(token: delivery.deviceToken, project: delivery.project)
        var headers: [HeaderField] = []
        for field in delivery.headers where Self.kept(field.name, service: delivery.service) {
            headers.append(HeaderField(name: field.name, value: normaliser.header(field.name, field.value)))
        }
        let body: JSONValue
        if delivery.bodyIsJSON, let parsed = JSONValue.parse(delivery.body) {
            body = normaliser.value(parsed)
        } else {
            body = .string(normaliser.text(String(decoding: delivery.body, as: UTF8.self)))
        }
        request = Request(method: delivery.method, path: normaliser.text(delivery.path), headers: headers, body: body)
        pushmock = Answer(status: delivery.status, reason: delivery.outcome == .dropped ? nil : delivery.reason)
        upstreamAnswer = Answer(status: upstreamStatus, reason: relay.reason)
        name = ""
        name = "\(service)-\(Self.slug(pushmock.reason ?? "success"))-\(agrees ? "agrees" : "disagrees")-\(Self.contentHash(self))"
    }

    /// The request fields a fixture keeps: those the relay forwards, never credentials.
    static func kept(_ name: String, service: Delivery.Service) -> Bool {
        name == "content-type" || (service == .apns && name.hasPrefix("apns-"))
    }

    /// `reason` as a file name's part: letters, digits and `-`.
    static func slug(_ reason: String) -> String {
        String(reason.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }.prefix(64))
    }

    /// 8 hex digits of FNV-1a over the fixture's content (its name and upstream left out: another
    /// PushMock as the upstream has another port each run): the same on every machine and every run.
    static func contentHash(_ fixture: ParityFixture) -> String {
        var content = fixture
        content.name = ""
        content.upstream = ""
        let text = Self.canonical(content)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String((String(repeating: "0", count: max(0, 16 - hex.count)) + hex).prefix(8))
    }

    /// The fixture as JSON with sorted keys: the text written to a file, and what its name hashes.
    public static func canonical(_ fixture: ParityFixture) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(fixture)) ?? Data(), as: UTF8.self)
    }

    /// Replaces what differs between runs.
    struct Normaliser {
        let token: String?
        let project: String?

        /// The APNs header fields that hold an id or a time.
        static let idHeaders: Set<String> = ["apns-id", "apns-unique-id"]
        static let timeHeaders: Set<String> = ["apns-expiration"]
        /// The payload keys that hold a time (APNs' Live Activity dates; FCM's none).
        static let timeKeys: Set<String> = ["timestamp", "stale-date", "dismissal-date"]

        func header(_ name: String, _ value: String) -> String {
            if Self.idHeaders.contains(name) { return Placeholder.id }
            if Self.timeHeaders.contains(name), let seconds = Int64(value), seconds != 0 { return Placeholder.time }
            return text(value)
        }

        func text(_ value: String) -> String {
            var result = value
            if let token, !token.isEmpty { result = result.replacing(token, with: Placeholder.device) }
            if let project, !project.isEmpty {
                result = result.replacing("/projects/\(project)/", with: "/projects/\(Placeholder.project)/")
                if result == project { result = Placeholder.project }
            }
            return result
        }

        func value(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let members):
                return .object(
                    members.map { key, member in
                        if Self.timeKeys.contains(key), case .number = member { return (key, .string(Placeholder.time)) }
                        if key == "token", case .string = member { return (key, .string(Placeholder.device)) }
                        return (key, self.value(member))
                    })
            case .array(let elements):
                return .array(elements.map { self.value($0) })
            case .string(let text):
                return .string(self.text(text))
            default:
                return value
            }
        }
    }
}

/// `GET /api/v1/parity/fixtures`.
public struct ParityFixtureList: Sendable, Codable {
    /// One fixture per distinct normalised pair, by name.
    public var fixtures: [ParityFixture]
    /// Forwarded deliveries read to make them (the newest first, up to the `limit`).
    public var deliveriesRead: Int

    public init(fixtures: [ParityFixture], deliveriesRead: Int) {
        self.fixtures = fixtures
        self.deliveriesRead = deliveriesRead
    }
}
