import PushMockStore
import PushMockTransport
import Synchronization

/// Pushes to one Live Activity in the order a fleet received them (a PostgreSQL store): an APNs
/// `liveactivity` push first takes the activity's fleet-wide turn and adopts the activity as the
/// fleet last saved it, is answered on its connection's loop, and saves the activity before the
/// turn passes on. Without such a store (or for any other push) nothing waits.
struct ActivityTurns: Sendable {
    let order: (any FleetActivityOrder)?
    let activities: LiveActivities

    /// The snapshot key of the activity an APNs request pushes to, if it is a Live Activity push
    /// (`apns-push-type: liveactivity` to `/3/device/<token>`).
    static func activityKey(_ request: HTTPServerRequest) -> String? {
        guard request.path.hasPrefix("/3/device/"), request.headers["apns-push-type"] == "liveactivity" else { return nil }
        let token = request.path.dropFirst("/3/device/".count).prefix { $0 != "?" && $0 != "/" }
        return token.isEmpty ? nil : LiveActivities.keyPrefix + token.lowercased()
    }

    /// With a fleet: the answer that takes the activity's turn, then calls `answer` on the loop
    /// and saves the activity after it. Nil when there is nothing to order.
    func taking(_ request: HTTPServerRequest, answer: @escaping @Sendable (RequestContext) -> ResponderResult) -> ResponderResult? {
        guard let order, let key = Self.activityKey(request) else { return nil }
        let taken = Mutex<ActivityTurn?>(nil)
        return .resumed(ResponderResumption(
            work: {
                // A database that cannot give the turn: answered as without a fleet order.
                if let turn = try? await order.turn(key) { taken.withLock { $0 = turn } }
            },
            respond: { [activities] context in
                guard let turn = taken.withLock({ $0 }) else { return answer(context) }
                activities.turn(key, taken: true)
                if let snapshot = turn.snapshot { activities.apply(key: key, snapshot, inTurn: true) }
                return Self.after(answer(context)) {
                    turn.finish(activities.snapshot(key))
                    activities.turn(key, taken: false)
                }
            }
        ))
    }

    /// `result`, calling `done` once it is final (after a resumed answer's second half).
    static func after(_ result: ResponderResult, _ done: @escaping @Sendable () -> Void) -> ResponderResult {
        if case .resumed(let inner) = result {
            return .resumed(ResponderResumption(work: inner.work) { context in after(inner.respond(context), done) })
        }
        done()
        return result
    }
}
