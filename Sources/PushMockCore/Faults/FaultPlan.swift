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
        state.withLock { state in
            let before = state.rules.count
            state.rules.removeAll { $0.id == id }
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

    /// The first rule that fires for a request with these facts; counts down `count` rules and
    /// drops them when spent.
    public func fire(service: Delivery.Service, path: String, token: String?, topic: String?, project: String? = nil) -> FaultRule? {
        guard ruleCount.load(ordering: .relaxed) > 0 else { return nil }
        return state.withLock { state in
            for index in state.rules.indices {
                var rule = state.rules[index]
                guard rule.match.matches(service: service, path: path, token: token, topic: topic, project: project) else { continue }
                if let probability = rule.probability {
                    let draw = Double(state.random.next() >> 11) / Double(1 << 53)
                    guard draw < probability else { continue }
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
