/// The keys under which a store that keeps state (``StateArchive``) holds the server's state:
/// one case per kind, each kind's spelling in one place. Keys are written as text (`activity:<id>`),
/// so that stores written by earlier versions read the same.
enum StateKey: Hashable {
    /// The device registry as set through the API (one snapshot).
    case devices
    /// The fault plan as set through the API (one snapshot).
    case faults
    /// The OAuth tokens' generation: a reset starts a new one, revoking every token before it.
    case tokenGeneration
    /// The broadcast channels (one snapshot).
    case channels
    /// A fleet's `count` fault that the shared counter found spent (one key each, so that telling
    /// the others never overwrites a fault list another instance just changed).
    case faultSpent(fleetKey: String)
    /// A Live Activity's head: the activity without its timeline.
    case activity(id: String)
    /// One entry of a Live Activity's timeline.
    case activityEntry(id: String, number: Int64)
    /// An activity type declared or removed through the API.
    case activityType(name: String)
    /// One FCM topic subscription, or (a store written before that layout) one topic kept whole:
    /// the text after the prefix, `<project>/<topic>[/<token>]`.
    case topic(String)
    /// One parity record of one run of the server (``ParityLedger``): `<run>/<service>/<upstream>/<reason>`.
    case parity(run: String, record: String)
    /// One minted Web Push subscription, keys included (``WebPushArchive``).
    case webPush(id: String)

    /// The prefixes of the kinds with one key per item, for ``StateArchive/archived(prefix:)``.
    enum Prefix {
        static let faultSpent = "fault-spent:"
        static let activity = "activity:"
        static let activityEntry = "activity-entry:"
        static let activityType = "activity-type:"
        static let topic = "topic:"
        static let parity = "parity:"
        static let webPush = "web-push:"
    }

    /// The kind of `key`; nil for a key this version does not know.
    init?(_ key: String) {
        switch key {
        case "devices": self = .devices
        case "faults": self = .faults
        case "oauth-generation": self = .tokenGeneration
        case "channels": self = .channels
        default:
            if let rest = Self.rest(of: key, after: Prefix.faultSpent) {
                self = .faultSpent(fleetKey: rest)
            } else if let rest = Self.rest(of: key, after: Prefix.activity) {
                self = .activity(id: rest)
            } else if let rest = Self.rest(of: key, after: Prefix.activityEntry) {
                guard let slash = rest.lastIndex(of: "/"), let number = Int64(rest[rest.index(after: slash)...]) else { return nil }
                self = .activityEntry(id: String(rest[..<slash]), number: number)
            } else if let rest = Self.rest(of: key, after: Prefix.activityType) {
                self = .activityType(name: rest)
            } else if let rest = Self.rest(of: key, after: Prefix.topic) {
                self = .topic(rest)
            } else if let rest = Self.rest(of: key, after: Prefix.webPush) {
                self = .webPush(id: rest)
            } else if let rest = Self.rest(of: key, after: Prefix.parity), let slash = rest.firstIndex(of: "/") {
                self = .parity(run: String(rest[..<slash]), record: String(rest[rest.index(after: slash)...]))
            } else {
                return nil
            }
        }
    }

    /// The key as the store holds it.
    var key: String {
        switch self {
        case .devices: "devices"
        case .faults: "faults"
        case .tokenGeneration: "oauth-generation"
        case .channels: "channels"
        case .faultSpent(let fleetKey): Prefix.faultSpent + fleetKey
        case .activity(let id): Prefix.activity + id
        case .activityEntry(let id, let number): Self.entriesPrefix(id) + Self.padded(number)
        case .activityType(let name): Prefix.activityType + name
        case .topic(let rest): Prefix.topic + rest
        case .parity(let run, let record): Prefix.parity + run + "/" + record
        case .webPush(let id): Prefix.webPush + id
        }
    }

    /// The prefix of every entry key of activity `id`.
    static func entriesPrefix(_ id: String) -> String { Prefix.activityEntry + id + "/" }

    /// 19 digits, so that an activity's entry keys sort by number.
    private static func padded(_ number: Int64) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 19 - digits.count)) + digits
    }

    private static func rest(of key: String, after prefix: String) -> String? {
        key.hasPrefix(prefix) ? String(key.dropFirst(prefix.count)) : nil
    }
}
