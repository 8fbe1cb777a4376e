import Synchronization

/// A store that also keeps the server's state (devices, faults, simulated activities, broadcast
/// channels) across restarts, as snapshots by key. Saving never blocks: the newest snapshot of
/// each key is written behind, in order. An empty snapshot deletes the key.
public protocol StateArchive: Sendable {
    /// The snapshot saved under `key`, if any.
    func archived(_ key: String) throws -> [UInt8]?
    /// Every snapshot whose key starts with `prefix` (one per activity, say), by key.
    func archived(prefix: String) throws -> [String: [UInt8]]
    /// Saves `value` as the snapshot of `key` (written behind; a newer one replaces one not yet
    /// written); an empty `value` deletes it.
    func archive(_ key: String, _ value: [UInt8])
}

/// A state archive that several PushMocks share (PostgreSQL): a snapshot saved by another instance
/// is handed to `observer`, which applies it.
public protocol SharedStateArchive: StateArchive {
    /// Calls `observer` with each snapshot another instance saves, by key (empty: deleted).
    func observeState(_ observer: @escaping @Sendable (String, [UInt8]) -> Void)
}

/// A store that counts `count` faults for a whole fleet (PostgreSQL): each fire is taken from one
/// counter in the database before the request is answered, and settled after, so that a
/// `count: 3` fault fires 3 times across every instance however close together the pushes arrive.
public protocol FleetFaultCounter: Sendable {
    /// Takes one of the fires left to the fault `key` (which starts with `count` fires the first
    /// time the fleet counts it).
    func claimFire(_ key: String, count: Int) async throws -> FleetFire
    /// Settles a fire taken by ``claimFire(_:count:)``: used, or given back (the request did not
    /// match the fault after all). True when the fault is spent: nothing left, nothing taken.
    func settleFire(_ key: String, used: Bool) async throws -> Bool
    /// Forgets every fault's count (a reset: the configured faults start again).
    func forgetFires() async throws
}

/// What the fleet's counter answered a claim.
public enum FleetFire: Sendable, Hashable {
    /// One fire is the claimer's; `remaining` are left after it.
    case won(remaining: Int)
    /// None is left now; `spent` when none is taken either (none can come back).
    case lost(spent: Bool)
}

/// A store that orders a fleet's pushes to Live Activities (PostgreSQL): a push takes the turn of
/// each activity it reaches, reads their snapshots as the fleet last saved them, is answered, and
/// saves what it changed before the next push to any of them, on any instance, is let in.
public protocol FleetActivityOrder: Sendable {
    /// Waits for the turn of the activities saved under `keys` (one push may reach several: a
    /// broadcast). The turn then holds their snapshots (a key without one is absent) and every
    /// snapshot whose key starts with a prefix of `since` and is not below that prefix's bound:
    /// the entries of an activity's timeline the instance has not read yet.
    func turn(_ keys: [String], since: [String: String]) async throws -> ActivityTurn
}

/// One push's turn at its activities: end it with what the push changed. A turn let go of
/// unfinished (its push was dropped before it was answered: its client left) ends with no changes,
/// so the next push to those activities, on any instance, does not wait for the store's patience.
public final class ActivityTurn: Sendable {
    /// What a push changed, rebased on the snapshots the fleet saved since its turn began (nil:
    /// they cannot be read, and the changes are written behind as they are): the changes to write
    /// (see ``ActivityTurn/finish(_:rebase:)``).
    public typealias Rebase =
        @Sendable (_ changes: [(key: String, value: [UInt8])], _ fleet: [String: [UInt8]]?) -> [(key: String, value: [UInt8])]

    /// The snapshots read for the turn, by key (a key never saved is absent).
    public let snapshots: [String: [UInt8]]
    private let end: @Sendable ([(key: String, value: [UInt8])], Rebase?) -> Bool
    private let ended = Atomic(false)

    /// A turn whose `end` is handed what the push changed, and the rebase for a turn given up; it
    /// answers whether the turn still held the activities (see ``finish(_:rebase:)``).
    public init(snapshots: [String: [UInt8]], end: @escaping @Sendable ([(key: String, value: [UInt8])], Rebase?) -> Bool) {
        self.snapshots = snapshots
        self.end = end
    }

    /// A turn whose `end` is handed what the push changed: for an order that never gives a turn
    /// up, so never rebases.
    public convenience init(snapshots: [String: [UInt8]], end: @escaping @Sendable ([(key: String, value: [UInt8])]) -> Void) {
        self.init(snapshots: snapshots) { changes, _ in
            end(changes)
            return true
        }
    }

    /// Saves `changes` for the fleet, in order (an empty value deletes its key; a key outside the
    /// turn is ignored), then lets the next push in: true.
    ///
    /// False when the turn was given up before its push finished (the store's patience ran out,
    /// or the database failed). It no longer holds the activities: others may have saved them
    /// since, and `changes`, made from the snapshots this turn read, would overwrite what they
    /// saved. The store then takes the activities' turn again, reads their snapshots as the fleet
    /// saved them (the same keys, and every key with one of the turn's prefixes), and writes what
    /// `rebase` makes of `changes` on them. `rebase` is called once, later: with nil when the
    /// database cannot be reached (`changes` are then written behind as they are, unordered but
    /// never dropped). Without `rebase`, `changes` are written as they are.
    @discardableResult
    public func finish(_ changes: [(key: String, value: [UInt8])], rebase: Rebase? = nil) -> Bool {
        ended.store(true, ordering: .releasing)
        return end(changes, rebase)
    }

    deinit {
        if !ended.load(ordering: .acquiring) { _ = end([], nil) }
    }
}

/// What a store can do beyond recording deliveries, found once when the server is assembled and
/// handed to the parts that use it (nothing else asks the store what it is).
public struct StoreCapabilities: Sendable {
    /// Keeps the server's state across restarts (SQLite, PostgreSQL).
    public let archive: (any StateArchive)?
    /// Shares that state with a fleet (PostgreSQL).
    public let sharedArchive: (any SharedStateArchive)?
    /// Counts `count` faults for a fleet (PostgreSQL).
    public let faultCounter: (any FleetFaultCounter)?
    /// Orders a fleet's pushes to Live Activities (PostgreSQL).
    public let activityOrder: (any FleetActivityOrder)?

    /// The capabilities `store` has.
    public init(of store: any DeliveryStore) {
        archive = store as? any StateArchive
        sharedArchive = store as? any SharedStateArchive
        faultCounter = store as? any FleetFaultCounter
        activityOrder = store as? any FleetActivityOrder
    }

    /// The capabilities given (for tests that stand one in without a store that has it).
    package init(
        archive: (any StateArchive)? = nil, sharedArchive: (any SharedStateArchive)? = nil, faultCounter: (any FleetFaultCounter)? = nil,
        activityOrder: (any FleetActivityOrder)? = nil
    ) {
        self.archive = archive
        self.sharedArchive = sharedArchive
        self.faultCounter = faultCounter
        self.activityOrder = activityOrder
    }
}
