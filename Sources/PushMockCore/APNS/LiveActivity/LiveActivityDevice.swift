/// The device side of Live Activities, simulated (apns.md §9; DESIGN.md "Outcomes"): activities
/// keyed by token, what a device applies and what it drops, push-to-start with issued tokens, and
/// broadcast channel fan-out. A pure value: time comes in as an argument, so tests can jump 8 hours.
///
/// ```swift
/// var device = LiveActivityDevice(limits: .init(), seed: 1)
/// let started = device.receive(startPush, token: pushToStartToken, kind: nil, bundleID: "com.example.app", service: .apns, now: t)
/// let update = device.receive(updatePush, token: started.issuedToken!, kind: nil, bundleID: "com.example.app", service: .apns, now: t.advanced(by: .seconds(1)))
/// ```
public struct LiveActivityDevice: Sendable {
    /// Device-side limits (apns.md §9), configurable.
    public struct Limits: Sendable, Hashable {
        /// An activity ends this long after its start (8 h).
        public var endAfterStart: Duration = .hours(8)
        /// And is removed this long after its start (12 h).
        public var removeAfterStart: Duration = .hours(12)
        /// An ended activity without `dismissal-date` stays this long (4 h).
        public var dismissAfterEnd: Duration = .hours(4)
        /// Priority-10 updates allowed per hour per activity; `nil` (the default) never throttles,
        /// because Apple does not publish the budget.
        public var priorityBudgetPerHour: Int?
        /// Push-to-start creations a device accepts through one push-to-start token within
        /// ``pushToStartWindow``; past it the start is dropped ("rejected creation because the
        /// push-to-start budget was exhausted"). `nil` (the default): no budget; Apple publishes none.
        public var pushToStartBudget: Int?
        /// The window ``pushToStartBudget`` counts starts in (1 hour).
        public var pushToStartWindow: Duration = .hours(1)
        /// Priority-10 updates an activity takes while its app is not running; past them the device
        /// applies no update to it until the app runs again. `nil` (the default): no such budget.
        /// Whether an app runs is the device registry's `appRunning` for the activity's token
        /// (unknown: not running).
        public var backgroundBudget: Int?
        /// The shortest time between two renders of one activity: an update sooner after the
        /// last render is shown when the interval ends, unless a later update replaces it first
        /// (coalesced: only the last is shown). `nil` (the default): every update renders at once.
        public var renderInterval: Duration?
        /// Activities kept; the oldest are forgotten first.
        public var maxActivities = 10_000
        /// Timeline entries kept per activity.
        public var maxTimeline = 1000
        /// Estimated bytes of one activity's timeline (``SimulatedActivity/TimelineEntry/estimatedBytes``):
        /// past it, its oldest entries are forgotten (the newest is always kept).
        public var maxTimelineBytes = 1 << 20
        /// Estimated bytes of every activity together: past it, the oldest activities are forgotten.
        public var maxBytes = 256 << 20

        public init() {}
    }

    /// What happened to one push on one activity.
    public struct Outcome: Sendable, Hashable {
        /// The activity it reached (nil when dropped before reaching one).
        public var activityID: String?
        /// Why the device dropped it, if it did.
        public var drop: LiveActivityDeviceRule?
        /// A payload-rule drop (the `apple` profile) passed in.
        public var payloadDrop: LiveActivityRule?
        /// The activity push token issued by a start with `input-push-token: 1`.
        public var issuedToken: String?
        /// What the device did that the sender may not have meant (``LiveActivityDiagnostics``).
        public var diagnostics: [String] = []
        /// Index of its timeline entry.
        var entry: Int?

        /// The reason recorded on the delivery when dropped.
        public var dropReason: String? { payloadDrop?.reason ?? drop?.reason }
    }

