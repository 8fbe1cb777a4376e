import PushMockCore
import PushMockStore
import PushMockTransport

/// What a fault's filters match in a request: known once its endpoint has judged it.
struct FaultFacts {
    var token: String?
    var topic: String?
    var project: String?
}

/// A fault that fired for a request, as its endpoint sees it: named in the record, and, for a
/// rejecting fault, the status and reason the endpoint answers in its service's own shape. What
/// else a fault does to the answer (a delay, a GOAWAY, a reset, `Retry-After`) is done by the
/// recorder, after the endpoint.
struct FiredFault {
    let id: String
    /// A rejecting fault's answer; nil for a fault that only shapes the endpoint's own answer.
    let rejection: (status: Int, reason: String)?
    /// The fault sets its own `Retry-After`.
    let namesRetryAfter: Bool

    init(_ rule: FaultRule) {
        id = rule.id
        if case .reject(let status, let reason, let seconds) = rule.action {
            rejection = (status, reason)
            namesRetryAfter = seconds != nil
        } else {
            rejection = nil
            namesRetryAfter = false
        }
    }
}

/// One push-port service's endpoint, in two halves around the fault that may fire for a request:
/// ``judge(_:target:context:now:)`` reads the request as the real service would, then the fault
/// fires in one place (``serve(_:target:context:claims:)``), then ``answer(_:fault:request:context:now:)``
/// answers it (in the fault's place when it rejects) and says what is recorded. An endpoint never
/// fires a fault, records or counts anything itself.
protocol PushEndpoint {
    /// What the route table found in the request's path (a project, an operation, nothing).
    associatedtype Target
    /// What the endpoint made of a request before any fault.
    associatedtype Judgement

    static var service: Delivery.Service { get }
    var recorder: PushRecorder { get }
    var clock: PushMockClock { get }

    func judge(_ request: HTTPServerRequest, target: Target, context: RequestContext, now: PushInstant) -> Judgement
    /// What a fault's filters match; nil when no fault may fire for the request. (`inout` only so
    /// that the judgement, an FCM message's result among them, is read in place, not copied.)
    func faultFacts(of judgement: inout Judgement) -> FaultFacts?
    /// The connection's state, where the push's record is held until its answer is flushed; nil
    /// (the default): it is recorded at once.
    func connectionState(of judgement: inout Judgement) -> ConnectionState?
    /// The answer to a judged request and what is recorded of it; `fault` is the fault that fired.
    func answer(
        _ judgement: inout Judgement, fault: FiredFault?, request: HTTPServerRequest, context: RequestContext, now: PushInstant
    ) -> (response: HTTPServerResponse, outcome: PushOutcome)
}

extension PushEndpoint {
    func connectionState(of judgement: inout Judgement) -> ConnectionState? { nil }

    /// The one way a push-port request is served: judged, its fault fired (counted against a
    /// fleet's `claims`), answered, recorded, and its answer shaped by the fault. An `ordered`
    /// request (its turn among a fleet's pushes to one Live Activity) is recorded before its turn
    /// passes on; any other is recorded once its answer is flushed (``PushRecorder/record``).
    @inline(__always)
    func serve(
        _ request: HTTPServerRequest, target: Target, context: RequestContext, claims: FaultClaims?, ordered: Bool = false
    ) -> ResponderResult {
        let now = clock.now
        var judgement = judge(request, target: target, context: context, now: now)
        var rule: FaultRule?
        // Without rules or claims (almost every push) no facts are gathered and nothing fires.
        if claims != nil || !recorder.faults.isEmpty, let facts = faultFacts(of: &judgement) {
            rule = recorder.fault(Self.service, path: request.path, token: facts.token, topic: facts.topic, project: facts.project, claims: claims)
        }
        let connection = connectionState(of: &judgement)
        let (response, outcome) = answer(&judgement, fault: rule.map(FiredFault.init), request: request, context: context, now: now)
        return recorder.record(
            consume outcome, of: request, at: now, response: response, fault: rule, context: context, connection: connection, atOnce: ordered)
    }
}
