public import PushMockCore

/// A fault rule in the configuration file's and the faults API's format (`GET/PUT /api/v1/faults`).
public struct FaultResource: Codable, Sendable, Equatable {
    public var id: String
    public var match: Match
    /// `upstream`: the rule changes the relay upstream's answer (passthrough mode); absent:
    /// PushMock's own.
    public var target: String?
    public var reject: Rejection?
    public var delayMilliseconds: Int?
    /// A delay drawn for each request.
    public var delay: Delay?
    public var goAway: String?
    public var resetStream: Bool?
    public var count: Int?
    public var probability: Double?
    /// How many requests it has fired for (a `count` rule is removed once spent).
    public var hits: Int?
    /// A sequence rule's steps, one per matching request in turn (its `count` is the steps left).
    public var sequence: [Step]?
    /// For a sequence rule, the index of the step the next matching request gets.
    public var nextStep: Int?

    /// One step of a sequence: one action, or `accept: true` (answered as usual).
    public struct Step: Codable, Sendable, Equatable {
        public var reject: Rejection?
        public var delayMilliseconds: Int?
        public var delay: Delay?
        public var goAway: String?
        public var resetStream: Bool?
        public var accept: Bool?

        init(_ action: FaultRule.Action?) {
            switch action {
            case .reject(let status, let reason, let retryAfter)?: reject = Rejection(status: status, reason: reason, retryAfter: retryAfter)
            case .delay(let milliseconds)?: delayMilliseconds = milliseconds
            case .delayDrawn(let distribution)?: delay = Delay(distribution)
            case .goAway(let reason)?: goAway = reason
            case .resetStream?: resetStream = true
            case nil: accept = true
            }
        }
    }

    /// What the rule matches.
    public struct Match: Codable, Sendable, Equatable {
        public var service: String?
        public var path: String?
        public var token: String?
        public var topic: String?
        public var project: String?
    }

    /// A drawn delay, as the API and the configuration file write it.
    public struct Delay: Codable, Sendable, Equatable {
        /// `uniform`, `normal` or `logNormal`.
        public var distribution: String
        public var minMilliseconds: Int?
        public var maxMilliseconds: Int?
        public var meanMilliseconds: Int?
        public var standardDeviationMilliseconds: Int?
        public var medianMilliseconds: Int?
        public var sigma: Double?

        init(_ distribution: DelayDistribution) {
            switch distribution {
            case .uniform(let low, let high):
                self.distribution = "uniform"
                minMilliseconds = low
                maxMilliseconds = high
            case .normal(let mean, let deviation):
                self.distribution = "normal"
                meanMilliseconds = mean
                standardDeviationMilliseconds = deviation
            case .logNormal(let median, let sigma):
                self.distribution = "logNormal"
                medianMilliseconds = median
                self.sigma = sigma
            }
        }
    }

    /// A forced answer.
    public struct Rejection: Codable, Sendable, Equatable {
        public var status: Int
        public var reason: String
        /// The answer's `Retry-After`, in seconds.
        public var retryAfter: Int?
    }

    /// `rule` as the API shows it.
    public init(_ rule: FaultRule) {
        id = rule.id
        match = Match(
            service: rule.match.service?.rawValue, path: rule.match.path, token: rule.match.token, topic: rule.match.topic,
            project: rule.match.project)
        if let steps = rule.sequence {
            sequence = steps.map(Step.init)
            nextStep = rule.nextStep
        } else {
            let step = Step(rule.action)
            reject = step.reject
            delayMilliseconds = step.delayMilliseconds
            delay = step.delay
            goAway = step.goAway
            resetStream = step.resetStream
        }
        target = rule.target?.rawValue
        count = rule.count
        probability = rule.probability
        hits = rule.hits
    }
}
