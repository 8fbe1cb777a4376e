/// Teams, their keys and their bundle ids: what decides `InvalidProviderToken`,
/// `TopicDisallowed` and `BadEnvironmentKeyInToken`.
public struct APNSCredentialRegistry: Sendable {
    /// Keys by key id.
    public private(set) var keys: [String: APNSSigningKey] = [:]
    /// Bundle id → owning team id.
    public private(set) var bundles: [String: String] = [:]

    /// An empty registry.
    public init() {}

    /// Registers a key (replacing one with the same id).
    public mutating func add(_ key: APNSSigningKey) {
        keys[key.keyID] = key
    }

    /// Registers a bundle id for a team.
    public mutating func addBundle(_ bundleID: String, team teamID: String) {
        bundles[bundleID] = teamID
    }

    /// The team that owns `bundleID`.
    public func team(ofBundle bundleID: String) -> String? {
        bundles[bundleID]
    }
}
