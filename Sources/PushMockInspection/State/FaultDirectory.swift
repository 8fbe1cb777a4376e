public import PushMockCore

/// The fault plan as the inspection port sees it (`/api/v1/faults`).
public protocol FaultDirectory: Sendable {
    /// The rules in force, in order.
    func faults() -> [FaultRule]
    /// Adds `rule` (a new serial: with a fleet's count, a rule added again counts from the start);
    /// the rule as added. A rule this server cannot apply (on the upstream's answer without a
    /// passthrough relay) is refused.
    func addFault(_ rule: FaultRule) throws(InspectionError) -> FaultRule
    /// Removes rule `id`; false when there is none.
    func removeFault(id: String) -> Bool
    /// Removes every rule; returns how many there were.
    func removeAllFaults() -> Int
}
