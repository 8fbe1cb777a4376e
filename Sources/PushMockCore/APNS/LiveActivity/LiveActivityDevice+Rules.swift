/// How a device applies a Live Activity push: the render budget, the rules that make it drop
/// one, what an applied one changes, and the timeline entry it leaves.
extension LiveActivityDevice {
    /// When the device renders an update it applies at `now` to `activity` (and notes that render
    /// in it): at once when the last render is `interval` or more ago, else when the interval
    /// ends; an update that arrives while another waits for that render replaces it.
    func render(_ activity: inout SimulatedActivity, now: Int64, interval: Int64) -> Int64 {
        let rendersAt: Int64
        if let slot = activity.renderSlot, now < slot {
            rendersAt = slot
        } else {
            // What the device shows until this update renders: what it holds now.
            activity.shownBefore = activity.contentState
            activity.shownBeforeDecoded = activity.decodedContentState
            rendersAt = activity.renderSlot.map { max(now, $0 &+ interval) } ?? now
        }
        activity.renderSlot = rendersAt
        return rendersAt
    }

    /// The first device rule an update or end breaks, in the order a device meets them.
    func check(_ push: LiveActivityPush, _ activity: SimulatedActivity, now: Int64, appRunning: Bool) -> LiveActivityDeviceRule? {
        if now >= activity.startedAt &+ limits.removeAfterStart.milliseconds { return .removed }
        if let dismissAt = activity.dismissAt, now >= dismissAt { return .dismissed }
        if activity.endedAt != nil { return .afterEnd }
        if now >= activity.startedAt &+ limits.endAfterStart.milliseconds { return .expired }
        if let last = activity.lastTimestamp, let timestamp = push.timestamp, timestamp <= last { return .olderThanCurrentContent }
        if let budget = limits.priorityBudgetPerHour, push.priority == 10,
            activity.priority10.filter({ $0 > now - 3_600_000 }).count >= budget
        {
            return .priorityBudgetExceeded
        }
        if let budget = limits.backgroundBudget, !appRunning, push.event == "update", (activity.backgroundPriority10 ?? 0) >= budget {
            return .backgroundBudgetSpent
        }
        return nil
    }

    func apply(_ push: LiveActivityPush, to activity: inout SimulatedActivity, now: Int64, appRunning: Bool) {
        if let state = push.contentState {
            activity.contentState = state
            activity.decodedContentState = push.decodedContentState
        }
        if let timestamp = push.timestamp { activity.lastTimestamp = timestamp }
        if let stale = push.staleDate { activity.staleDate = stale }
        if let relevance = push.relevanceScore { activity.relevanceScore = relevance }
        if push.priority == 10 {
            activity.priority10 = activity.priority10.filter { $0 > now - 3_600_000 } + [now]
            if !appRunning, limits.backgroundBudget != nil { activity.backgroundPriority10 = (activity.backgroundPriority10 ?? 0) + 1 }
        }
        if push.event == "end" {
            activity.endedAt = now
            // A past dismissal date removes it at once; none keeps it up to 4 hours.
            activity.dismissAt = push.dismissalDate.map(SafeNumber.milliseconds(seconds:)) ?? now &+ limits.dismissAfterEnd.milliseconds
        }
    }

    func entry(
        _ push: LiveActivityPush, service: Delivery.Service, now: Int64, drop: LiveActivityDeviceRule?
    ) -> SimulatedActivity.TimelineEntry {
        SimulatedActivity.TimelineEntry(
            receivedAt: now, service: service, event: push.event, timestamp: push.timestamp, priority: push.priority,
            applied: drop == nil, reason: drop?.reason, explanation: drop?.explanation, contentState: push.contentState
        )
    }

    /// Forgets the oldest entries of `activity` past ``Limits/maxTimeline`` or
    /// ``Limits/maxTimelineBytes`` (`bytes`: its timeline's, updated), keeping the newest.
    func trimTimeline(_ activity: inout SimulatedActivity, bytes: inout Int) {
        var dropped = 0
        while activity.timeline.count - dropped > 1,
            activity.timeline.count - dropped > limits.maxTimeline || bytes > limits.maxTimelineBytes
        {
            bytes -= activity.timeline[dropped].estimatedBytes
            dropped += 1
        }
        if dropped > 0 {
            activity.timeline.removeFirst(dropped)
            activity.firstEntry += Int64(dropped)
        }
    }
}
