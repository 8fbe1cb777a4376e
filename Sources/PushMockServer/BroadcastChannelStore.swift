import PushMockCore
import Synchronization

/// The broadcast channels, shared by the channel-management and broadcast endpoints and the
/// inspection API.
final class BroadcastChannelStore: Sendable {
    private let channels: Mutex<BroadcastChannels>

    init(seed: UInt64?, limit: Int = 10_000) {
        var channels = BroadcastChannels(seed: seed.map { $0 &+ 0xB0AD_CA57 })
        channels.limit = limit
        self.channels = Mutex(channels)
    }

    func create(bundleID: String, environment: APNSEnvironment, policy: Int, now: PushInstant) -> BroadcastChannel? {
        channels.withLock { $0.create(bundleID: bundleID, environment: environment, policy: policy, now: now) }
    }

    func channel(id: String, bundleID: String, environment: APNSEnvironment) -> BroadcastChannel? {
        channels.withLock { $0.channel(id: id, bundleID: bundleID, environment: environment) }
    }

    func delete(id: String, bundleID: String, environment: APNSEnvironment) -> Bool {
        channels.withLock { $0.delete(id: id, bundleID: bundleID, environment: environment) }
    }

    func list(bundleID: String, environment: APNSEnvironment) -> [String] {
        channels.withLock { $0.list(bundleID: bundleID, environment: environment) }
    }

    var all: [BroadcastChannel] { channels.withLock { $0.all } }

    func removeAll() { channels.withLock { $0.removeAll() } }
}
