import PushMockCore
import Synchronization

/// The simulated devices' Live Activities, shared by the APNs, FCM and broadcast endpoints and
/// the inspection API (`/api/v1/activities`). A `Mutex` around the pure ``LiveActivityDevice``;
/// only Live Activity pushes take it.
final class LiveActivities: Sendable {
    private let device: Mutex<LiveActivityDevice>
    let devices: DeviceRegistry
    let limits: LiveActivityDevice.Limits
    /// Declared activity types: a started activity's token is bound to its type, so that its
    /// updates are checked against it.
    let types: ActivityTypeRegistry
    private let seed: UInt64?

    init(limits: LiveActivityDevice.Limits, devices: DeviceRegistry, types: ActivityTypeRegistry, seed: UInt64?) {
        self.types = types
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
        let outcome = device.withLock {
            $0.receive(push, token: token, kind: kind, bundleID: bundleID, service: service, now: now, payloadDrop: payloadDrop)
        }
        if let issued = outcome.issuedToken, let type = push.attributesType {
            types.bind(activityToken: issued, to: type)
        }
        return outcome
    }

    /// A broadcast on `channelID`: one outcome per subscribed activity.
    func broadcast(json: JSONValue?, channelID: String, bundleID: String, priority: Int, now: PushInstant) -> [LiveActivityDevice.Outcome] {
        guard let json, let push = LiveActivityPush(payload: json, priority: priority) else { return [] }
        return device.withLock { $0.broadcast(push, channelID: channelID, bundleID: bundleID, now: now) }
    }

    /// Links timeline entries to their recorded delivery.
    func attach(deliveryID: UInt64, to outcomes: [LiveActivityDevice.Outcome]) {
        guard !outcomes.isEmpty else { return }
        device.withLock { device in
            for outcome in outcomes {
                device.attach(deliveryID: deliveryID, to: outcome)
            }
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

    /// Forgets every activity.
    func removeAll() {
        device.withLock { $0.removeAll() }
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
