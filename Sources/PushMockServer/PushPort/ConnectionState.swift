import PushMockCore
import PushMockTransport

/// What PushMock keeps per client connection (in the transport's per-connection storage). Only the
/// connection's event loop touches it, so its fields skip the runtime's exclusivity checks.
///
/// It also holds the records of the pushes answered on the connection until their answers are
/// flushed: the transport then runs it (``runAfterAnswer()``, left once per batch of answers with
/// ``ConnectionControl/afterAnswer(_:)-(AfterAnswerWork)``), and it keeps them, in order.
final class ConnectionState: AfterAnswerWork {
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

    /// Records answered and not yet kept, in the order answered.
    @exclusivity(unchecked) private var held: [HeldRecord] = []
    /// The records being kept (kept between runs for its capacity).
    @exclusivity(unchecked) private var keeping: [HeldRecord] = []
    /// Who keeps them.
    @exclusivity(unchecked) private var recorder: PushRecorder?

    private struct HeldRecord {
        var outcome: PushOutcome
        let forwarded: Bool
    }

    /// Holds `outcome` until the answer is flushed; true when it is the first held since the last
    /// run (the caller then leaves this state for after the answer).
    func hold(_ outcome: consuming PushOutcome, forwarded: Bool, for recorder: PushRecorder) -> Bool {
        // (Set once: assigning it each time retained one and released the other on every push.)
        if self.recorder == nil { self.recorder = recorder }
        held.append(HeldRecord(outcome: outcome, forwarded: forwarded))
        return held.count == 1
    }

    /// Keeps every record held, in order.
    func runAfterAnswer() {
        guard !held.isEmpty, let recorder else { return }
        swap(&held, &keeping)
        for index in keeping.indices {
            recorder.keep(&keeping[index].outcome, forwarded: keeping[index].forwarded)
        }
        keeping.removeAll(keepingCapacity: true)
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
