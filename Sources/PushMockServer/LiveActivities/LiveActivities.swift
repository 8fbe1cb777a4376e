import Foundation
import PushMockCore
import PushMockStore
import Synchronization

/// The simulated devices' Live Activities, shared by the APNs, FCM and broadcast endpoints and
/// the inspection API (`/api/v1/activities`). A `Mutex` around the pure ``LiveActivityDevice``;
/// only Live Activity pushes take it.
///
/// With a store that keeps state (SQLite, PostgreSQL) every activity a push changes is saved
/// within ``saveWindow``, once per window however many pushes it got: its head and the entries of
/// its timeline that are new (``ActivityLedger``), encoded and handed to the store under the same
/// lock as the changes, so that one activity's are saved in the order of its pushes. A fleet's
/// other instances adopt them.
final class LiveActivities: Sendable {
    static let keyPrefix = ActivityLedger.headPrefix
    private let device: Mutex<LiveActivityDevice>
    /// What the store holds (taken inside `device`'s lock).
    private let ledger = Mutex(ActivityLedger())
    private let archive: (any StateArchive)?
    /// Activities changed since the last save, whether a save is scheduled, and the activities in
    /// a fleet-wide turn (``ActivityTurns``), which the turn saves itself: a batched save of this
    /// instance's copy could otherwise land after a newer one another instance saved in its turn.
    /// (How many of this instance's pushes hold each one's turn: a turn given up before its push
    /// finished lets another push in.)
    /// What the fleet saved of an activity while this instance held its turn waits in `deferred`
    /// until the turn ends: applied at once, an entry could take the place of the push's own
    /// unsaved one, and the push would then save without it.
    private let changed = Mutex<(ids: Set<String>, scheduled: Bool, inTurn: [String: Int], deferred: [String: [(key: String, value: [UInt8])]])>(
        ([], false, [:], [:]))
    /// How long changes gather before they are saved (what a fleet's other instances wait, at most,
    /// beyond the store's write).
    static let saveWindow: Duration = .milliseconds(5)
    let devices: DeviceRegistry
    let limits: LiveActivityDevice.Limits
    /// Declared activity types: a started activity's token is bound to its type, so that its
    /// updates are checked against it.
    let types: ActivityTypeRegistry
    private let seed: UInt64?
    /// The broadcast channels a start's `input-push-channel` must name.
    let channels: BroadcastChannelStore?

    init(
        limits: LiveActivityDevice.Limits, devices: DeviceRegistry, types: ActivityTypeRegistry, seed: UInt64?, archive: (any StateArchive)? = nil,
        channels: BroadcastChannelStore? = nil
    ) {
        self.channels = channels
        self.types = types
        self.archive = archive
        var device = LiveActivityDevice(limits: limits, seed: seed)
        // Without a store nothing takes the evicted ids: keeping them grew without bound.
        device.keepsEvictions = archive != nil
        self.device = Mutex(device)
        self.devices = devices
        self.limits = limits
        self.seed = seed
    }

    /// An accepted Live Activity push to `token`, as its validator read it (nil when the payload
    /// carries no `aps.event`: a payload rule already said why).
    func receive(
        _ push: LiveActivityPush?, token: String, bundleID: String?, service: Delivery.Service, now: PushInstant, payloadDrop: LiveActivityRule?,
        environment: APNSEnvironment? = nil
    ) -> LiveActivityDevice.Outcome? {
        guard let push else { return nil }
        let (kind, appRunning, channelKnown) = circumstances(of: push, token: token, bundleID: bundleID, environment: environment)
        let outcome = device.withLock {
            $0.receive(
                push, token: token, kind: kind, bundleID: bundleID, service: service, now: now, payloadDrop: payloadDrop, channelKnown: channelKnown,
                appRunning: appRunning)
        }
        markChanged(outcome.activityID.map { [$0] } ?? [])
        if let issued = outcome.issuedToken, let type = push.attributesType {
            types.bind(activityToken: issued, to: type)
        }
        return outcome
    }

    /// What ``receive(_:token:bundleID:service:now:payloadDrop:environment:)`` would do, on a copy
    /// of the device: nothing changes, nothing is saved (a check of a push, not a push).
    func preview(
        _ push: LiveActivityPush?, token: String, bundleID: String?, service: Delivery.Service, now: PushInstant, payloadDrop: LiveActivityRule?,
        environment: APNSEnvironment? = nil
    ) -> LiveActivityDevice.Outcome? {
        guard let push else { return nil }
        let (kind, appRunning, channelKnown) = circumstances(of: push, token: token, bundleID: bundleID, environment: environment)
        var copy = device.withLock { $0 }
        return copy.receive(
            push, token: token, kind: kind, bundleID: bundleID, service: service, now: now, payloadDrop: payloadDrop, channelKnown: channelKnown,
            appRunning: appRunning)
    }

