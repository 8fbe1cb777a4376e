import PushMockBytes
import PushMockCore
import PushMockStore
package import PushMockTransport
import Synchronization

/// Pushes to a Live Activity in the order a fleet received them (a PostgreSQL store): an APNs
/// `liveactivity` push, an FCM message with `apns.live_activity_token`, or a broadcast (each
/// subscribed activity) first takes the activity's fleet-wide turn and adopts the activity as the
/// fleet last saved it (its head, and the entries of its timeline this instance has not seen), is
/// answered on its connection's loop, and saves what changed before the turn passes on. Without such a store (or for any other push) nothing waits.
package struct ActivityTurns: Sendable {
    let order: (any FleetActivityOrder)?
    let activities: LiveActivities
    /// This instance's hold on each activity, from before the fleet's turn until what the push
    /// changed is written (rebased, if the fleet's turn was given up meanwhile).
    let local = LocalTurns()

    /// The snapshot key of the activity a request pushes to, if it is a Live Activity push: APNs
    /// `apns-push-type: liveactivity` to `/3/device/<token>`, or an FCM `messages:send` whose message
    /// has `apns.live_activity_token` (the APNs request FCM makes goes to that token).
    package static func activityKey(_ request: HTTPServerRequest) -> String? {
        if request.path.hasPrefix(APNSDevicePath.prefix) {
            guard request.headers["apns-push-type"] == "liveactivity", let token = APNSDevicePath.token(in: request.path) else { return nil }
            return LiveActivities.keyPrefix + token.lowercased()
        }
        guard request.path.hasSuffix("/messages:send"), mentionsLiveActivityToken(request.body),
            let apns = JSONValue.parse(request.body)?["message"]?["apns"],
            case .string(let token)? = apns["live_activity_token"] ?? apns["liveActivityToken"], !token.isEmpty
        else { return nil }
        return LiveActivities.keyPrefix + token.lowercased()
    }

    /// Whether `body` has the bytes `ctivity_token` or `ctivityToken` (either spelling of the field):
    /// the other messages are not parsed for it.
    static func mentionsLiveActivityToken(_ body: [UInt8]) -> Bool {
        let snake = Array("ctivity_token".utf8)
        let camel = Array("ctivityToken".utf8)
        return body.withByteView { bytes in
            var index = 0
            while index + camel.count <= bytes.count {
                if bytes[index] == UInt8(ascii: "c"), bytes[index + 1] == UInt8(ascii: "t") {
                    if bytes[index...].starts(with: camel) || bytes[index...].starts(with: snake) { return true }
                }
                index += 1
            }
            return false
        }
    }

    /// The snapshot keys of the activities a request reaches: the one of ``activityKey(_:)``, or
    /// for an APNs broadcast (`POST /4/broadcasts/apps/<bundle>` with `apns-channel-id`) those
    /// subscribed to the channel that this instance knows of.
    func activityKeys(_ request: HTTPServerRequest) -> [String] {
        if let key = Self.activityKey(request) { return [key] }
        guard request.method == "POST", request.path.hasPrefix("/4/broadcasts/apps/"), let channel = request.headers["apns-channel-id"] else {
            return []
        }
        return activities.keys(subscribedTo: channel)
    }

    /// With a fleet: the answer that takes the turn of each activity the request reaches, then
    /// calls `answer` on the loop and saves the activities after it. Nil when there is nothing to order.
    func taking(_ request: HTTPServerRequest, answer: @escaping @Sendable (RequestContext) -> ResponderResult) -> ResponderResult? {
        guard let order else { return nil }
        let keys = activityKeys(request)
        guard !keys.isEmpty else { return nil }
        // A push whose answer is never resumed (its client left meanwhile) still gives its
        // activities back here, and a push answered still saves what it changed: each is a
        // ``RunOnce``, run when its time comes or else when the answer is dropped.
        let taken = Mutex<(turn: ActivityTurn, since: [String: String], hold: RunOnce)?>(nil)
        return .resumed(
            ResponderResumption(
                work: { [local] in
                    await local.take(keys)
                    let hold = RunOnce { local.give(keys) }
                    let since = activities.unseenEntries(keys)
                    guard let turn = try? await order.turn(keys, since: since) else {
                        // A database that cannot give the turn: answered as without a fleet order.
                        hold.run()
                        return
                    }
                    taken.withLock { $0 = (turn, since, hold) }
                },
                respond: { [activities] context in
                    guard let (turn, since, hold) = taken.withLock({ $0 }) else { return answer(context) }
                    for key in keys { activities.turn(key, taken: true) }
                    // The entries first (they wait for their head), then the heads.
                    for (key, value) in turn.snapshots.sorted(by: { $0.key < $1.key }) where !keys.contains(key) {
                        activities.apply(key: key, value, inTurn: true)
                    }
                    for key in keys {
                        if let snapshot = turn.snapshots[key] { activities.apply(key: key, snapshot, inTurn: true) }
                    }
                    let save = RunOnce {
                        // A push that outlived its turn is rebased on what the fleet saved meanwhile,
                        // and holds its activities here until then.
                        let written = turn.finish(keys.flatMap { activities.changes($0) }) { changes, fleet in
                            defer { hold.run() }
                            guard let fleet else { return changes }
                            return activities.rebase(changes, keys: keys, since: since, on: fleet)
                        }
                        for key in keys { activities.turn(key, taken: false) }
                        if written { hold.run() }
                    }
                    return Self.after(answer(context)) { save.run() }
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
