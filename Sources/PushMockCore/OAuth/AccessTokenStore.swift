import Crypto
import Synchronization
import _CryptoExtras

/// Access tokens PushMock issued: opaque strings scoped to a service account's project, expiring.
///
/// A token carries its grant, sealed with an HMAC under `secret` and the current generation. So every
/// PushMock with the same secret accepts it (a fleet on one database derives the secret from the
/// service accounts it shares, and a restart keeps it), and a reset (a new generation) revokes every
/// token issued before. Verified tokens are cached. Two spellings:
///
/// - `ya29.pmc.<grant>.<mac>` (compact, ~66 characters) when the grant is a service account the store
///   was made with and its scopes are all in `knownScopes`: the grant names the account by an 8-byte
///   fingerprint and each scope by a byte, and the generation is sealed into the MAC instead of
///   being written. A sender repeats the whole `authorization` header, never indexed by HPACK, on
///   every request; a third of the length is a third of the Huffman decoding and header checks per
///   push (the long spelling was ~245 characters).
/// - `ya29.pm.<grant>.<mac>` otherwise: the e-mail, project and scope written out.
///
/// ```swift
/// let tokens = AccessTokenStore(secret: Array("shared".utf8))
/// let token = tokens.issue(.init(clientEmail: "a@p.iam.gserviceaccount.com", projectID: "p", scope: "…", expiresAt: 1_767_229_200))
/// AccessTokenStore(secret: Array("shared".utf8)).grant(for: token)?.projectID  // "p"
/// ```
public final class AccessTokenStore: Sendable {
    /// What a token grants.
    public struct Grant: Sendable, Hashable {
        public var clientEmail: String
        public var projectID: String
        public var scope: String
        /// Expiry, seconds since the epoch.
        public var expiresAt: Int64

        /// What a user credential's grant has for `clientEmail`, before its OAuth client id.
        public static let userPrefix = "authorized_user:"

        /// A user's credentials (a refresh-token exchange), not a service account's: no project of
        /// its own, so a request with it names a quota project (`x-goog-user-project`).
        public var isUser: Bool { projectID.isEmpty && clientEmail.hasPrefix(Self.userPrefix) }

        public init(clientEmail: String, projectID: String, scope: String, expiresAt: Int64) {
            self.clientEmail = clientEmail
            self.projectID = projectID
            self.scope = scope
            self.expiresAt = expiresAt
        }
    }

    static let prefix = "ya29.pm."
    static let compactPrefix = "ya29.pmc."
    /// The scopes a compact token names by their index. A wire format: append only.
    public static let knownScopes = [
        "https://www.googleapis.com/auth/firebase.messaging", "https://www.googleapis.com/auth/cloud-platform",
        "https://www.googleapis.com/auth/firebase", "https://www.googleapis.com/auth/userinfo.email",
        "https://www.googleapis.com/auth/datastore", "https://www.googleapis.com/auth/devstorage.full_control",
        "https://www.googleapis.com/auth/devstorage.read_write", "https://www.googleapis.com/auth/identitytoolkit",
        "https://www.googleapis.com/auth/firebase.database", "https://www.googleapis.com/auth/firebase.readonly",
        "https://www.googleapis.com/auth/cloud-platform.read-only",
    ]
    private let key: SymmetricKey
    private let state = Mutex(Verified())
    /// The most the cache of verified tokens holds, in bytes (tokens and their grants' texts).
    public let cacheBudget: Int

    /// Tokens verified in this generation, and the order they came in: the oldest go first when the
    /// cache passes its budget.
    struct Verified {
        var generation: UInt64 = 0
        var grants: [String: Grant] = [:]
        var order: [String] = []
        /// Where the oldest token still cached is in `order`.
        var head = 0
        var bytes = 0

        mutating func clear() {
            grants = [:]
            order = []
            head = 0
            bytes = 0
        }
    }

    /// What one cached token costs: its text, its grant's texts and a fixed overhead for the entry.
    static func cost(_ token: String, _ grant: Grant) -> Int {
        token.utf8.count * 2 + grant.clientEmail.utf8.count + grant.projectID.utf8.count + grant.scope.utf8.count + 96
    }
    /// The accounts a compact token can name, by fingerprint (`fingerprint(clientEmail:projectID:)`).
    private let grantees: [UInt64: (clientEmail: String, projectID: String)]

