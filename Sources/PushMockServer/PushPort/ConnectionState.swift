import PushMockCore
import PushMockTransport

/// What PushMock keeps per client connection (in the transport's per-connection storage). Only the
/// connection's event loop touches it, so its fields skip the runtime's exclusivity checks.
final class ConnectionState {
    /// APNs binding, credential and ids, once the connection sent an APNs request.
    @exclusivity(unchecked) var apns: APNSEndpoint.APNSState?
    /// The last FCM `authorization` value and what it granted (a memcmp instead of a lookup).
    @exclusivity(unchecked) var fcmCredential: FCMEndpoint.CachedGrant?
    /// Per-connection random numbers (message ids) without a shared lock.
    @exclusivity(unchecked) private var random: IDGenerator?
    /// Memory this connection's FCM validations reuse, made at its first message.
    @exclusivity(unchecked) private var fcmScratchStorage: FCMMessageValidator.Scratch?

    var fcmScratch: FCMMessageValidator.Scratch {
        if let fcmScratchStorage { return fcmScratchStorage }
        let made = FCMMessageValidator.Scratch()
        fcmScratchStorage = made
        return made
    }

    func nextRandom() -> UInt64 {
        if random == nil { random = IDGenerator() }
        return random!.next()
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
