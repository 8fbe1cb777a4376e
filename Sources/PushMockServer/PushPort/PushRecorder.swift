import PushMockCore
import PushMockOutbound
import PushMockStore
import PushMockTransport
import Synchronization

/// What an endpoint decided about one request: the facts of its `Delivery` that are the
/// service's own, kept in the delivery itself (``recorded``) and read and written as if they were
/// this value's own (`outcome.reason = …`). The rest (time, connection, method, path, headers,
/// body, status, fault) the recorder fills in place from the request, the answer and the fault
/// (``fill(method:path:headers:body:at:status:fault:connectionID:httpVersion:)``), so that the
/// delivery is never built again from a copy of every field (~420 instructions a push).
@dynamicMemberLookup
struct PushOutcome {
    /// The delivery as the endpoint decided it; complete once filled.
    var recorded: Delivery
    /// What the simulated device did with a push to one activity: its activity and any issued
    /// token are recorded, and its timeline entry is linked to the delivery.
    var device: LiveActivityDevice.Outcome?
    /// A broadcast's outcomes, one per subscribed activity: each timeline entry is linked.
    var fanOut: [LiveActivityDevice.Outcome] = []
    /// What is recorded as the body instead of the request's (a Web Push message's plaintext).
    var recordedBody: [UInt8]?

    /// A fact of the delivery (`service`, `outcome`, `reason`, `diagnostics`, `recipients`…).
    subscript<Value>(dynamicMember field: WritableKeyPath<Delivery, Value>) -> Value {
        get { recorded[keyPath: field] }
        set { recorded[keyPath: field] = newValue }
    }

    /// Completes the delivery with the request `method path` answered `status`, as the store
    /// keeps it. (`case .none` reads the device's tag in place; `if let` copied the outcome to
    /// test it, ~300 instructions on every push.)
    @inline(__always)
    mutating func fill(
        method: String, path: String, headers: [HeaderField], body: [UInt8], at now: PushInstant, status: Int, fault: FaultRule?,
        connectionID: UInt64, httpVersion: String
    ) {
        recorded.receivedAt = now.millisecondsSinceEpoch
        recorded.connectionID = connectionID
        recorded.httpVersion = httpVersion
        recorded.method = method
        recorded.path = path
        recorded.headers = headers
        recorded.body = recordedBody ?? body
        recorded.status = status
        if let fault { recorded.fault = fault.id }
        if case .none = device { return }
        recorded.activityID = device?.activityID
        recorded.issuedActivityToken = device?.issuedToken
    }
}

extension PushOutcome {
    /// An outcome of `service` with nothing else decided yet.
    init(_ service: Delivery.Service, _ outcome: Delivery.Outcome) {
        self.init(
            recorded: Delivery(
                receivedAt: 0, connectionID: 0, httpVersion: "", service: service, method: "", path: "", headers: [], body: [], outcome: outcome,
                status: 0))
    }

    /// Every fact at once: setting them one by one after `init(_:_:)` destroys each `nil` it
    /// replaces, about 700 instructions on every APNs and FCM push.
    @inline(__always)
    init(
        _ service: Delivery.Service, _ outcome: Delivery.Outcome, environment: String? = nil, bodyIsJSON: Bool, identity: String?, pushType: String?,
        topic: String?, deviceToken: String?, apnsID: String? = nil, reason: String?, explanation: String?, diagnostics: [String],
        project: String? = nil, recipients: [String]? = nil, device: LiveActivityDevice.Outcome?
    ) {
        self.init(
            recorded: Delivery(
                receivedAt: 0, connectionID: 0, httpVersion: "", service: service, environment: environment, method: "", path: "", headers: [],
                body: [], bodyIsJSON: bodyIsJSON, identity: identity, pushType: pushType, topic: topic, deviceToken: deviceToken, apnsID: apnsID,
                outcome: outcome, status: 0, reason: reason, explanation: explanation, diagnostics: diagnostics, project: project,
                recipients: recipients),
            device: device)
    }
}

