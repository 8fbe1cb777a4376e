import Foundation
import PushMockCore
import PushMockStore
import Synchronization

/// The simulated devices' Live Activities, shared by the APNs, FCM and broadcast endpoints and
/// the inspection API (`/api/v1/activities`). A `Mutex` around the pure ``LiveActivityDevice``;
/// only Live Activity pushes take it.
///
/// With a store that keeps state (SQLite, PostgreSQL) every activity a push changes is saved as
/// its own snapshot (`activity:<id>`) within ``saveWindow``: once per window, however many pushes
/// it got, encoded and handed to the store under the same lock as the changes, so that snapshots
/// of one activity are saved in the order of its pushes. A fleet's other instances adopt them.
final class LiveActivities: Sendable {
    static let keyPrefix = "activity:"
    private let device: Mutex<LiveActivityDevice>
    private let archive: (any StateArchive)?
    /// Activities changed since the last save, whether a save is scheduled, and the activities in
    /// a fleet-wide turn (``ActivityTurns``), which the turn saves itself: a batched save of this
    /// instance's copy could otherwise land after a newer one another instance saved in its turn.
    private let changed = Mutex<(ids: Set<String>, scheduled: Bool, inTurn: Set<String>)>(([], false, []))
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
        self.device = Mutex(LiveActivityDevice(limits: limits, seed: seed))
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
        let kind = devices.record(for: token)?.liveActivity
        var channelKnown = true
        if push.event == "start", let channel = push.inputPushChannel, let channels, let bundleID {
            // FCM does not say which APNs environment it uses: either one's channel will do.
            channelKnown = (environment.map { [$0] } ?? [.sandbox, .production]).contains {
                channels.channel(id: channel, bundleID: bundleID, environment: $0) != nil
            }
        }
        let outcome = device.withLock {
            $0.receive(push, token: token, kind: kind, bundleID: bundleID, service: service, now: now, payloadDrop: payloadDrop, channelKnown: channelKnown)
        }
        markChanged(outcome.activityID.map { [$0] } ?? [])
        if let issued = outcome.issuedToken, let type = push.attributesType {
            types.bind(activityToken: issued, to: type)
        }
        return outcome
    }

    /// A broadcast on `channelID`: one outcome per subscribed activity.
    func broadcast(json: JSONValue?, channelID: String, bundleID: String, priority: Int, now: PushInstant) -> [LiveActivityDevice.Outcome] {
        guard let json, let push = LiveActivityPush(payload: json, priority: priority) else { return [] }
        let outcomes = device.withLock { $0.broadcast(push, channelID: channelID, bundleID: bundleID, now: now) }
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
            for id in ids { archive?.archive(Self.keyPrefix + id, []) }
        }
    }

    /// Notes that the activities `ids` changed; they are saved after ``saveWindow``.
    private func markChanged(_ ids: [String]) {
        guard archive != nil, !ids.isEmpty else { return }
        let schedule = changed.withLock { changed -> Bool in
            changed.ids.formUnion(changed.inTurn.isEmpty ? ids : ids.filter { !changed.inTurn.contains($0) })
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

    /// Saves the changed activities as they are now, and forgets the snapshots of evicted ones
    /// (after the window, and at shutdown before the store closes).
    func saveChanged() {
        guard let archive else { return }
        let ids = changed.withLock { changed -> Set<String> in
            defer { (changed.ids, changed.scheduled) = ([], false) }
            return changed.ids
        }
        device.withLock { device in
            let encoder = JSONEncoder()
            for id in ids {
                guard let activity = device.activities[id], let data = try? encoder.encode(activity) else { continue }
                archive.archive(Self.keyPrefix + id, Array(data))
            }
            for id in device.takeEvicted() { archive.archive(Self.keyPrefix + id, []) }
        }
    }

    /// The activities a store kept, oldest first, as they were (at start).
    func restore(from archive: any StateArchive) throws {
        let decoder = JSONDecoder()
        let kept = try archive.archived(prefix: Self.keyPrefix).values.map { try decoder.decode(SimulatedActivity.self, from: Data($0)) }
        for activity in kept.sorted(by: { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }) { adopt(activity) }
    }

    /// A snapshot another instance of the fleet saved (empty: it forgot the activity).
    /// Not while this instance has the activity's turn (its copy is the newest then), and not a
    /// copy with a shorter timeline than this one's (a notification read before a newer save and
    /// applied after it). `inTurn` is true for the snapshot the turn itself read.
    func apply(key: String, _ bytes: [UInt8], inTurn: Bool = false) {
        let id = String(key.dropFirst(Self.keyPrefix.count))
        if !inTurn, changed.withLock({ $0.inTurn.contains(id) }) { return }
        if bytes.isEmpty {
            device.withLock { $0.forget(id) }
        } else if let activity = try? JSONDecoder().decode(SimulatedActivity.self, from: Data(bytes)) {
            if !inTurn, let local = device.withLock({ $0.activities[id] }), local.timeline.count > activity.timeline.count { return }
            adopt(activity)
        }
    }

    /// Begins or ends a fleet-wide turn of the activity saved under `key` (see ``changed``).
    func turn(_ key: String, taken: Bool) {
        let id = String(key.dropFirst(Self.keyPrefix.count))
        changed.withLock { changed in
            if taken { changed.inTurn.insert(id) } else { changed.inTurn.remove(id) }
        }
    }

    /// The activity saved under `key` as it is now, encoded (nil: there is none).
    func snapshot(_ key: String) -> [UInt8]? {
        let id = String(key.dropFirst(Self.keyPrefix.count))
        return device.withLock { device in
            device.activities[id].flatMap { try? JSONEncoder().encode($0) }.map(Array.init)
        }
    }

    private func adopt(_ activity: SimulatedActivity) {
        device.withLock { $0.adopt(activity) }
        if let token = activity.token, let type = activity.attributesType {
            types.bind(activityToken: token, to: type)
        }
    }
}

extension LiveActivityDevice.Outcome {
    /// How the delivery records this outcome: dropped with the reason, or accepted.
    var deliveryFields: (outcome: Delivery.Outcome, reason: String?, explanation: String?) {
        if let payloadDrop { return (.dropped, payloadDrop.reason, payloadDrop.explanation) }
        if let drop { return (.dropped, drop.reason, drop.explanation) }
        return (.accepted, nil, nil)
    }
}