    public let limits: Limits
    /// Activities by id.
    public private(set) var activities: [String: SimulatedActivity] = [:]
    private var order: [String] = []
    private var orderStart = 0
    private var ids: IDGenerator
    private var localCount = 0
    /// Names this device's local activities (`local-<prefix>-<n>`), so that the activities of a
    /// fleet's instances never share an id.
    private let localPrefix: String
    /// Activities forgotten to stay within `maxActivities` since ``takeEvicted()`` was last called
    /// (kept only when ``keepsEvictions``).
    private var evicted: [String] = []
    /// Whether the ids of forgotten activities are kept for ``takeEvicted()`` (a store deletes
    /// them). Off, nothing is kept: updates to ever new tokens cost nothing once evicted.
    public var keepsEvictions = true
    /// Each activity's estimated bytes: its head and its timeline (``Limits/maxBytes``).
    private var sizes: [String: (head: Int, timeline: Int)] = [:]
    /// The estimated bytes of every activity together.
    public private(set) var totalBytes = 0
    /// The push-to-start tokens starts were sent to: an update to one reaches no activity.
    private var pushToStartTokens: Set<String> = []

    /// A device with `limits`; `seed` fixes the issued tokens.
    public init(limits: Limits = Limits(), seed: UInt64? = nil) {
        self.limits = limits
        self.ids = seed.map(IDGenerator.init(seed:)) ?? IDGenerator()
        // Its own generator, so that the issued tokens of a seed stay what they were.
        var prefixes = seed.map { IDGenerator(seed: $0 &+ 0x10CA1) } ?? IDGenerator()
        let hex = String(prefixes.next() & 0xFF_FFFF, radix: 16)
        localPrefix = String(repeating: "0", count: 6 - hex.count) + hex
    }

    /// The activity with push token or id `key`.
    public func activity(_ key: String) -> SimulatedActivity? {
        activities[key.lowercased()] ?? activities[key]
    }

    /// Puts `activity` in place of the one with its id (or adds it): an activity a store kept, or
    /// one another instance of a fleet changed.
    public mutating func adopt(_ activity: SimulatedActivity) {
        insert(activity)
        let ownLocal = "local-\(localPrefix)-"
        if activity.id.hasPrefix(ownLocal), let number = Int(activity.id.dropFirst(ownLocal.count)) { localCount = max(localCount, number) }
    }

    /// Forgets the activity `id` (another instance of a fleet forgot it).
    public mutating func forget(_ id: String) {
        activities[id] = nil
        setSize(id, nil)
    }

    /// The ids of the activities forgotten to stay within `maxActivities` since the last call.
    public mutating func takeEvicted() -> [String] {
        defer { evicted = [] }
        return evicted
    }

    /// Forgets every activity.
    public mutating func removeAll() {
        activities = [:]
        order = []
        orderStart = 0
        sizes = [:]
        totalBytes = 0
        pushToStartTokens = []
    }

    /// A Live Activity push to `token` (the path's device token, or FCM's `live_activity_token`)
    /// that APNs accepted. `payloadDrop` is a payload rule the `apple` profile let through: the
    /// device drops the push, and it is recorded on the timeline. `channelKnown` is false when a
    /// start's `input-push-channel` names no channel the app has: the start fails on the device.
    public mutating func receive(
        _ push: LiveActivityPush, token: String, kind: LiveActivityTokenKind?, bundleID: String?, service: Delivery.Service, now instant: PushInstant,
        payloadDrop: LiveActivityRule? = nil, channelKnown: Bool = true, appRunning: Bool = false
    ) -> Outcome {
        // The device's timeline is in milliseconds.
        let now = instant.millisecondsSinceEpoch
        let key = token.lowercased()
        if push.event == "start" {
            if kind == .activity { return Outcome(drop: .startToActivityToken) }
            if case .pushToStart(let type?) = kind, push.attributesType != type { return Outcome(drop: .attributesTypeMismatch) }
            if let payloadDrop { return Outcome(payloadDrop: payloadDrop) }
            if push.inputPushChannel != nil, !channelKnown { return Outcome(drop: .unknownInputPushChannel) }
            if let budget = limits.pushToStartBudget, startsWithinWindow(through: key, now: now) >= budget {
                return Outcome(drop: .pushToStartBudgetExhausted)
            }
            return start(push, pushToStartToken: key, bundleID: bundleID, service: service, now: now)
        }
        if case .pushToStart = kind { return Outcome(drop: .updateToPushToStartToken) }
        // A token a start was sent to is a push-to-start token, whatever the registry says.
        if kind == nil, activities[key] == nil, pushToStartTokens.contains(key) { return Outcome(drop: .updateToPushToStartToken) }
        if activities[key] == nil {
            // An activity started elsewhere (or before PushMock ran): the device has it.
            insert(SimulatedActivity(id: key, token: key, bundleID: bundleID, startedAt: now, implicit: true))
        }
        return deliver(push, to: key, service: service, now: now, payloadDrop: payloadDrop, appRunning: appRunning)
    }

