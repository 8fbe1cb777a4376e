/// A failure to inject, as data (DESIGN.md: "faults are data"): which requests it matches, what
/// it does, and for how many of them.
///
/// ```swift
/// FaultRule(id: "apns-429", match: .init(service: .apns), action: .reject(status: 429, reason: "TooManyRequests"), count: 1)
/// ```
public struct FaultRule: Sendable, Hashable, Codable {
    /// What a rule matches; every field left `nil` matches anything.
    public struct Match: Sendable, Hashable, Codable {
        /// `apns`, `fcm`, `oauth`, `broadcast`.
        public var service: Delivery.Service?
        /// A path prefix.
        public var path: String?
        /// A device or registration token (case-insensitive).
        public var token: String?
        /// An APNs topic.
        public var topic: String?
        /// An FCM project.
        public var project: String?

        public init(service: Delivery.Service? = nil, path: String? = nil, token: String? = nil, topic: String? = nil, project: String? = nil) {
            self.service = service
            self.path = path
            self.token = token
            self.topic = topic
            self.project = project
        }

        /// Whether a request with these facts matches.
        public func matches(service: Delivery.Service, path: String, token: String?, topic: String?, project: String?) -> Bool {
            if let expected = self.service, expected != service { return false }
            if let prefix = self.path, !path.hasPrefix(prefix) { return false }
            if let expected = self.token, expected.lowercased() != token?.lowercased() { return false }
            if let expected = self.topic, expected != topic { return false }
            if let expected = self.project, expected != project { return false }
            return true
        }
    }

    /// What a rule does to a matching request.
    public enum Action: Sendable, Hashable, Codable {
        /// Answer with this status and reason (APNs `reason`; FCM `errorCode`) instead, with a
        /// `Retry-After` of `retryAfter` seconds when it is set.
        case reject(status: Int, reason: String, retryAfter: Int? = nil)
        /// Answer as usual, this much later.
        case delay(milliseconds: Int)
        /// Answer as usual, later by a delay drawn for each request from the plan's seeded
        /// generator (``FaultPlan/fire(service:path:token:topic:project:claims:)`` turns it into a
        /// ``delay(milliseconds:)``).
        case delayDrawn(DelayDistribution)
        /// Answer as usual, then send GOAWAY with `{"reason":"<reason>"}` and close the connection.
        case goAway(reason: String)
        /// Reset the stream (HTTP/2 RST_STREAM CANCEL; HTTP/1.1 closes the connection).
        case resetStream
    }

    /// Whose answer a rule changes (``target``).
    public enum Target: String, Sendable, Hashable, Codable {
        /// The relay upstream's answer, in passthrough mode: the sender gets Apple's or Google's
        /// real answer, delayed, followed by a GOAWAY, or replaced by a reset.
        case upstream
    }

    /// A name for the rule (recorded on the deliveries it fires for).
    public var id: String
    /// `.upstream`: the rule changes the relay upstream's answer instead of PushMock's own; `nil`:
    /// PushMock's own answer.
    public var target: Target?
    /// A sequence rule's steps, used in turn, one per matching request: an action, or `nil` to
    /// answer as usual. Its ``count`` is the steps left; the rule goes once every step is used.
    /// (``action`` is then the first step that is an action, for what shows only one.)
    public var sequence: [Action?]?
    /// What it matches.
    public var match: Match
    /// What it does.
    public var action: Action
    /// Fire for the next `count` matching requests only; `nil` for all of them.
    public var count: Int?
    /// Fire with this probability (0…1), drawn from the plan's seeded generator; `nil` always.
    public var probability: Double?
    /// How many requests it has fired for so far.
    public var hits = 0
    /// Which addition of the rule this is (a new one each time the API adds it; nil for a rule
    /// from the configuration): with ``id``, what a fleet counts its `count` fires by.
    public var serial: String?

    /// The name its `count` is kept under for a fleet (see ``FaultPlan/countsAcrossFleet``).
    public var fleetKey: String { id + "#" + (serial ?? "configured") }

    public init(id: String, match: Match = Match(), action: Action, count: Int? = nil, probability: Double? = nil) {
        self.id = id
        self.match = match
        self.action = action
        self.count = count
        self.probability = probability
    }

    /// A rule whose answers follow `sequence`, one step per matching request (`nil`: answer as
    /// usual), for a sender's retry path: `[.reject(status: 503, reason: "ServiceUnavailable"),
    /// .reject(status: 429, reason: "TooManyRequests"), nil]`.
    public init(id: String, match: Match = Match(), sequence: [Action?]) {
        self.init(id: id, match: match, action: sequence.lazy.compactMap { $0 }.first ?? .delay(milliseconds: 0), count: sequence.count)
        self.sequence = sequence
    }

    /// The `Retry-After` (seconds) a rejecting action names, if it names one.
    public var retryAfter: Int? {
        if case .reject(_, _, let seconds) = action { return seconds }
        return nil
    }

    /// Why the rule cannot change the upstream's answer, when it targets it (nil when it can):
    /// it keeps that answer, so it may delay it, follow it with a GOAWAY or reset the stream, but
    /// not reject; and it matches APNs or FCM pushes, the ones a relay forwards.
    public var upstreamProblem: String? {
        guard target == .upstream else { return nil }
        let actions = sequence.map { $0.compactMap { $0 } } ?? [action]
        if actions.contains(where: { if case .reject = $0 { true } else { false } }) {
            return
                "a fault on the upstream's answer keeps Apple's or Google's answer: it may delay it (delayMilliseconds, delay), follow it with goAway or resetStream, not reject (leave out target to answer in PushMock's place)"
        }
        guard match.service == .apns || match.service == .fcm else {
            return "a fault on the upstream's answer matches pushes a relay forwards: set match.service to apns or fcm"
        }
        return nil
    }

    /// For a sequence rule, the index of the step the next matching request gets.
    public var nextStep: Int? {
        guard let sequence, let count else { return nil }
        return sequence.count - count
    }
}
