import Synchronization

/// Verifies provider tokens against the registry, each distinct token string once: results are
/// cached until the registry changes (bounded; cleared when full).
public final class ProviderTokenVerifier: Sendable {
    /// A verification result.
    public enum Result: Sendable, Hashable {
        case valid(ProviderToken, APNSSigningKey.Scope, topics: [String]?)
        case invalid(ProviderToken.Problem)
        /// The key id is not registered.
        case unknownKey(keyID: String, teamID: String)
        /// The key is registered for another team than the token's `iss`.
        case teamMismatch(keyID: String, keyTeam: String, tokenTeam: String)
    }

    private struct State {
        var registry: APNSCredentialRegistry
        var cache: [String: Result] = [:]
    }

    private let state: Mutex<State>
    private let capacity: Int
    private let generationCounter = Atomic<UInt64>(0)

    /// Changes whenever the registry changes (connection-level caches compare it).
    public var generation: UInt64 { generationCounter.load(ordering: .acquiring) }

    /// Creates a verifier over `registry`.
    public init(registry: APNSCredentialRegistry, capacity: Int = 10_000) {
        self.state = Mutex(State(registry: registry))
        self.capacity = capacity
    }

    /// The registry in use.
    public var registry: APNSCredentialRegistry { state.withLock { $0.registry } }

    /// Replaces the registry and forgets every cached result.
    public func update(_ body: (inout APNSCredentialRegistry) -> Void) {
        state.withLock {
            body(&$0.registry)
            $0.cache.removeAll()
        }
        generationCounter.add(1, ordering: .releasing)
    }

    /// Verifies `jwt` (cached by its exact text).
    public func verify(_ jwt: Substring) -> Result {
        let text = String(jwt)
        if let cached = state.withLock({ $0.cache[text] }) {
            return cached
        }
        let registry = self.registry
        let result: Result
        do {
            let token = try ProviderToken.parse(jwt)
            if let key = registry.keys[token.keyID] {
                if key.teamID != token.teamID {
                    result = .teamMismatch(keyID: key.keyID, keyTeam: key.teamID, tokenTeam: token.teamID)
                } else {
                    try token.verify(with: key.publicKey)
                    result = .valid(token, key.scope, topics: key.topics)
                }
            } else {
                result = .unknownKey(keyID: token.keyID, teamID: token.teamID)
            }
        } catch {
            result = .invalid(error)
        }
        state.withLock {
            if $0.cache.count >= capacity { $0.cache.removeAll(keepingCapacity: true) }
            $0.cache[text] = result
        }
        return result
    }
}