    /// A broadcast update or end on `channelID`: reaches every activity of `bundleID` that joined
    /// the channel, oldest first.
    /// `appRunning` says whether the app of the activity with an id runs (the device registry's
    /// `appRunning` for its token).
    public mutating func broadcast(
        _ push: LiveActivityPush, channelID: String, bundleID: String, now instant: PushInstant, appRunning: (String) -> Bool = { _ in false }
    ) -> [Outcome] {
        let now = instant.millisecondsSinceEpoch
        let subscribed = activities.values.filter { $0.channelID == channelID && ($0.bundleID == nil || $0.bundleID == bundleID) }
            .sorted { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }
        return subscribed.map { deliver(push, to: $0.id, service: .broadcast, now: now, payloadDrop: nil, appRunning: appRunning($0.id)) }
    }

    /// Links a timeline entry to the delivery recorded for it.
    public mutating func attach(deliveryID: UInt64, to outcome: Outcome) {
        guard let id = outcome.activityID, let entry = outcome.entry, var activity = activities[id], entry < activity.timeline.count else { return }
        activity.timeline[entry].deliveryID = deliveryID
        activities[id] = activity
    }

    // MARK: Rules

    private mutating func start(
        _ push: LiveActivityPush, pushToStartToken: String, bundleID: String?, service: Delivery.Service, now: Int64
    ) -> Outcome {
        var diagnostics: [String] = []
        if push.collapseID == nil, let type = push.attributesType,
            let running = running(type, attributes: push.attributes, pushToStartToken: pushToStartToken)
        {
            diagnostics.append(LiveActivityDiagnostics.secondStart(type: type, running: running))
        }
        var issued: String?
        let id: String
        if push.inputPushToken {
            let token = nextToken()
            issued = token
            id = token
        } else {
            localCount += 1
            id = "local-\(localPrefix)-\(localCount)"
        }
        var activity = SimulatedActivity(
            id: id, token: issued, pushToStartToken: pushToStartToken, bundleID: bundleID, attributesType: push.attributesType,
            attributes: push.attributes, contentState: push.contentState, lastTimestamp: push.timestamp, staleDate: push.staleDate,
            relevanceScore: push.relevanceScore, startedAt: now, channelID: push.inputPushChannel, implicit: false
        )
        activity.decodedContentState = push.decodedContentState
        var first = entry(push, service: service, now: now, drop: nil)
        if limits.renderInterval != nil {
            activity.renderSlot = now
            first.rendersAt = now
        }
        activity.timeline.append(first)
        insert(activity)
        return Outcome(activityID: id, issuedToken: issued, diagnostics: diagnostics, entry: 0)
    }

    /// The id of an activity started through `pushToStartToken` as `type` with `attributes` that
    /// has not ended, if there is one (the newest).
    private func running(_ type: String, attributes: JSONValue?, pushToStartToken: String) -> String? {
        var found: SimulatedActivity?
        for activity in activities.values
        where activity.pushToStartToken == pushToStartToken && activity.attributesType == type && activity.endedAt == nil {
            guard let attributes, let theirs = activity.attributes, LiveActivityDiagnostics.sameContent(attributes, theirs) else { continue }
            if found.map({ ($0.startedAt, $0.id) < (activity.startedAt, activity.id) }) ?? true { found = activity }
        }
        return found?.id
    }