    /// Tokens sealed with `secret`; nil: a random one (tokens valid in this process only). Grants to
    /// `accounts` get compact tokens. Verified tokens are cached up to `cacheBudget` bytes, the
    /// oldest dropped first (a dropped token is verified again when it comes back).
    public init(secret: [UInt8]? = nil, accounts: [ServiceAccount] = [], cacheBudget: Int = 16 << 20) {
        self.cacheBudget = max(cacheBudget, 0)
        key = secret.map { SymmetricKey(data: SHA256.hash(data: $0)) } ?? SymmetricKey(size: .bits256)
        var grantees: [UInt64: (clientEmail: String, projectID: String)] = [:]
        var collided: Set<UInt64> = []
        for account in accounts {
            let print = Self.fingerprint(clientEmail: account.clientEmail, projectID: account.projectID)
            if let other = grantees[print], other.clientEmail != account.clientEmail || other.projectID != account.projectID {
                collided.insert(print)
            }
            grantees[print] = (account.clientEmail, account.projectID)
        }
        // Two accounts of one fingerprint (never seen: 64 bits) keep the long spelling.
        for print in collided { grantees[print] = nil }
        self.grantees = grantees
    }

    /// The first eight bytes of SHA-256 over the account's e-mail and project: how a compact token
    /// names its account.
    static func fingerprint(clientEmail: String, projectID: String) -> UInt64 {
        let digest = SHA256.hash(data: Array("pushmock grantee\u{0}\(clientEmail)\u{0}\(projectID)".utf8))
        return digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The indexes in `knownScopes` of a space-separated scope list, or nil when one is not known
    /// (or the list is not single spaces between scopes, which the indexes could not spell again).
    static func scopeCodes(_ scope: String) -> [UInt8]? {
        let parts = scope.split(separator: " ", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 32 else { return nil }
        var codes: [UInt8] = []
        for part in parts {
            guard let index = knownScopes.firstIndex(where: { $0 == part }) else { return nil }
            codes.append(UInt8(index))
        }
        return codes
    }

    /// A secret every PushMock configured with `accounts` derives alike (a fleet's instances, the
    /// next run): the accounts' e-mails, key ids and public keys.
    public static func secret(for accounts: [ServiceAccount]) -> [UInt8] {
        var material = Array("pushmock oauth tokens".utf8)
        for account in accounts.sorted(by: { $0.clientEmail < $1.clientEmail }) {
            material += Array(account.clientEmail.utf8) + [0] + Array(account.privateKeyID.utf8) + [0] + Array(account.publicKey.derRepresentation)
        }
        return material
    }

    /// The generation tokens are issued in now; a reset starts the next.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// What the cache of verified tokens holds now: tokens and bytes (`cost(_:_:)`).
    public var cached: (tokens: Int, bytes: Int) { state.withLock { ($0.grants.count, $0.bytes) } }

    /// Issues a token for `grant`, returning it.
    public func issue(_ grant: Grant) -> String {
        let generation = generation
        let print = Self.fingerprint(clientEmail: grant.clientEmail, projectID: grant.projectID)
        if let account = grantees[print], account.clientEmail == grant.clientEmail, account.projectID == grant.projectID,
            let codes = Self.scopeCodes(grant.scope)
        {
            // Expiry, account, eight random bytes (two tokens of one grant differ, as Google's do), scopes.
            var payload: [UInt8] = []
            Self.append(UInt64(bitPattern: grant.expiresAt), to: &payload)
            Self.append(print, to: &payload)
            Self.append(UInt64.random(in: .min ... .max), to: &payload)
            payload += codes
            let token =
                Self.compactPrefix + Base64URL.encode(payload) + "." + Base64URL.encode(Self.compactMAC(payload, generation: generation, key: key))
            remember(token, grant, generation: generation)
            return token
        }
        var payload: [UInt8] = []
        Self.append(generation, to: &payload)
        Self.append(UInt64(bitPattern: grant.expiresAt), to: &payload)
        for text in [grant.clientEmail, grant.projectID, grant.scope] {
            let bytes = Array(text.utf8.prefix(Int(UInt16.max)))
            payload += [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        }
        // Sixteen bytes of a second random-looking part make two tokens of one grant differ, as Google's do.
        payload += (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        let token = Self.prefix + Base64URL.encode(payload) + "." + Base64URL.encode(Self.mac(payload, key: key))
        remember(token, grant, generation: generation)
        return token
    }

    /// The grant of `token`, expired or not; nil when PushMock (with this secret, in this
    /// generation) did not issue it.
    public func grant(for token: String) -> Grant? {
        let (generation, cached) = state.withLock { ($0.generation, $0.grants[token]) }
        if let cached { return cached }
        if token.hasPrefix(Self.compactPrefix) {
            return compactGrant(for: token, generation: generation)
        }
        guard let (payload, mac) = Self.sealedParts(of: token, after: Self.prefix), Self.equal(mac, Self.mac(payload, key: key)) else { return nil }
        var reader = payload[...]
        guard let issuedIn = Self.read(&reader), issuedIn == generation, let expiresAt = Self.read(&reader) else { return nil }
        var texts: [String] = []
        for _ in 0..<3 {
            guard reader.count >= 2 else { return nil }
            let length = Int(reader[reader.startIndex]) << 8 | Int(reader[reader.startIndex + 1])
            reader = reader.dropFirst(2)
            guard reader.count >= length else { return nil }
            texts.append(String(decoding: reader.prefix(length), as: UTF8.self))
            reader = reader.dropFirst(length)
        }
        let grant = Grant(clientEmail: texts[0], projectID: texts[1], scope: texts[2], expiresAt: Int64(bitPattern: expiresAt))
        remember(token, grant, generation: generation)
        return grant
    }

    /// The grant and the 16-byte MAC of `<prefix><grant>.<mac>`, decoded; nil for any other shape.
    private static func sealedParts(of token: String, after prefix: String) -> (payload: [UInt8], mac: [UInt8])? {
        guard token.hasPrefix(prefix) else { return nil }
        let parts = token.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Base64URL.decode(parts[0]), let mac = Base64URL.decode(parts[1]), mac.count == 16 else { return nil }
        return (payload, mac)
    }

    private func compactGrant(for token: String, generation: UInt64) -> Grant? {
        guard let (payload, mac) = Self.sealedParts(of: token, after: Self.compactPrefix), payload.count > 24,
            Self.equal(mac, Self.compactMAC(payload, generation: generation, key: key))
        else { return nil }
        var reader = payload[...]
        guard let expiresAt = Self.read(&reader), let print = Self.read(&reader), Self.read(&reader) != nil,
            let account = grantees[print]
        else { return nil }
        var scopes: [String] = []
        for code in reader {
            guard Int(code) < Self.knownScopes.count else { return nil }
            scopes.append(Self.knownScopes[Int(code)])
        }
        let grant = Grant(
            clientEmail: account.clientEmail, projectID: account.projectID, scope: scopes.joined(separator: " "),
            expiresAt: Int64(bitPattern: expiresAt))
        remember(token, grant, generation: generation)
        return grant
    }

    /// Revokes every token issued so far (a reset): returns the new generation.
    @discardableResult
    public func removeAll() -> UInt64 {
        state.withLock { state in
            state.generation &+= 1
            state.clear()
            return state.generation
        }
    }

    /// Takes `generation` (as a store kept it, or another instance of a fleet reset).
    public func adopt(generation: UInt64) {
        state.withLock { state in
            guard state.generation != generation else { return }
            state.generation = generation
            state.clear()
        }
    }

    private func remember(_ token: String, _ grant: Grant, generation: UInt64) {
        let cost = Self.cost(token, grant)
        guard cost <= cacheBudget else { return }
        state.withLock { state in
            guard state.generation == generation, state.grants[token] == nil else { return }
            while state.bytes + cost > cacheBudget, state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if let dropped = state.grants.removeValue(forKey: oldest) {
                    state.bytes -= Self.cost(oldest, dropped)
                }
            }
            if state.head > 1024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
            state.grants[token] = grant
            state.order.append(token)
            state.bytes += cost
        }
    }

    private static func mac(_ payload: [UInt8], key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: payload, using: key)).prefix(16).map { $0 }
    }

    /// A compact token's MAC covers the generation too: a token of an earlier generation fails it.
    private static func compactMAC(_ payload: [UInt8], generation: UInt64, key: SymmetricKey) -> [UInt8] {
        var sealed = Array("c".utf8)
        append(generation, to: &sealed)
        return mac(sealed + payload, key: key)
    }

    private static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func read(_ bytes: inout ArraySlice<UInt8>) -> UInt64? {
        guard bytes.count >= 8 else { return nil }
        defer { bytes = bytes.dropFirst(8) }
        return bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