/// The one way a push-port request ends, for APNs, FCM, broadcast, IID, OAuth and the metadata
/// server alike: the fault that fires for it, its `Delivery` built, counted and recorded, the Live
/// Activity timeline entries linked to it, and the fault's effect on the answer (a delay, a GOAWAY
/// after it, or a stream reset instead). Endpoints decide and return a ``PushOutcome``; they never
/// call the store, the fault plan or the counters themselves, so no service can skip a fault or
/// escape the record or the metrics.
final class PushRecorder: Sendable {
    let store: any DeliveryStore
    let metrics: ServerMetrics
    let faults: FaultPlan
    /// The simulated devices' activities, whose timeline entries name their delivery.
    let activities: LiveActivities
    /// The fleet's counter of `count` faults (a PostgreSQL store), if any.
    let counter: (any FleetFaultCounter)?
    /// Whether there is a `counter`: asked on every push, and `counter != nil` copies the
    /// existential to compare it (about 480 instructions).
    private let countsAcrossFleet: Bool
    /// Where what a `count` fault has left is kept (a store that keeps state), if anywhere.
    let archive: (any StateArchive)?
    /// Forwards recorded pushes to an upstream, if one is set.
    let relay: Relay?
    /// How long a claim waits for the counter before the fault is counted here alone.
    static let claimPatience: Duration = .seconds(4)

    init(
        store: any DeliveryStore, capabilities: StoreCapabilities, metrics: ServerMetrics, faults: FaultPlan, activities: LiveActivities,
        relay: Relay? = nil
    ) {
        self.store = store
        self.relay = relay
        self.metrics = metrics
        self.faults = faults
        self.activities = activities
        counter = capabilities.faultCounter
        countsAcrossFleet = capabilities.faultCounter != nil
        archive = capabilities.archive
        faults.countsAcrossFleet = counter != nil
    }

    /// The fault that fires for a request with these facts (counted against its `count`, with a
    /// fleet's count on the fires claimed for it in `claims`), if any.
    func fault(
        _ service: Delivery.Service, path: String, token: String? = nil, topic: String? = nil, project: String? = nil, claims: FaultClaims? = nil
    ) -> FaultRule? {
        let rule = faults.fire(service: service, path: path, token: token, topic: topic, project: project, claims: claims)
        if rule?.count != nil, !countsAcrossFleet {
            // What a `count` fault has left is kept across restarts. (A fleet counts in the
            // database instead: saving the whole list after each fire would let one instance's
            // copy overwrite a fault another just added.)
            FaultArchive.save(faults, to: archive)
        }
        if let spent = claims?.spent {
            for key in spent { FaultArchive.announceSpent(key, to: archive) }
        }
        return rule
    }

    /// Whether a request of `service` to `path` may need a fleet-wide claim: one nil check and
    /// one atomic load without a fleet's `count` fault.
    func mayClaim(_ service: Delivery.Service, path: String) -> Bool {
        countsAcrossFleet && !faults.claimable(service: service, path: path).isEmpty
    }

    /// With a fleet's count: an answer that first claims, from the shared counter, one fire of
    /// each `count` fault that may fire for a request of `service` to `path`, then calls `answer`
    /// on the connection's loop with the claims (fires the request did not use are given back).
    /// Nil when no such fault is set: the request is answered at once, as almost always.
    func claimingFaults(
        _ service: Delivery.Service, path: String, facts: () -> FaultFacts = { FaultFacts() },
        answer: @escaping @Sendable (RequestContext, FaultClaims) -> ResponderResult
    ) -> ResponderResult? {
        guard let counter, mayClaim(service, path: path) else { return nil }
        let known = facts()
        let rules = faults.claimable(service: service, path: path, token: known.token, topic: known.topic, project: known.project)
        guard !rules.isEmpty else { return nil }
        // Fires won are settled once the request is answered: used, or given back. An answer the
        // transport drops (its client left while the claims were taken) gives them all back.
        let taken = Mutex<(claims: FaultClaims, settle: RunOnce)?>(nil)
        return .resumed(
            ResponderResumption(
                work: { [faults, archive] in
                    var claims: [String: FaultClaims.Claim] = [:]
                    for rule in rules {
                        claims[rule.fleetKey] = await Self.claim(rule, from: counter)
                    }
                    let fires = FaultClaims(claims)
                    let settle = RunOnce { Self.settle(fires.won, on: counter, faults: faults, archive: archive) }
                    taken.withLock { $0 = (fires, settle) }
                },
                respond: { context in
                    guard let (claims, settle) = taken.withLock({ $0 }) else { return answer(context, FaultClaims([:])) }
                    let result = answer(context, claims)
                    settle.run()
                    return result
                }
            ))
    }

