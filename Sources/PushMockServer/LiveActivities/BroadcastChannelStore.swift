import Foundation
import PushMockCore
import PushMockStore
import Synchronization

/// The broadcast channels, shared by the channel-management and broadcast endpoints and the
/// inspection API. With a store that keeps state, every change saves the list (`channels`), under
/// the lock so that saves are in the order of the changes; a fleet's other instances take it.
final class BroadcastChannelStore: Sendable {
    static let key = StateKey.channels.key
    private let channels: Mutex<BroadcastChannels>
    private let archive: (any StateArchive)?

    init(seed: UInt64?, limit: Int = 10_000, archive: (any StateArchive)? = nil) {
        var channels = BroadcastChannels(seed: seed.map { $0 &+ 0xB0AD_CA57 })
        channels.limit = limit
        self.channels = Mutex(channels)
        self.archive = archive
    }

    func create(bundleID: String, environment: APNSEnvironment, policy: Int, now: PushInstant) -> BroadcastChannel? {
        channels.withLock { channels in
            defer { save(channels) }
            return channels.create(bundleID: bundleID, environment: environment, policy: policy, now: now)
        }
    }

    func channel(id: String, bundleID: String, environment: APNSEnvironment) -> BroadcastChannel? {
        channels.withLock { $0.channel(id: id, bundleID: bundleID, environment: environment) }
    }

    func delete(id: String, bundleID: String, environment: APNSEnvironment) -> Bool {
        channels.withLock { channels in
            defer { save(channels) }
            return channels.delete(id: id, bundleID: bundleID, environment: environment)
        }
    }

    func list(bundleID: String, environment: APNSEnvironment) -> [String] {
        channels.withLock { $0.list(bundleID: bundleID, environment: environment) }
    }

    var all: [BroadcastChannel] { channels.withLock { $0.all } }

    func removeAll() {
        channels.withLock { channels in
            channels.removeAll()
            save(channels)
        }
    }

    /// The channels a store kept, or another instance of the fleet saved, in place of these.
    func apply(_ bytes: [UInt8]) throws {
        let kept = bytes.isEmpty ? [] : try JSONDecoder().decode([BroadcastChannel].self, from: Data(bytes))
        channels.withLock { $0.replaceAll(with: kept) }
    }

    private func save(_ channels: BroadcastChannels) {
        guard let archive, let data = try? JSONEncoder().encode(channels.all) else { return }
        archive.archive(Self.key, Array(data))
    }
}
