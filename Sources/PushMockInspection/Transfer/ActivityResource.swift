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
    @Nullable public var contentState: JSONValue?
    /// The content state as the device decoded it against the declared type, dates as it reads
    /// them (`null` when the type is not declared).
    @Nullable public var decodedContentState: JSONValue?
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

    /// One push in an activity's timeline.
    public struct TimelineEntry: Codable, Sendable, Equatable {
        @Nullable public var deliveryId: UInt64?
        public var receivedAt: InspectionTime
        public var service: String
        public var event: String
        @Nullable public var timestamp: Int64?
        public var priority: Int
        /// `applied` or `dropped`.
        public var deviceOutcome: String
        @Nullable public var reason: String?
        @Nullable public var explanation: String?
        @Nullable public var contentState: JSONValue?

        init(_ entry: SimulatedActivity.TimelineEntry) {
            deliveryId = entry.deliveryID
            receivedAt = InspectionTime(milliseconds: entry.receivedAt)
            service = entry.service.rawValue
            event = entry.event
            timestamp = entry.timestamp
            priority = entry.priority
            deviceOutcome = entry.applied ? "applied" : "dropped"
            reason = entry.reason
            explanation = entry.explanation
            contentState = entry.contentState
        }
    }

    /// `activity` as seen at `now` (milliseconds); `detailed` adds its attributes and timeline.
    public init(_ activity: SimulatedActivity, state: SimulatedActivity.State, detailed: Bool = false) {
        id = activity.id
        token = activity.token
        pushToStartToken = activity.pushToStartToken
        bundleId = activity.bundleID
        attributesType = activity.attributesType
        self.state = state.rawValue
        contentState = activity.contentState
        decodedContentState = activity.decodedContentState
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
            timeline = activity.timeline.map(TimelineEntry.init)
        }
    }
}
