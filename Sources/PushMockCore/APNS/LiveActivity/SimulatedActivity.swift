/// A Live Activity as a simulated device holds it: its attributes, current content, dates, state,
/// and the timeline of every push that reached it with what the device did. Codable, so that a
/// store can keep it across restarts and share it with a fleet.
public struct SimulatedActivity: Sendable, Hashable, Codable {
    /// Where an activity is in its life.
    public enum State: String, Sendable, Hashable, Codable, CaseIterable {
        /// Shown and updating.
        case active
        /// Shown, past its `stale-date`.
        case stale
        /// Ended (an `end`, or 8 hours after the start); still on the Lock Screen.
        case ended
        /// Gone from the Lock Screen (`dismissal-date`, 4 h after the end, or 12 h after the start).
        case dismissed
    }

    /// One push as the device saw it.
    public struct TimelineEntry: Sendable, Hashable, Codable {
        /// The delivery that carried it (set once recorded).
        public var deliveryID: UInt64?
        /// When it reached the device, milliseconds since the epoch.
        public var receivedAt: Int64
        /// `apns`, `fcm` or `broadcast`.
        public var service: Delivery.Service
        public var event: String
        public var timestamp: Int64?
        public var priority: Int
        /// The device applied it.
        public var applied: Bool
        /// Why it was dropped.
        public var reason: String?
        public var explanation: String?
        /// The content-state it carried.
        public var contentState: JSONValue?
        /// When the device renders it (milliseconds since the epoch), with a render interval
        /// (``LiveActivityDevice/Limits/renderInterval``); an applied entry followed by another
        /// with the same render time was replaced before it rendered (coalesced).
        public var rendersAt: Int64?
    }

    /// The key: the activity push token, or `local-<n>` for an activity started without
    /// `input-push-token` (the server never learns a token for it).
    public var id: String
    /// The activity's push token (160 hex), when one was issued or the activity was first seen
    /// through it.
    public var token: String?
    /// The push-to-start token that started it.
    public var pushToStartToken: String?
    public var bundleID: String?
    public var attributesType: String?
    public var attributes: JSONValue?
    public var contentState: JSONValue?
    /// The content state as the device decoded it against the declared type (dates as it reads
    /// them); nil when the type is not declared.
    public var decodedContentState: JSONValue?
    /// The `timestamp` of the content shown (seconds).
    public var lastTimestamp: Int64?
    /// Seconds.
    public var staleDate: Int64?
    public var relevanceScore: Double?
    /// Milliseconds since the epoch.
    public var startedAt: Int64
    /// Milliseconds since the epoch.
    public var endedAt: Int64?
    /// When the device removes it (milliseconds since the epoch).
    public var dismissAt: Int64?
    /// The broadcast channel it joined (`input-push-channel`).
    public var channelID: String?
    /// First seen through an update or end to an unknown token (its start happened elsewhere).
    public var implicit: Bool
    /// Every push that reached it, oldest first (the newest 1000).
    public var timeline: [TimelineEntry] = []
    /// The sequence number of `timeline[0]`: how many older entries were trimmed in its life. A
    /// store keeps each entry under its number, so that a push writes its entry, not the timeline.
    /// Not part of the encoded activity (the store keeps it beside it).
    public var firstEntry: Int64 = 0
    /// Arrival times (ms) of applied priority-10 updates in the last hour, for the budget.
    var priority10: [Int64] = []
    /// Priority-10 updates applied since its app last ran (``LiveActivityDevice/Limits/backgroundBudget``).
    var backgroundPriority10: Int?
    /// With a render interval: when the device renders (or rendered) the newest update it applied
    /// (milliseconds since the epoch).
    public var renderSlot: Int64?
    /// With a render interval: the content-state shown until ``renderSlot`` (and as decoded).
    public var shownBefore: JSONValue?
    public var shownBeforeDecoded: JSONValue?

    enum CodingKeys: String, CodingKey {
        case id, token, pushToStartToken, bundleID, attributesType, attributes, contentState, decodedContentState, lastTimestamp, staleDate
        case relevanceScore, startedAt, endedAt, dismissAt, channelID, implicit, timeline, priority10
        case backgroundPriority10, renderSlot, shownBefore, shownBeforeDecoded
    }

    /// What the device shows at `now`: the content-state (and as decoded) of the newest update
    /// whose render time has come, and the update waiting for its render, if one is.
    public func shown(at instant: PushInstant) -> Shown {
        let now = instant.millisecondsSinceEpoch
        guard let slot = renderSlot, now < slot else {
            return Shown(contentState: contentState, decodedContentState: decodedContentState, pending: nil)
        }
        return Shown(
            contentState: shownBefore, decodedContentState: shownBeforeDecoded,
            pending: .init(contentState: contentState, decodedContentState: decodedContentState, rendersAt: slot))
    }

    /// What ``shown(at:)`` finds.
    public struct Shown: Sendable, Hashable {
        public var contentState: JSONValue?
        public var decodedContentState: JSONValue?
        public var pending: Pending?

        /// An update the device applied and shows at `rendersAt`, unless a later one replaces it.
        public struct Pending: Sendable, Hashable {
            public var contentState: JSONValue?
            public var decodedContentState: JSONValue?
            public var rendersAt: Int64
        }
    }

    /// Its state at `now` (milliseconds since the epoch).
    public func state(at instant: PushInstant, limits: LiveActivityDevice.Limits) -> State {
        let now = instant.millisecondsSinceEpoch
        if now >= startedAt &+ limits.removeAfterStart.milliseconds { return .dismissed }
        if let dismissAt, now >= dismissAt { return .dismissed }
        if endedAt != nil || now >= startedAt &+ limits.endAfterStart.milliseconds { return .ended }
        if let staleDate, now >= SafeNumber.milliseconds(seconds: staleDate) { return .stale }
        return .active
    }
}

extension SimulatedActivity {
    /// The sequence numbers of the entries in its timeline.
    public var entries: Range<Int64> {
        firstEntry..<(firstEntry + Int64(timeline.count))
    }

    /// Roughly the memory it takes without its timeline (what ``LiveActivityDevice/Limits/maxBytes`` counts).
    public var headBytes: Int {
        512 + id.utf8.count + (token?.utf8.count ?? 0) + (pushToStartToken?.utf8.count ?? 0) + (bundleID?.utf8.count ?? 0)
            + (attributesType?.utf8.count ?? 0) + (channelID?.utf8.count ?? 0) + (attributes?.estimatedBytes ?? 0)
            + (contentState?.estimatedBytes ?? 0) + (decodedContentState?.estimatedBytes ?? 0) + priority10.count * 8
            + (shownBefore?.estimatedBytes ?? 0) + (shownBeforeDecoded?.estimatedBytes ?? 0)
    }
}

extension SimulatedActivity.TimelineEntry {
    /// Roughly the memory it takes (what ``LiveActivityDevice/Limits/maxTimelineBytes`` counts).
    public var estimatedBytes: Int {
        160 + event.utf8.count + (reason?.utf8.count ?? 0) + (explanation?.utf8.count ?? 0) + (contentState?.estimatedBytes ?? 0)
    }
}
