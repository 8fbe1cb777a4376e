public import PushMockCore

/// Which deliveries a query wants. Every field left `nil` matches everything.
public struct DeliveryFilter: Sendable, Hashable {
    public var service: Delivery.Service?
    public var environment: String?
    public var deviceToken: String?
    public var topic: String?
    public var pushType: String?
    public var outcome: Delivery.Outcome?
    public var reason: String?
    public var status: Int?
    public var project: String?
    /// Only deliveries received at or after this time (milliseconds since the epoch).
    public var since: Int64?
    /// Only deliveries received before this time (milliseconds since the epoch).
    public var until: Int64?
    /// Only deliveries whose request headers or body contain this text (ASCII case-insensitive):
    /// a header matches by its name, its value or `name: value`; nothing else of the record (its
    /// reason, diagnostics or ids) is searched. Every store, the API and the web page's live
    /// list mean the same.
    public var text: String?
    /// Only deliveries a device would have applied (`applied`), dropped (`dropped`) or never got
    /// (`none`: rejected on the wire).
    public var deviceOutcome: DeviceOutcome?
    /// Only deliveries a device dropped for this reason.
    public var dropReason: String?
    /// Only deliveries with an id greater than this (a cursor).
    public var after: UInt64?
    /// Only deliveries with an id less than this (paging backwards).
    public var before: UInt64?
    /// Deliveries whose relay answer agrees (true) or disagrees (false) with PushMock's verdict;
    /// deliveries not forwarded, or not answered yet, match neither.
    public var relayAgrees: Bool?

    /// A filter that matches everything.
    public init() {}

    /// A filter on the common fields; `nil` matches anything.
    ///
    /// ```swift
    /// DeliveryFilter(service: .apns, deviceToken: token, pushType: "liveactivity", outcome: .accepted)
    /// ```
    public init(
        service: Delivery.Service? = nil, deviceToken: String? = nil, topic: String? = nil, pushType: String? = nil,
        project: String? = nil, outcome: Delivery.Outcome? = nil, reason: String? = nil, after: UInt64? = nil
    ) {
        self.service = service
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.project = project
        self.outcome = outcome
        self.reason = reason
        self.after = after
    }

    /// Whether `delivery` matches.
    public func matches(_ delivery: Delivery) -> Bool {
        if let after, delivery.id <= after { return false }
        if let before, delivery.id >= before { return false }
        if let service, delivery.service != service { return false }
        if let environment, delivery.environment != environment { return false }
        if let deviceToken, delivery.deviceToken?.lowercased() != deviceToken.lowercased() { return false }
        if let topic, delivery.topic != topic { return false }
        if let pushType, delivery.pushType != pushType { return false }
        if let outcome, delivery.outcome != outcome { return false }
        if let reason, delivery.reason != reason { return false }
        if let status, delivery.status != status { return false }
        if let project, delivery.project != project { return false }
        if let since, delivery.receivedAt < since { return false }
        if let until, delivery.receivedAt >= until { return false }
        if let deviceOutcome, DeviceOutcome(delivery.outcome) != deviceOutcome { return false }
        if let dropReason, delivery.outcome != .dropped || delivery.reason != dropReason { return false }
        if let relayAgrees, delivery.relay?.agrees != relayAgrees { return false }
        if let text, !Self.containsText(delivery, text) { return false }
        return true
    }

    /// What a device did with a delivery, derived from its outcome.
    public enum DeviceOutcome: String, Sendable, Hashable, CaseIterable {
        case applied, dropped, none

        public init(_ outcome: Delivery.Outcome) {
            switch outcome {
            case .accepted: self = .applied
            case .dropped: self = .dropped
            case .rejected: self = .none
            }
        }
    }

    /// Whether `delivery`'s headers (`name: value`) or body contain `text`.
    static func containsText(_ delivery: Delivery, _ text: String) -> Bool {
        if contains(delivery.body, text) { return true }
        return delivery.headers.contains { field in contains(Array("\(field.name): \(field.value)".utf8), text) }
    }

    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let pattern = Array(needle.utf8).map(lower)
        guard !pattern.isEmpty else { return true }
        guard haystack.count >= pattern.count else { return false }
        var start = 0
        while start + pattern.count <= haystack.count {
            var index = 0
            while index < pattern.count, lower(haystack[start + index]) == pattern[index] {
                index += 1
            }
            if index == pattern.count { return true }
            start += 1
        }
        return false
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte + 32 : byte
    }
}
