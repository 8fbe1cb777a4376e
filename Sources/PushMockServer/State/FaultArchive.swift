import Foundation
import PushMockCore
import PushMockStore

/// Faults in a store that keeps state: the rules as set through the API (`faults` → their JSON,
/// with what each `count` fault had left), and one key per `count` fault a fleet has spent
/// (`fault-spent:<fleet key>`), so that what a fault has left lasts across restarts and reaches
/// the fleet's other instances.
enum FaultArchive {
    /// Saves `plan`'s rules in `archive`, if the store keeps state: after a change through the API,
    /// and after a `count` fault fires.
    static func save(_ plan: FaultPlan, to archive: (any StateArchive)?) {
        guard let archive, let data = try? JSONEncoder().encode(plan.rules) else { return }
        archive.archive(StateKey.faults.key, Array(data))
    }

    /// Tells the fleet (and the next start) that the `count` fault `fleetKey` is spent.
    static func announceSpent(_ fleetKey: String, to archive: (any StateArchive)?) {
        archive?.archive(StateKey.faultSpent(fleetKey: fleetKey).key, [1])
    }

    /// The saved rules `bytes` in place of `plan`'s (an empty value changes nothing).
    static func apply(_ bytes: [UInt8], to plan: FaultPlan, seed: UInt64) throws {
        guard !bytes.isEmpty else { return }
        plan.reset(rules: try JSONDecoder().decode([FaultRule].self, from: Data(bytes)), seed: seed)
    }

    /// The spent `count` faults the store holds, removed from `plan`.
    static func restoreSpent(from archive: any StateArchive, to plan: FaultPlan) throws {
        for key in try archive.archived(prefix: StateKey.Prefix.faultSpent).keys {
            if case .faultSpent(let fleetKey) = StateKey(key) { plan.removeSpent(fleetKey: fleetKey) }
        }
    }
}
