import Synchronization

/// Access tokens PushMock issued: opaque strings scoped to a service account's project, expiring.
public final class AccessTokenStore: Sendable {
    /// What a token grants.
    public struct Grant: Sendable, Hashable {
        public var clientEmail: String
        public var projectID: String
        public var scope: String
        /// Expiry, seconds since the epoch.
        public var expiresAt: Int64

        public init(clientEmail: String, projectID: String, scope: String, expiresAt: Int64) {
            self.clientEmail = clientEmail
            self.projectID = projectID
            self.scope = scope
            self.expiresAt = expiresAt
        }
    }

    private let grants = Mutex<[String: Grant]>([:])
    private let random = Mutex(IDGenerator())

    public init() {}

    /// Issues a token for `grant`, returning it.
    public func issue(_ grant: Grant) -> String {
        let token = random.withLock { generator in
            var bytes: [UInt8] = []
            for _ in 0..<6 {
                withUnsafeBytes(of: generator.next()) { bytes += $0 }
            }
            return "ya29.pm." + Base64URL.encode(bytes)
        }
        grants.withLock { grants in
            if grants.count > 100_000 {
                let oldest = grants.min { $0.value.expiresAt < $1.value.expiresAt }?.value.expiresAt ?? 0
                grants = grants.filter { $0.value.expiresAt > oldest }
            }
            grants[token] = grant
        }
        return token
    }

    /// The grant of `token`, expired or not.
    public func grant(for token: String) -> Grant? {
        grants.withLock { $0[token] }
    }

    /// Forgets every token.
    public func removeAll() {
        grants.withLock { $0.removeAll() }
    }
}
