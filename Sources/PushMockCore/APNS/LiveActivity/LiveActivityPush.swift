/// The parts of a Live Activity payload a device acts on, read from `aps` (payload rules have run
/// before: values that break them are simply absent here).
public struct LiveActivityPush: Sendable, Hashable {
    /// `start`, `update` or `end`.
    public var event: String
    /// `aps.timestamp` in seconds.
    public var timestamp: Int64?
    public var contentState: JSONValue?
    public var attributesType: String?
    public var attributes: JSONValue?
    /// Seconds.
    public var staleDate: Int64?
    /// Seconds.
    public var dismissalDate: Int64?
    public var relevanceScore: Double?
    /// `input-push-token: 1`.
    public var inputPushToken: Bool
    /// `input-push-channel`.
    public var inputPushChannel: String?
    /// `apns-priority` (10 when absent).
    public var priority: Int
    /// The alert of a start (title/body), for the timeline.
    public var alertTitle: String?
    /// `apns-collapse-id`, which the validator sets: a device tells a retried start from a new one
    /// by it.
    public var collapseID: String?
    /// `content-state` as the device decoded it against the declared type (dates as it reads
    /// them); nil when the type is not declared.
    public var decodedContentState: JSONValue?

    /// Reads `payload` (the whole JSON payload); nil when it has no `aps.event`.
    public init?(payload: JSONValue, priority: Int) {
        guard let aps = payload["aps"], case .string(let event)? = aps["event"] else { return nil }
        self.event = event
        self.priority = priority
        timestamp = Self.int(aps["timestamp"])
        if case .object? = aps["content-state"] { contentState = aps["content-state"] }
        if case .string(let type)? = aps["attributes-type"] { attributesType = type }
        if case .object? = aps["attributes"] { attributes = aps["attributes"] }
        staleDate = Self.int(aps["stale-date"])
        dismissalDate = Self.int(aps["dismissal-date"])
        // A non-finite score (`1e400`) is ignored as a device ignores it; it is never stored.
        if case .number(let text)? = aps["relevance-score"] { relevanceScore = SafeNumber.finiteDouble(jsonNumber: text) }
        inputPushToken = Self.int(aps["input-push-token"]) == 1
        if case .string(let channel)? = aps["input-push-channel"] { inputPushChannel = channel }
        if case .string(let title)? = aps["alert"]?["title"] { alertTitle = title }
    }

    static func int(_ value: JSONValue?) -> Int64? {
        value?.int64
    }
}

/// A ``LiveActivityPush`` held by reference, so that the verdicts that carry one stay small on the
/// hot path (most pushes are not Live Activity pushes and carry none).
public final class LiveActivityPushBox: Sendable, Hashable {
    /// The push.
    public let push: LiveActivityPush

    init(_ push: LiveActivityPush) {
        self.push = push
    }

    public static func == (lhs: LiveActivityPushBox, rhs: LiveActivityPushBox) -> Bool { lhs.push == rhs.push }
    public func hash(into hasher: inout Hasher) { hasher.combine(push) }
}

extension Optional where Wrapped == LiveActivityPushBox {
    /// Boxes `push`.
    static func boxing(_ push: LiveActivityPush?) -> LiveActivityPushBox? {
        push.map(LiveActivityPushBox.init)
    }
}