    /// Settles the fires `won` (each used, or given back) with the fleet's counter, after the
    /// answer: a fault spent by them leaves every instance.
    private static func settle(
        _ won: [(key: String, used: Bool)], on counter: any FleetFaultCounter, faults: FaultPlan, archive: (any StateArchive)?
    ) {
        guard !won.isEmpty else { return }
        Task {
            for (key, used) in won where (try? await counter.settleFire(key, used: used)) == true {
                faults.removeSpent(fleetKey: key)
                FaultArchive.announceSpent(key, to: archive)
            }
        }
    }

    /// One fire of `rule` from the fleet's counter, or `.unavailable` after ``claimPatience`` (a
    /// fire the counter grants after that is given back, not lost).
    private static func claim(_ rule: FaultRule, from counter: any FleetFaultCounter) async -> FaultClaims.Claim {
        let key = rule.fleetKey
        let handoff = ClaimHandoff()
        let attempt = Task<FaultClaims.Claim, Never> {
            let claim: FaultClaims.Claim
            do {
                switch try await counter.claimFire(key, count: rule.count ?? 0) {
                case .won(let remaining): claim = .won(remaining: remaining)
                case .lost(let spent): claim = .lost(spent: spent)
                }
            } catch {
                claim = .unavailable
            }
            if !handoff.deliver(claim), case .won = claim {
                _ = try? await counter.settleFire(key, used: false)
            }
            return claim
        }
        return await withTaskGroup(of: FaultClaims.Claim?.self) { group in
            group.addTask { await attempt.value }
            group.addTask {
                try? await Task.sleep(for: claimPatience)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? handoff.abandon() ?? .unavailable
        }
    }

    /// Records `outcome` of `request`, received at `now` and answered with `response` (which a
    /// rejecting `fault` has already shaped), counts it and links its Live Activity timeline
    /// entries; returns what to do with `response` under `fault`.
    ///
    /// With a `connection` (APNs and FCM), the record is held there and kept once the answer is
    /// flushed: the sender does not wait for the store, the counters and the relay's queue. A
    /// reader is not affected: the inspection port and ``PushMockServer/store`` wait for the
    /// answers already written to be kept (``AnswerLanes/settled()``). `atOnce` (a push's turn
    /// among a fleet's pushes to one Live Activity), a push that changed a simulated Live Activity
    /// and a passthrough relay keep it before answering, after whatever the connection held.
    @inline(__always)
    func record(
        _ outcome: consuming PushOutcome, of request: HTTPServerRequest, at now: PushInstant, response: HTTPServerResponse, fault: FaultRule?,
        context: RequestContext, connection: ConnectionState? = nil, atOnce: Bool = false
    ) -> ResponderResult {
        outcome.fill(
            method: request.method, path: request.path, headers: request.headers.fields, body: request.body, at: now, status: response.status,
            fault: fault, connectionID: context.connection.id, httpVersion: context.connection.httpVersion.rawValue
        )
        // A fault on the upstream's answer changes only what a passthrough relay answers; on a
        // push it does not forward (another relay match), it changed nothing and is not recorded.
        // (A Bool, not two optional copies of the rule: their destruction cost ~190 instructions.)
        let faultsUpstream = fault?.target == .upstream
        var forwarded = false
        if let relay { forwarded = relay.forwards(outcome.recorded) }
        if forwarded, let relay, relay.mode == .passthrough {
            connection?.runAfterAnswer()
            return passThrough(&outcome, response: response, fault: faultsUpstream ? fault : nil, context: context, relay: relay)
        }
        if faultsUpstream { outcome.recorded.fault = nil }
        // A push that changed a simulated Live Activity is kept before its answer, so that the
        // activity (read without waiting: `server.activity(token)`) names its delivery at once.
        // (`case .none` reads the tag in place.)
        var holds = !atOnce
        if case .none = outcome.device {} else { holds = false }
        if let connection, holds {
            if connection.hold(consume outcome, forwarded: forwarded, for: self) { context.control.afterAnswer(connection) }
        } else {
            connection?.runAfterAnswer()
            keep(&outcome, forwarded: forwarded)
        }
        return shaped(response, by: faultsUpstream ? nil : fault, context: context)
    }

    /// Keeps a filled `outcome` (read in place): counted, stored, its Live Activity timeline
    /// entries linked, and handed to the relay if it `forwarded`; returns its id.
    @discardableResult
    func keep(_ outcome: inout PushOutcome, forwarded: Bool) -> UInt64 {
        metrics.recorded(outcome.recorded)
        let id = store.record(outcome.recorded)
        // (`case .none` reads the tag in place; `if let` copied the outcome to test it, ~300
        // instructions on every push.)
        if case .none = outcome.device {
            if !outcome.fanOut.isEmpty { activities.attach(deliveryID: id, to: outcome.fanOut) }
        } else if let device = outcome.device {
            activities.attach(deliveryID: id, to: [device] + outcome.fanOut)
        }
        if let relay, forwarded {
            var delivery = outcome.recorded
            delivery.id = id
            relay.submit(delivery, id: id)
        }
        return id
    }

    /// A push a passthrough relay forwards: kept now, and answered with the upstream's answer
    /// (PushMock's own is recorded), shaped by `upstreamFault`.
    private func passThrough(
        _ outcome: inout PushOutcome, response: HTTPServerResponse, fault upstreamFault: FaultRule?, context: RequestContext, relay: Relay
    ) -> ResponderResult {
        let id = keep(&outcome, forwarded: false)
        var delivery = outcome.recorded
        delivery.id = id
        let job = RelayJob(deliveryID: id, delivery: delivery, upstream: relay.upstream(for: delivery))
        guard let place = relay.admitPassthrough(connection: context.connection.id) else {
            return .response(relay.overloaded(job))
        }
        // The place is given back when the work ends, answered, timed out or cancelled (the sender left).
        let answer = Mutex<UpstreamAnswer?>(nil)
        let deadline = relay.configuration.passthroughDeadline
        return .resumed(
            ResponderResumption(
                work: {
                    let received = await relay.exchange(job, deadline: deadline)
                    answer.withLock { $0 = received }
                    withExtendedLifetime(place) {}
                },
                respond: { context in
                    self.shaped(relay.response(for: answer.withLock { $0 }, of: job), by: upstreamFault, context: context)
                }
            ))
    }

    /// `response` as `fault` shapes it: delayed, followed by a GOAWAY, or replaced by a reset.
    private func shaped(_ response: HTTPServerResponse, by fault: FaultRule?, context: RequestContext) -> ResponderResult {
        switch fault?.action {
        case .delay(let milliseconds):
            return .delayed(response, by: .milliseconds(milliseconds))
        case .goAway(let reason):
            context.control.goAwayAfterAnswer(errorCode: .noError, debugData: Array(#"{"reason":"\#(JSONText.escape(reason))"}"#.utf8))
            return .response(response)
        case .resetStream:
            return .resetStream(.cancel)
        case .delayDrawn:
            return .response(response)  // (FaultPlan.fire draws it: a fired rule carries .delay)
        case .reject(_, _, let seconds?):
            var answer = response
            answer.headers.append("retry-after", String(seconds))
            return .response(answer)
        case .reject, nil:
            return .response(response)
        }
    }
}

/// A claim's answer handed to the request that waits for it, unless that request stopped waiting
/// first (then the answer is the claimer's to undo).
private final class ClaimHandoff: Sendable {
    private enum State {
        case waiting
        case delivered(FaultClaims.Claim)
        case abandoned
    }

    private let state = Mutex(State.waiting)

    /// Hands `claim` over; false when the request no longer waits.
    func deliver(_ claim: FaultClaims.Claim) -> Bool {
        state.withLock { state in
            if case .abandoned = state { return false }
            state = .delivered(claim)
            return true
        }
    }

    /// Stops waiting; the answer if it came just in time.
    func abandon() -> FaultClaims.Claim? {
        state.withLock { state in
            if case .delivered(let claim) = state { return claim }
            state = .abandoned
            return nil
        }
    }
}
