import PushMockCore
import PushMockStore
import Synchronization

/// Everything `POST /api/v1/reset` and ``PushMockServer/reset()`` put back, in one place:
/// deliveries cleared; faults and devices as configured; simulated activities, channels and access
/// tokens forgotten; open connections' APNs token bindings started over.
struct ServerReset: Sendable {
    let store: InMemoryDeliveryStore
    let faults: FaultPlan
    let devices: DeviceRegistry
    let accessTokens: AccessTokenStore
    let activities: LiveActivities
    let channels: BroadcastChannelStore
    let apns: APNSEndpoint
    let configuration: PushMockConfiguration

    func callAsFunction() {
        store.remove()
        faults.reset(rules: configuration.faults, seed: configuration.faultSeed)
        for (token, _) in devices.all {
            devices.remove(token)
        }
        for (token, record) in configuration.apns.devices {
            devices.set(record, for: token)
        }
        accessTokens.removeAll()
        activities.removeAll()
        channels.removeAll()
        apns.bindingGeneration.add(1, ordering: .relaxed)
    }
}
