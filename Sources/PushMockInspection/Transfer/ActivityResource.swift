public import PushMockCore

/// A simulated Live Activity (`GET /api/v1/activities[/{token}]`); `attributes` and `timeline`
/// only in the one-activity answer.
public struct ActivityResource: Codable, Sendable, Equatable {
    public var id: String
    @Nullable public var token: String?
    @Nullable public var pushToStartToken: String?
    @Nullable public var bundleId: String?
    @Nullable public var attributesType: String?
    /// `active`, `ended`, `dismissed`, `stale`…
    public var state: String
    /// The content state the device shows.
    @Nullable public var contentState: JSONValue?
    /// The content state as the device decoded it against the declared type, dates as it reads
    /// them (`null` when the type is not declared).
    @Nullable public var decodedContentState: JSONValue?
    /// With a render interval: the update the device applied and shows at `rendersAt`, unless a
    /// later one replaces it first (`null` when none waits).
    @Nullable public var pendingRender: PendingRender?
    @Nullable public var timestamp: Int64?
    @Nullable public var staleDate: Int64?
    @Nullable public var relevanceScore: Double?
    public var startedAt: InspectionTime
    @Nullable public var endedAt: InspectionTime?
    @Nullable public var dismissAt: InspectionTime?
    @Nullable public var channelId: String?
    public var implicit: Bool
    /// Pushes that reached it.
    public var pushes: Int
    /// The attributes it started with (`null` when unknown), in the one-activity answer.
    public var attributes: JSONValue?
    /// Every push that reached it, in the one-activity answer.
    public var timeline: [TimelineEntry]?

    /// An update waiting for the device's next render.
    public struct PendingRender: Codable, Sendable, Equatable {
        @Nullable public var contentState: JSONValue?
        @Nullable public var decodedContentState: JSONValue?
        public var rendersAt: InspectionTime
    }

    /// One push in an activity's timeline.
    public struct TimelineEntry: Codable, Sendable, Equatable {
        @Nullable public var deliveryId: UInt64?
        public var receivedAt: InspectionTime
        public var service: String
        public var event: String
        @Nullable public var timestamp: Int64?
        public var priority: Int
        /// `applied`, `dropped`, or `coalesced` (applied, then replaced by a later update before
        /// the device rendered it: never shown).
        public var deviceOutcome: String
        @Nullable public var reason: String?
        @Nullable public var explanation: String?
        @Nullable public var contentState: JSONValue?
        /// With a render interval: when the device renders it.
        @Nullable public var rendersAt: InspectionTime?

        init(_ entry: SimulatedActivity.TimelineEntry, coalesced: Bool) {
            deliveryId = entry.deliveryID
            receivedAt = InspectionTime(milliseconds: entry.receivedAt)
            service = entry.service.rawValue
            event = entry.event
            timestamp = entry.timestamp
            priority = entry.priority
            deviceOutcome = !entry.applied ? "dropped" : coalesced ? "coalesced" : "applied"
            reason = entry.reason
            explanation = entry.explanation
            if coalesced {
                reason = "LiveActivityCoalesced"
                explanation = "a later update arrived before the device rendered this one and replaced it: it was never shown"
            }
            contentState = entry.contentState
            rendersAt = entry.rendersAt.map(InspectionTime.init(milliseconds:))
        }

        /// `timeline`'s entries, each applied one marked coalesced when a later applied one has
        /// its render time.
        static func all(_ timeline: [SimulatedActivity.TimelineEntry]) -> [TimelineEntry] {
            var laterSlots = Set<Int64>()
            var entries: [TimelineEntry] = []
            entries.reserveCapacity(timeline.count)
            for entry in timeline.reversed() {
                var coalesced = false
                if entry.applied, let slot = entry.rendersAt {
                    coalesced = !laterSlots.insert(slot).inserted
                }
                entries.append(TimelineEntry(entry, coalesced: coalesced))
            }
            return entries.reversed()
        }
    }

    /// `activity` in `state`, showing `shown`; `detailed` adds its attributes and timeline.
    public init(_ activity: SimulatedActivity, state: SimulatedActivity.State, shown: SimulatedActivity.Shown, detailed: Bool = false) {
        id = activity.id
        token = activity.token
        pushToStartToken = activity.pushToStartToken
        bundleId = activity.bundleID
        attributesType = activity.attributesType
        self.state = state.rawValue
        contentState = shown.contentState
        decodedContentState = shown.decodedContentState
        pendingRender = shown.pending.map {
            PendingRender(
                contentState: $0.contentState, decodedContentState: $0.decodedContentState, rendersAt: InspectionTime(milliseconds: $0.rendersAt))
        }
        timestamp = activity.lastTimestamp
        staleDate = activity.staleDate
        relevanceScore = activity.relevanceScore
        startedAt = InspectionTime(milliseconds: activity.startedAt)
        endedAt = activity.endedAt.map(InspectionTime.init(milliseconds:))
        dismissAt = activity.dismissAt.map(InspectionTime.init(milliseconds:))
        channelId = activity.channelID
        implicit = activity.implicit
        pushes = activity.timeline.count
        if detailed {
            attributes = activity.attributes ?? .null
            timeline = TimelineEntry.all(activity.timeline)
        }
    }
}
