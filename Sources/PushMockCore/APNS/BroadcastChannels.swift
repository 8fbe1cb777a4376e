/// A broadcast channel (iOS 18, apns.md §10).
public struct BroadcastChannel: Sendable, Hashable, Codable {
    /// The `apns-channel-id` (base64 of 16 random bytes; never reused).
    public var id: String
    public var bundleID: String
    public var environment: APNSEnvironment
    /// 0: No Message Stored, 1: Most Recent Message Stored.
    public var messageStoragePolicy: Int
    /// Milliseconds since the epoch.
    public var createdAt: Int64
}

/// The channels of every app and environment, with Apple's limit per app and environment.
public struct BroadcastChannels: Sendable {
    /// Channels per app per environment.
    public var limit = 10_000
    private var channels: [String: BroadcastChannel] = [:]
    private var order: [String] = []
    private var ids: IDGenerator

    /// Channels whose ids follow `seed`.
    public init(seed: UInt64? = nil) {
        ids = seed.map(IDGenerator.init(seed:)) ?? IDGenerator()
    }

    /// Creates a channel, or returns nil when the app has `limit` channels in `environment`.
    public mutating func create(bundleID: String, environment: APNSEnvironment, policy: Int, now: PushInstant) -> BroadcastChannel? {
        guard list(bundleID: bundleID, environment: environment).count < limit else { return nil }
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            var word = ids.next()
            for _ in 0..<8 {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        let channel = BroadcastChannel(
            id: Self.base64(bytes), bundleID: bundleID, environment: environment, messageStoragePolicy: policy, createdAt: now.millisecondsSinceEpoch)
        channels[channel.id] = channel
        order.append(channel.id)
        return channel
    }

    /// The channel `id` of `bundleID` in `environment`.
    public func channel(id: String, bundleID: String, environment: APNSEnvironment) -> BroadcastChannel? {
        guard let channel = channels[id], channel.bundleID == bundleID, channel.environment == environment else { return nil }
        return channel
    }

    /// Deletes a channel; false when there is none.
    public mutating func delete(id: String, bundleID: String, environment: APNSEnvironment) -> Bool {
        guard channel(id: id, bundleID: bundleID, environment: environment) != nil else { return false }
        channels[id] = nil
        order.removeAll { $0 == id }
        return true
    }

    /// The ids of an app's channels in an environment, oldest first.
    public func list(bundleID: String, environment: APNSEnvironment) -> [String] {
        order.filter { channels[$0]?.bundleID == bundleID && channels[$0]?.environment == environment }
    }

    /// Every channel, oldest first.
    public var all: [BroadcastChannel] { order.compactMap { channels[$0] } }

    /// Replaces every channel with `kept` (as a store kept or another instance of a fleet shared them).
    public mutating func replaceAll(with kept: [BroadcastChannel]) {
        channels = Dictionary(kept.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        order = []
        var seen = Set<String>()
        for channel in kept where seen.insert(channel.id).inserted { order.append(channel.id) }
    }

    /// Forgets every channel (ids are still never reused: the generator moves on).
    public mutating func removeAll() {
        channels = [:]
        order = []
    }

    static func base64(_ bytes: [UInt8]) -> String {
        // Standard alphabet with padding, as Apple's channel ids look ("dHN0LXNyY2gtY2hubA==").
        var characters = Array(Base64URL.encode(bytes).utf8).map {
            $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0
        }
        while characters.count % 4 != 0 { characters.append(UInt8(ascii: "=")) }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Whether `text` is a plausible channel id: standard base64, at most 64 characters.
    public static func isWellFormedID(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 64, text.utf8.count % 4 == 0 else { return false }
        return text.utf8.allSatisfy {
            ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2F || $0 == 0x3D
        }
    }
}