    /// What the device registry says of `token`, and whether a start's broadcast channel exists.
    private func circumstances(
        of push: LiveActivityPush, token: String, bundleID: String?, environment: APNSEnvironment?
    ) -> (kind: LiveActivityTokenKind?, appRunning: Bool, channelKnown: Bool) {
        let record = devices.record(for: token)
        var channelKnown = true
        if push.event == "start", let channel = push.inputPushChannel, let channels, let bundleID {
            // FCM does not say which APNs environment it uses: either one's channel will do.
            channelKnown = (environment.map { [$0] } ?? [.sandbox, .production]).contains {
                channels.channel(id: channel, bundleID: bundleID, environment: $0) != nil
            }
        }
        return (record?.liveActivity, record?.appRunning ?? false, channelKnown)
    }

    /// A broadcast on `channelID`: one outcome per subscribed activity.
    func broadcast(json: JSONValue?, channelID: String, bundleID: String, priority: Int, now: PushInstant) -> [LiveActivityDevice.Outcome] {
        guard let json, let push = LiveActivityPush(payload: json, priority: priority) else { return [] }
        // Whose app runs is read before the device's lock is taken (the registry has its own).
        let running = limits.backgroundBudget == nil ? [] : devices.appsRunning()
        let outcomes = device.withLock { $0.broadcast(push, channelID: channelID, bundleID: bundleID, now: now, appRunning: running.contains) }
        markChanged(outcomes.compactMap(\.activityID))
        return outcomes
    }

    /// Links timeline entries to their recorded delivery.
    func attach(deliveryID: UInt64, to outcomes: [LiveActivityDevice.Outcome]) {
        guard !outcomes.isEmpty else { return }
        device.withLock { device in
            for outcome in outcomes {
                device.attach(deliveryID: deliveryID, to: outcome)
            }
        }
        markChanged(outcomes.compactMap(\.activityID))
    }

    /// The snapshot keys of the activities subscribed to broadcast channel `channelID`.
    func keys(subscribedTo channelID: String) -> [String] {
        device.withLock { device in
            device.activities.values.filter { $0.channelID == channelID }.map { Self.keyPrefix + $0.id }
        }
    }

    /// A copy of every activity.
    var all: [SimulatedActivity] {
        device.withLock { Array($0.activities.values) }
    }

    /// The activity with push token or id `key`.
    func activity(_ key: String) -> SimulatedActivity? {
        device.withLock { $0.activity(key) }
    }

    /// Forgets every activity (and, in a store, their snapshots).
    func removeAll() {
        device.withLock { device in
            let ids = Array(device.activities.keys)
            device.removeAll()
            ledger.withLock { ledger in
                for id in ids {
                    for (key, value) in ledger.removal(of: id) { archive?.archive(key, value) }
                }
            }
        }
    }

    /// Notes that the activities `ids` changed; they are saved after ``saveWindow``.
    private func markChanged(_ ids: [String]) {
        guard archive != nil, !ids.isEmpty else { return }
        let schedule = changed.withLock { changed -> Bool in
            changed.ids.formUnion(changed.inTurn.isEmpty ? ids : ids.filter { changed.inTurn[$0] == nil })
            defer { changed.scheduled = true }
            return !changed.scheduled
        }
        if schedule {
            Task {
                try? await Task.sleep(for: Self.saveWindow)
                self.saveChanged()
            }
        }
    }

    /// Saves what changed in the changed activities, and forgets the evicted ones (after the
    /// window, and at shutdown before the store closes).
    func saveChanged() {
        guard let archive else { return }
        let ids = changed.withLock { changed -> Set<String> in
            defer { (changed.ids, changed.scheduled) = ([], false) }
            return changed.ids
        }
        device.withLock { device in
            ledger.withLock { ledger in
                for id in ids {
                    guard let activity = device.activities[id] else { continue }
                    for (key, value) in ledger.changes(for: activity) { archive.archive(key, value) }
                }
                for id in device.takeEvicted() {
                    for (key, value) in ledger.removal(of: id) { archive.archive(key, value) }
                }
            }
        }
    }

