import Synchronization

/// The faults in force, shared by every connection. Requests cost one atomic load while the plan
/// is empty. Probabilities come from a seeded generator, so runs are repeatable.
public final class FaultPlan: Sendable {
    private struct State {
        var rules: [FaultRule]
        var random: IDGenerator
    }

    private let state: Mutex<State>
    private let ruleCount = Atomic<Int>(0)
    private let fleet = Atomic<Bool>(false)

    /// Whether `count` rules are counted for a fleet (a PostgreSQL store): each fire must then be
    /// claimed from the shared counter before the request is answered (``claimable(service:path:)``,
    /// ``FaultClaims``), and a rule never fires on what this instance alone has seen.
    public var countsAcrossFleet: Bool {
        get { fleet.load(ordering: .relaxed) }
        set { fleet.store(newValue, ordering: .relaxed) }
    }

    /// Creates a plan with `rules` and a seed for probabilities.
    public init(rules: [FaultRule] = [], seed: UInt64 = 0) {
        state = Mutex(State(rules: rules, random: IDGenerator(seed: seed)))
        ruleCount.store(rules.count, ordering: .relaxed)
    }

    /// The rules in force, in matching order.
    public var rules: [FaultRule] { state.withLock { $0.rules } }

    /// Adds a rule (replacing one with the same id), returning it.
    @discardableResult
    public func add(_ rule: FaultRule) -> FaultRule {
        state.withLock { state in
            state.rules.removeAll { $0.id == rule.id }
            state.rules.append(rule)
            ruleCount.store(state.rules.count, ordering: .relaxed)
        }
        return rule
    }

    /// Removes the rule with `id`; returns whether it existed.
    @discardableResult
    public func remove(id: String) -> Bool {
        removeAll { $0.id == id }
    }

    /// Removes the `count` rule the fleet has spent (by ``FaultRule/fleetKey``); whether it was here.
    @discardableResult
    public func removeSpent(fleetKey: String) -> Bool {
        removeAll { $0.fleetKey == fleetKey }
    }

    private func removeAll(where doomed: (FaultRule) -> Bool) -> Bool {
        state.withLock { state in
            let before = state.rules.count
            state.rules.removeAll(where: doomed)
            ruleCount.store(state.rules.count, ordering: .relaxed)
            return state.rules.count != before
        }
    }

    /// Removes every rule and reseeds.
    public func reset(rules: [FaultRule] = [], seed: UInt64 = 0) {
        state.withLock { state in
            state.rules = rules
            state.random = IDGenerator(seed: seed)
            ruleCount.store(rules.count, ordering: .relaxed)
        }
    }

    /// With a fleet's count: the `count` rules that may fire for a request of `service` to `path`
    /// (its token, topic and project are not known yet), whose fires are claimed before it is
    /// answered. Empty (one atomic load) while there are no rules.
    /// A `token`, `topic` or `project` already known (APNs: the path's token and `apns-topic`;
    /// FCM: `message.token` and the path's project) narrows them, so that a fire is rarely taken
    /// for a push that gives it back.
    public func claimable(service: Delivery.Service, path: String, token: String? = nil, topic: String? = nil, project: String? = nil) -> [FaultRule]
    {
        guard ruleCount.load(ordering: .relaxed) > 0, countsAcrossFleet else { return [] }
        return state.withLock { state in
            state.rules.filter { rule in
                guard rule.count != nil, rule.match.service == nil || rule.match.service == service,
                    rule.match.path.map({ path.hasPrefix($0) }) != false
                else {
                    return false
                }
                if let expected = rule.match.token, let token, expected.lowercased() != token.lowercased() { return false }
                if let expected = rule.match.topic, let topic, expected != topic { return false }
                if let expected = rule.match.project, let project, expected != project { return false }
                return true
            }
        }
    }

    /// Whether no rule is set (one atomic load): a request then fires none.
    public var isEmpty: Bool { ruleCount.load(ordering: .relaxed) == 0 }

