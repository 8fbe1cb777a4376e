public import PushMockCore

/// The fault plan as the inspection port sees it (`/api/v1/faults`).
public protocol FaultDirectory: Sendable {
    /// The rules in force, in order.
    func faults() -> [FaultRule]
    /// Adds `rule` (a new serial: with a fleet's count, a rule added again counts from the start);
    /// the rule as added.
    func addFault(_ rule: FaultRule) -> FaultRule
    /// Removes rule `id`; false when there is none.
    func removeFault(id: String) -> Bool
    /// Removes every rule; returns how many there were.
    func removeAllFaults() -> Int
}