    /// The activities a store kept, oldest first, as they were (at start). Entries without an
    /// activity, or cut off from it by a gap, are deleted; an older version's whole activity is
    /// rewritten as a head and entries.
    func restore(from archive: any StateArchive) throws {
        let heads = try archive.archived(prefix: ActivityLedger.headPrefix)
        var entries: [String: [(number: Int64, bytes: [UInt8])]] = [:]
        for (key, bytes) in try archive.archived(prefix: ActivityLedger.entryPrefix) {
            guard let (id, number) = ActivityLedger.entry(of: key) else { continue }
            entries[id, default: []].append((number, bytes))
        }
        var kept: [(activity: SimulatedActivity, entries: Range<Int64>?)] = []
        for (key, bytes) in heads {
            guard let head = ledger.withLock({ $0.decodeHead(bytes) }) else {
                throw ActivityArchiveError(description: "the store's Live Activity \(key) cannot be read")
            }
            kept.append(head)
        }
        for (head, range) in kept.sorted(by: { ($0.activity.startedAt, $0.activity.id) < ($1.activity.startedAt, $1.activity.id) }) {
            let id = head.id
            let own = entries.removeValue(forKey: id) ?? []
            guard let range else {
                // An older version's whole activity: rewritten as a head and entries.
                adopt(head)
                if let activity = device.withLock({ $0.activities[id] }) {
                    for (key, value) in ledger.withLock({ $0.changes(for: activity) }) { archive.archive(key, value) }
                }
                continue
            }
            let activity = ledger.withLock { ledger in
                for (number, bytes) in own {
                    if let entry = ledger.decodeEntry(bytes) { _ = ledger.place(entry, id: id, number: number, in: nil) }
                }
                defer { ledger.forgetWaiting(id) }
                return ledger.merge(head: head, entries: range, local: nil)
            }
            adopt(activity)
            // Entries cut off by a gap (a save that did not finish) go.
            for (number, _) in own where !activity.entries.contains(number) { archive.archive(ActivityLedger.entryKey(id, number), []) }
        }
        for (id, orphans) in entries {
            for (number, _) in orphans { archive.archive(ActivityLedger.entryKey(id, number), []) }
        }
    }

    /// A head or entry another instance of the fleet saved (empty: deleted). While this instance
    /// has the activity's turn it waits until the turn ends (the turn read what the fleet saved
    /// before it; an entry applied meanwhile could take the place of the push's own). A head
    /// older than this instance's copy (a notification read before a newer save and applied after
    /// it) is not applied. `inTurn` is true for what the turn itself read.
    func apply(key: String, _ bytes: [UInt8], inTurn: Bool = false) {
        let entry = ActivityLedger.entry(of: key)
        let id = entry?.id ?? String(key.dropFirst(Self.keyPrefix.count))
        if !inTurn {
            let deferred = changed.withLock { changed -> Bool in
                guard changed.inTurn[id] != nil else { return false }
                changed.deferred[id, default: []].append((key, bytes))
                return true
            }
            if deferred { return }
        }
        if let (id, number) = entry {
            guard !bytes.isEmpty else { return }
            device.withLock { device in
                let placed = ledger.withLock { ledger in
                    ledger.decodeEntry(bytes).flatMap { ledger.place($0, id: id, number: number, in: device.activities[id]) }
                }
                if let placed { device.adopt(placed) }
            }
            return
        }
        if bytes.isEmpty {
            device.withLock { device in
                device.forget(id)
                ledger.withLock { $0.forget(id) }
            }
            return
        }
        // Adopted under the same lock it was merged in: a change between would be lost.
        let merged: SimulatedActivity? = device.withLock { device in
            let merged: SimulatedActivity? = ledger.withLock { ledger in
                guard let (head, range) = ledger.decodeHead(bytes) else { return nil }
                let local = device.activities[id]
                // An older version's whole activity (a fleet mid-upgrade): as it is, unless older.
                guard let range else {
                    if !inTurn, let local, local.timeline.count > head.timeline.count { return nil }
                    return head
                }
                if !inTurn, let local, local.entries.upperBound > range.upperBound { return nil }
                return ledger.merge(head: head, entries: range, local: local)
            }
            if let merged { device.adopt(merged) }
            return merged
        }
        if let merged { bindType(of: merged) }
    }

