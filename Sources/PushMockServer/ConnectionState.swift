import PushMockCore
import PushMockTransport

/// What PushMock keeps per client connection (in the transport's per-connection storage).
final class ConnectionState {
    /// APNs binding, credential and ids, once the connection sent an APNs request.
    @exclusivity(unchecked) var apns: APNSEndpoint.APNSState?
    /// The last FCM `authorization` value and what it granted (a memcmp instead of a lookup).
    @exclusivity(unchecked) var fcmAuthorization: String?
    @exclusivity(unchecked) var fcmGrant: AccessTokenStore.Grant?
    /// Per-connection random numbers (message ids) without a shared lock.
    private lazy var random = IDGenerator()

    func nextRandom() -> UInt64 {
        random.next()
    }

    /// The state of the connection `context` belongs to, created on first use.
    static func of(_ context: RequestContext) -> ConnectionState {
        if let existing = context.control.storage?.value as? ConnectionState {
            return existing
        }
        let state = ConnectionState()
        context.control.storage?.value = state
        return state
    }
}
