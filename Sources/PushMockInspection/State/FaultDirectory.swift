public import PushMockCore

/// The fault plan as the inspection port sees it (`/api/v1/faults`).
public protocol FaultDirectory: Sendable {
    /// The rules in force, in order.
    func faults() -> [FaultRule]
    /// Adds a rule from a body in the configuration file's fault format.
    func addFault(json body: [UInt8]) throws(InspectionError) -> FaultRule
    /// Removes rule `id`; false when there is none.
    func removeFault(id: String) -> Bool
    /// Removes every rule; returns how many there were.
    func removeAllFaults() -> Int
}
