/// The Live Activity payload rules (apns.md §9, issue "Live Activities") on the payload's `aps`,
/// parsed once. Used for `apns-push-type: liveactivity` and for FCM messages with
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

    /// Checks `payload` (the whole APNs payload, parsed once by the validator that calls this) at
    /// `instant`, with its APNs `headers` for the diagnostics. The same tree then feeds the
    /// simulated device (``LiveActivityPush``).
    public static func check(
        payload: JSONValue, now instant: PushInstant, options: LiveActivityOptions, headers: LiveActivityHeaders = LiveActivityHeaders()
    ) -> Finding {
        // `aps.timestamp` is in seconds.
        let now = instant.secondsSinceEpoch
        var finding = Finding()
        guard let aps = payload["aps"], case .object = aps else {
            finding.violation = .missingAPS
            return finding
        }
        func fail(_ rule: LiveActivityRule) -> Finding {
            finding.violation = rule
            return finding
        }
        guard let eventValue = aps["event"] else { return fail(.missingEvent) }
        guard case .string(let event) = eventValue, ["start", "update", "end"].contains(event) else { return fail(.invalidEvent) }
        finding.event = event
        guard let timestampValue = aps["timestamp"], timestampValue != .null else { return fail(.missingTimestamp) }
        guard let timestamp = timestampValue.int64 else { return fail(.timestampNotInteger) }
        // Seconds since 1970 have 10 digits until 2286; 13 digits are milliseconds.
        if timestamp > 100_000_000_000 { return fail(.timestampInMilliseconds) }
        if timestamp < now &- options.maxAge.wholeSeconds { return fail(.timestampStale) }
        if timestamp > now &+ options.maxAhead.wholeSeconds { return fail(.timestampInFuture) }
        finding.timestamp = timestamp

        let contentState = aps["content-state"]
        var hasContentState = false
        switch contentState {
        case .object?: hasContentState = true
        case .null?, nil: break
        default: return fail(.contentStateNotObject)
        }
        switch event {
        case "start":
            guard hasContentState else { return fail(.missingContentState) }
            guard case .string(let type)? = aps["attributes-type"], !type.isEmpty else { return fail(.missingAttributesType) }
            guard case .object? = aps["attributes"] else { return fail(.missingAttributes) }
            guard let alert = aps["alert"], case .object = alert, alert["title"] != nil, alert["body"] != nil else { return fail(.missingAlert) }
            if let input = aps["input-push-token"], input.int64 != 1 {
                return fail(.invalidInputPushToken)
            }
        case "update":
            guard hasContentState else { return fail(.missingContentState) }
        default:
            if !hasContentState {
                finding.diagnostics.append("an end without aps.content-state shows the last content; send the final state")
            }
        }
        if event != "start", aps["input-push-token"] != nil || aps["input-push-channel"] != nil {
            // Apple documents both keys for starts only; whether a device drops an update that
            // carries one or ignores the key is not documented, hence the setting.
            if options.ignoreInputPushOnUpdate {
                finding.diagnostics.append(
                    "input-push-token and input-push-channel are only read on start; this \(event) carries one, which the device ignores")
            } else {
                return fail(.inputPushOnlyOnStart)
            }
        }
        if aps["sound"] != nil { return fail(.soundOutsideAlert) }
        if let dismissal = aps["dismissal-date"] {
            guard let seconds = dismissal.int64, seconds < 100_000_000_000 else { return fail(.invalidDismissalDate) }
        }
        if let stale = aps["stale-date"] {
            guard let seconds = stale.int64, seconds < 100_000_000_000 else { return fail(.invalidStaleDate) }
            if seconds <= timestamp {
                finding.diagnostics.append("aps.stale-date is not later than aps.timestamp: the activity is stale on arrival")
            }
        }
        if let relevance = aps["relevance-score"] {
            guard case .number = relevance else { return fail(.invalidRelevanceScore) }
        }
        finding.diagnostics += LiveActivityDiagnostics.payload(aps: aps, event: event, headers: headers)
        return finding
    }
}
