import Foundation
import PushMockCore
import PushMockStore
import Synchronization

/// The simulated devices' Live Activities, shared by the APNs, FCM and broadcast endpoints and
/// the inspection API (`/api/v1/activities`). A `Mutex` around the pure ``LiveActivityDevice``;
/// only Live Activity pushes take it.
///
/// With a store that keeps state (SQLite, PostgreSQL) every activity a push changes is saved as
/// its own snapshot (`activity:<id>`), under the same lock as the change so that snapshots of one
/// activity are saved in the order of its pushes; a fleet's other instances adopt them.
final class LiveActivities: Sendable {
    static let keyPrefix = "activity:"
    private let device: Mutex<LiveActivityDevice>
    private let archive: (any StateArchive)?
    let devices: DeviceRegistry
    let limits: LiveActivityDevice.Limits
    /// Declared activity types: a started activity's token is bound to its type, so that its
    /// updates are checked against it.
    let types: ActivityTypeRegistry
    private let seed: UInt64?

    init(limits: LiveActivityDevice.Limits, devices: DeviceRegistry, types: ActivityTypeRegistry, seed: UInt64?, archive: (any StateArchive)? = nil) {
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
        _ push: LiveActivityPush?, token: String, bundleID: String?, service: Delivery.Service, now: PushInstant, payloadDrop: LiveActivityRule?
    ) -> LiveActivityDevice.Outcome? {
        guard let push else { return nil }
        let kind = devices.record(for: token)?.liveActivity
        let outcome = device.withLock { device in
            let outcome = device.receive(push, token: token, kind: kind, bundleID: bundleID, service: service, now: now, payloadDrop: payloadDrop)
            save(outcome.activityID.map { [$0] } ?? [], in: &device)
            return outcome
        }
        if let issued = outcome.issuedToken, let type = push.attributesType {
            types.bind(activityToken: issued, to: type)
        }
        return outcome
    }

    /// A broadcast on `channelID`: one outcome per subscribed activity.
    func broadcast(json: JSONValue?, channelID: String, bundleID: String, priority: Int, now: PushInstant) -> [LiveActivityDevice.Outcome] {
        guard let json, let push = LiveActivityPush(payload: json, priority: priority) else { return [] }
        return device.withLock { device in
            let outcomes = device.broadcast(push, channelID: channelID, bundleID: bundleID, now: now)
            save(outcomes.compactMap(\.activityID), in: &device)
            return outcomes
        }
    }

    /// Links timeline entries to their recorded delivery.
    func attach(deliveryID: UInt64, to outcomes: [LiveActivityDevice.Outcome]) {
        guard !outcomes.isEmpty else { return }
        device.withLock { device in
            for outcome in outcomes {
                device.attach(deliveryID: deliveryID, to: outcome)
            }
            save(outcomes.compactMap(\.activityID), in: &device)
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

    /// Saves the activities `ids` as they are now, and forgets the snapshots of evicted ones.
    private func save(_ ids: [String], in device: inout LiveActivityDevice) {
        guard let archive else { return }
        let encoder = JSONEncoder()
        for id in Set(ids) {
            guard let activity = device.activities[id], let data = try? encoder.encode(activity) else { continue }
            archive.archive(Self.keyPrefix + id, Array(data))
        }
        for id in device.takeEvicted() { archive.archive(Self.keyPrefix + id, []) }
    }

    /// The activities a store kept, oldest first, as they were (at start).
    func restore(from archive: any StateArchive) throws {
        let decoder = JSONDecoder()
        let kept = try archive.archived(prefix: Self.keyPrefix).values.map { try decoder.decode(SimulatedActivity.self, from: Data($0)) }
        for activity in kept.sorted(by: { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }) { adopt(activity) }
    }

    /// A snapshot another instance of the fleet saved (empty: it forgot the activity).
    func apply(key: String, _ bytes: [UInt8]) {
        let id = String(key.dropFirst(Self.keyPrefix.count))
        if bytes.isEmpty {
            device.withLock { $0.forget(id) }
        } else if let activity = try? JSONDecoder().decode(SimulatedActivity.self, from: Data(bytes)) {
            adopt(activity)
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