    /// Begins or ends a fleet-wide turn of the activity saved under `key` (see ``changed``).
    func turn(_ key: String, taken: Bool) {
        let id = String(key.dropFirst(Self.keyPrefix.count))
        let deferred = changed.withLock { changed -> [(key: String, value: [UInt8])] in
            let holders = changed.inTurn[id, default: 0] + (taken ? 1 : -1)
            changed.inTurn[id] = holders > 0 ? holders : nil
            guard holders <= 0 else { return [] }
            return changed.deferred.removeValue(forKey: id) ?? []
        }
        // What the fleet saved meanwhile, in the order it came (an older head is not applied).
        for (key, value) in deferred { apply(key: key, value) }
    }

    /// For a turn at the activities saved under `keys`: each one's entries key prefix, and the
    /// key of the first entry this instance does not have.
    func unseenEntries(_ keys: [String]) -> [String: String] {
        device.withLock { device in
            var since: [String: String] = [:]
            for key in keys {
                let id = String(key.dropFirst(Self.keyPrefix.count))
                since[ActivityLedger.entriesPrefix(id)] = ActivityLedger.entryKey(id, device.activities[id]?.entries.upperBound ?? 0)
            }
            return since
        }
    }

    /// What to save so that the store holds the activity saved under `key` as it is now, in
    /// order (nothing when there is none).
    func changes(_ key: String) -> [(key: String, value: [UInt8])] {
        let id = String(key.dropFirst(Self.keyPrefix.count))
        return device.withLock { device in
            guard let activity = device.activities[id] else { return [] }
            return ledger.withLock { $0.changes(for: activity) }
        }
    }

    /// What a push changed of the activities saved under `keys` (from ``changes(_:)``), rebased on
    /// what the fleet saved after its turn was given up (`fleet`: each activity's head and every
    /// entry; `since`, the entry bounds the turn read from): see ``ActivityLedger/rebase(_:id:from:on:)``.
    /// This instance's copy then holds what the store holds, followed by the entries of pushes
    /// here that are not saved yet (their own turns save them).
    func rebase(
        _ changes: [(key: String, value: [UInt8])], keys: [String], since: [String: String], on fleet: [String: [UInt8]]
    ) -> [(key: String, value: [UInt8])] {
        var rebased: [(key: String, value: [UInt8])] = []
        for key in keys {
            let id = String(key.dropFirst(Self.keyPrefix.count))
            let prefix = ActivityLedger.entriesPrefix(id)
            let own = changes.filter { $0.key == key || $0.key.hasPrefix(prefix) }
            let bound = since[prefix].flatMap { ActivityLedger.entry(of: $0)?.number } ?? 0
            // Adopted under the same lock it was rebuilt in: a change between would be lost.
            let result = device.withLock { device -> (writes: [(key: String, value: [UInt8])], activity: SimulatedActivity?)? in
                let result: (writes: [(key: String, value: [UInt8])], activity: SimulatedActivity?)? = ledger.withLock { ledger in
                    guard let writes = ledger.rebase(own, id: id, from: bound, on: fleet) else { return nil }
                    var saved = fleet.filter { $0.key.hasPrefix(prefix) }
                    for (written, value) in writes { saved[written] = value.isEmpty ? nil : value }
                    return (writes, ledger.rebuild(id, local: device.activities[id], saved: saved, head: writes.last?.value ?? []))
                }
                if let activity = result?.activity { device.adopt(activity) }
                return result
            }
            rebased += result?.writes ?? own
            if let activity = result?.activity { bindType(of: activity) }
        }
        return rebased
    }

    private func adopt(_ activity: SimulatedActivity) {
        device.withLock { $0.adopt(activity) }
        bindType(of: activity)
    }

    /// Binds an adopted activity's token to its declared type.
    private func bindType(of activity: SimulatedActivity) {
        if let token = activity.token, let type = activity.attributesType {
            types.bind(activityToken: token, to: type)
        }
    }
}

/// A store's Live Activity that cannot be read (at start).
struct ActivityArchiveError: Error, CustomStringConvertible {
    let description: String
}

extension LiveActivityDevice.Outcome {
    /// How the delivery records this outcome: dropped with the reason, or accepted.
    var deliveryFields: (outcome: Delivery.Outcome, reason: String?, explanation: String?) {
        if let payloadDrop { return (.dropped, payloadDrop.reason, payloadDrop.explanation) }
        if let drop { return (.dropped, drop.reason, drop.explanation) }
        return (.accepted, nil, nil)
    }
}