    private mutating func deliver(
        _ push: LiveActivityPush, to id: String, service: Delivery.Service, now: Int64, payloadDrop: LiveActivityRule?, appRunning: Bool
    ) -> Outcome {
        guard var activity = activities[id] else { return Outcome() }
        var drop: LiveActivityDeviceRule?
        var diagnostics: [String] = []
        // A running app refills the budget of updates it has while not running.
        if appRunning, activity.backgroundPriority10 != nil { activity.backgroundPriority10 = nil }
        if payloadDrop == nil {
            drop = check(push, activity, now: now, appRunning: appRunning)
        }
        if payloadDrop == nil, drop == nil, push.event == "update", let state = push.contentState, let shown = activity.contentState,
            LiveActivityDiagnostics.sameContent(state, shown)
        {
            diagnostics.append(LiveActivityDiagnostics.unchangedContent)
        }
        var rendersAt: Int64?
        if payloadDrop == nil, drop == nil {
            // (Its render first: what the device showed before it is kept until then.)
            if let interval = limits.renderInterval?.milliseconds {
                let slot = render(&activity, now: now, interval: interval)
                rendersAt = slot
                if slot > now { diagnostics.append(LiveActivityDiagnostics.heldForRender(after: now, until: slot, interval: interval)) }
            }
            apply(push, to: &activity, now: now, appRunning: appRunning)
        }
        var recorded = entry(push, service: service, now: now, drop: drop)
        recorded.rendersAt = rendersAt
        if let payloadDrop {
            recorded.applied = false
            recorded.reason = payloadDrop.reason
            recorded.explanation = payloadDrop.explanation
        }
        activity.timeline.append(recorded)
        var timelineBytes = (sizes[id]?.timeline ?? 0) + recorded.estimatedBytes
        trimTimeline(&activity, bytes: &timelineBytes)
        let index = activity.timeline.count - 1
        activities[id] = activity
        setSize(id, (activity.headBytes, timelineBytes))
        evictOverLimits()
        return Outcome(activityID: id, drop: drop, payloadDrop: payloadDrop, diagnostics: diagnostics, entry: index)
    }

    /// Starts through push-to-start token `key` within ``Limits/pushToStartWindow`` before `now`
    /// (the activities it started that the device still holds).
    private func startsWithinWindow(through key: String, now: Int64) -> Int {
        let since = now &- limits.pushToStartWindow.milliseconds
        return activities.values.reduce(0) { count, activity in
            count + (activity.pushToStartToken == key && !activity.implicit && activity.startedAt > since ? 1 : 0)
        }
    }

    /// Records the estimated bytes of the activity `id` (nil: it is gone).
    private mutating func setSize(_ id: String, _ size: (head: Int, timeline: Int)?) {
        let old = sizes[id].map { $0.head + $0.timeline } ?? 0
        sizes[id] = size
        totalBytes += (size.map { $0.head + $0.timeline } ?? 0) - old
    }

    /// Forgets the oldest activities while there are more than ``Limits/maxActivities`` or they
    /// take more than ``Limits/maxBytes`` (the newest is always kept).
    private mutating func evictOverLimits() {
        while activities.count > limits.maxActivities || (totalBytes > limits.maxBytes && activities.count > 1), orderStart < order.count {
            let id = order[orderStart]
            if activities.removeValue(forKey: id) != nil {
                if keepsEvictions { evicted.append(id) }
                setSize(id, nil)
            }
            orderStart += 1
        }
    }

    private mutating func insert(_ activity: SimulatedActivity) {
        var activity = activity
        if activities[activity.id] == nil {
            order.append(activity.id)
        }
        if let token = activity.pushToStartToken {
            pushToStartTokens.insert(token)
            // Bounded: past four per kept activity, only the kept activities' tokens stay.
            if pushToStartTokens.count > 4 * limits.maxActivities {
                pushToStartTokens = Set(activities.values.compactMap(\.pushToStartToken) + [token])
            }
        }
        var timelineBytes = activity.timeline.reduce(0) { $0 + $1.estimatedBytes }
        trimTimeline(&activity, bytes: &timelineBytes)
        activities[activity.id] = activity
        setSize(activity.id, (activity.headBytes, timelineBytes))
        evictOverLimits()
        if orderStart > 4096, orderStart * 2 > order.count {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }

    /// A new 80-byte (160 hex) activity push token.
    private mutating func nextToken() -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160)
        for _ in 0..<10 {
            var word = ids.next()
            for _ in 0..<8 {
                let byte = UInt8(truncatingIfNeeded: word)
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0xF)])
                word >>= 8
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
