/// The Live Activity payload rules (apns.md §9, issue "Live Activities"), on bytes: one pass over the
/// payload's `aps`. Used for `apns-push-type: liveactivity` and for FCM messages with
/// `apns.live_activity_token`.
public enum LiveActivityPayloadRules {
    /// What the rules found.
    public struct Finding: Sendable, Hashable {
        /// The first rule broken, if any.
        public var violation: LiveActivityRule?
        /// Non-fatal findings (recommendations).
        public var diagnostics: [String] = []
        /// `aps.event`, when valid.
        public var event: String?
        /// `aps.timestamp`, when valid.
        public var timestamp: Int64?
    }

    /// Checks the JSON object `payload` (the whole APNs payload) at `now` (seconds).
    public static func check(payload: UnsafeBufferPointer<UInt8>, now: Int64, options: LiveActivityOptions) -> Finding {
        var finding = Finding()
        let scanner = JSONScanner(payload)
        guard let root = scanner.root, let aps = scanner.member("aps", in: root), aps.kind == .object else {
            finding.violation = .missingAPS
            return finding
        }
        func fail(_ rule: LiveActivityRule) -> Finding {
            finding.violation = rule
            return finding
        }
        guard let eventValue = scanner.member("event", in: aps) else { return fail(.missingEvent) }
        guard let event = scanner.string(at: eventValue), ["start", "update", "end"].contains(event) else { return fail(.invalidEvent) }
        finding.event = event
        guard let timestampValue = scanner.member("timestamp", in: aps), timestampValue.kind != .null else { return fail(.missingTimestamp) }
        guard let timestamp = scanner.int64(at: timestampValue) else { return fail(.timestampNotInteger) }
        // Seconds since 1970 have 10 digits until 2286; 13 digits are milliseconds.
        if timestamp > 100_000_000_000 { return fail(.timestampInMilliseconds) }
        if timestamp < now - options.maxAge { return fail(.timestampStale) }
        if timestamp > now + options.maxAhead { return fail(.timestampInFuture) }
        finding.timestamp = timestamp

        let contentState = scanner.member("content-state", in: aps)
        if let contentState, contentState.kind != .object, contentState.kind != .null { return fail(.contentStateNotObject) }
        let hasContentState = contentState.map { $0.kind == .object } ?? false
        switch event {
        case "start":
            guard hasContentState else { return fail(.missingContentState) }
            guard let type = scanner.member("attributes-type", in: aps), type.kind == .string, scanner.string(at: type)?.isEmpty == false else {
                return fail(.missingAttributesType)
            }
            guard let attributes = scanner.member("attributes", in: aps), attributes.kind == .object else { return fail(.missingAttributes) }
            guard let alert = scanner.member("alert", in: aps), alert.kind == .object,
                scanner.member("title", in: alert) != nil, scanner.member("body", in: alert) != nil
            else { return fail(.missingAlert) }
            if let input = scanner.member("input-push-token", in: aps), scanner.int64(at: input) != 1 {
                return fail(.invalidInputPushToken)
            }
        case "update":
            guard hasContentState else { return fail(.missingContentState) }
        default:
            if !hasContentState {
                finding.diagnostics.append("an end without aps.content-state shows the last content; send the final state")
            }
        }
        if event != "start", scanner.member("input-push-token", in: aps) != nil || scanner.member("input-push-channel", in: aps) != nil {
            return fail(.inputPushOnlyOnStart)
        }
        if scanner.member("sound", in: aps) != nil { return fail(.soundOutsideAlert) }
        if let dismissal = scanner.member("dismissal-date", in: aps) {
            guard let seconds = scanner.int64(at: dismissal), seconds < 100_000_000_000 else { return fail(.invalidDismissalDate) }
        }
        if let stale = scanner.member("stale-date", in: aps) {
            guard let seconds = scanner.int64(at: stale), seconds < 100_000_000_000 else { return fail(.invalidStaleDate) }
            if seconds <= timestamp {
                finding.diagnostics.append("aps.stale-date is not later than aps.timestamp: the activity is stale on arrival")
            }
        }
        if let relevance = scanner.member("relevance-score", in: aps), relevance.kind != .number {
            return fail(.invalidRelevanceScore)
        }
        return finding
    }
}