    /// The first rule that fires for a request with these facts; counts down `count` rules and
    /// drops them when spent. With a fleet's count a `count` rule fires only on a fire claimed
    /// for this request in `claims` (one the fleet had no more of drops the rule here too).
    /// A sequence rule gives its next step: the rule with that step as its action, or nil for a
    /// step that answers as usual (the step is used all the same).
    public func fire(
        service: Delivery.Service, path: String, token: String?, topic: String?, project: String? = nil, claims: FaultClaims? = nil
    ) -> FaultRule? {
        guard var rule = firing(service: service, path: path, token: token, topic: topic, project: project, claims: claims) else { return nil }
        if let sequence = rule.sequence, let remaining = rule.count {
            // `count` is what was left before this fire (the fleet's counter gives what is left
            // after it): the step is the one at sequence.count - that.
            let step = sequence.count - remaining
            guard sequence.indices.contains(step), let action = sequence[step] else { return nil }
            rule.action = action
        }
        if case .delayDrawn(let distribution) = rule.action {
            // Drawn as the request is answered, in the order requests fire, from the seeded generator.
            rule.action = .delay(milliseconds: state.withLock { distribution.draw(&$0.random) })
        }
        return rule
    }

    private func firing(
        service: Delivery.Service, path: String, token: String?, topic: String?, project: String? = nil, claims: FaultClaims? = nil
    ) -> FaultRule? {
        guard ruleCount.load(ordering: .relaxed) > 0 else { return nil }
        let fleet = countsAcrossFleet
        return state.withLock { state in
            var index = state.rules.startIndex
            while index < state.rules.endIndex {
                var rule = state.rules[index]
                guard rule.match.matches(service: service, path: path, token: token, topic: topic, project: project) else {
                    index += 1
                    continue
                }
                if let probability = rule.probability {
                    let draw = Double(state.random.next() >> 11) / Double(1 << 53)
                    guard draw < probability else {
                        index += 1
                        continue
                    }
                }
                if fleet, rule.count != nil {
                    switch claims?.claim(for: rule.fleetKey) {
                    case .won(let remaining)?:
                        // Kept at 0 until the fleet's counter says it is spent (a fire taken
                        // elsewhere may yet be given back).
                        claims?.use(rule.fleetKey)
                        rule.hits += 1
                        state.rules[index].hits = rule.hits
                        state.rules[index].count = max(0, remaining)
                        rule.count = max(0, remaining) + 1  // (what was left before this fire)
                        return rule
                    case .lost(let spent)?:
                        if spent {
                            // The fleet has fired it `count` times: gone here too.
                            claims?.noteSpent(rule.fleetKey)
                            state.rules.remove(at: index)
                            ruleCount.store(state.rules.count, ordering: .relaxed)
                        } else {
                            index += 1
                        }
                        continue
                    case nil:
                        // Not claimed for this request: it does not fire.
                        index += 1
                        continue
                    case .unavailable?:
                        break  // the counter cannot be reached: counted here, as without a fleet
                    }
                }
                rule.hits += 1
                if let count = rule.count, count <= 1 {
                    state.rules.remove(at: index)
                    ruleCount.store(state.rules.count, ordering: .relaxed)
                } else {
                    state.rules[index].hits = rule.hits
                    if let count = rule.count { state.rules[index].count = count - 1 }
                }
                return rule
            }
            return nil
        }
    }
}

/// The fires of a fleet's `count` faults taken for one request before it is answered (see
/// ``FaultPlan/claimable(service:path:)``), and which of them it used.
public final class FaultClaims: Sendable {
    /// What the fleet's counter said for one rule.
    public enum Claim: Sendable, Hashable {
        /// One fire is this request's; `remaining` are left after it.
        case won(remaining: Int)
        /// None was left; `spent` when none was taken either, so none can come back.
        case lost(spent: Bool)
        /// The counter did not answer: the rule is counted by this instance alone.
        case unavailable
    }

    private let claims: [String: Claim]
    private let used = Mutex<Set<String>>([])

    /// Claims by rule (``FaultRule/fleetKey``).
    public init(_ claims: [String: Claim]) {
        self.claims = claims
    }

    func claim(for key: String) -> Claim? { claims[key] }

    func use(_ key: String) { _ = used.withLock { $0.insert(key) } }

    private let spentKeys = Mutex<[String]>([])

    func noteSpent(_ key: String) { spentKeys.withLock { $0.append(key) } }

    /// Rules the fleet's counter said are spent (removed here; to be removed everywhere).
    public var spent: [String] { spentKeys.withLock { $0 } }

    /// The fires won, each with whether the request used it (an unused one is given back).
    public var won: [(key: String, used: Bool)] {
        let used = used.withLock { $0 }
        return claims.compactMap { key, claim in
            if case .won = claim { return (key, used.contains(key)) }
            return nil
        }
    }
}
