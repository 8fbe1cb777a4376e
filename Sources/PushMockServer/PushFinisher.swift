import PushMockCore
import PushMockStore
import PushMockTransport

/// The one way a push-port request ends, for APNs, FCM, broadcast and OAuth alike: the fault that
/// fires for it, its `Delivery` recorded and counted, and the fault's effect on the answer (a
/// delay, a GOAWAY after it, or a stream reset instead). Endpoints never call the store, the fault
/// plan or the counters themselves, so no service can skip a fault or escape the metrics.
struct PushFinisher: Sendable {
    let store: any DeliveryStore
    let metrics: ServerMetrics
    let faults: FaultPlan

    /// The fault that fires for a request with these facts (counted against its `count`), if any.
    func fault(_ service: Delivery.Service, path: String, token: String? = nil, topic: String? = nil, project: String? = nil) -> FaultRule? {
        let rule = faults.fire(service: service, path: path, token: token, topic: topic, project: project)
        if rule?.count != nil {
            // What a `count` fault has left is kept, and shared with a fleet.
            ServerState.saveFaults(faults, to: store)
        }
        return rule
    }

    /// Records `delivery` and counts it; returns its id and what to do with `response` under `fault`.
    func finish(_ delivery: Delivery, response: HTTPServerResponse, fault: FaultRule?, context: RequestContext) -> (id: UInt64, result: ResponderResult) {
        metrics.recorded(delivery)
        let id = store.record(delivery)
        switch fault?.action {
        case .delay(let milliseconds):
            return (id, .delayed(response, by: .milliseconds(milliseconds)))
        case .goAway(let reason):
            context.control.goAway(errorCode: .noError, debugData: Array(#"{"reason":"\#(JSONText.escape(reason))"}"#.utf8))
            return (id, .response(response))
        case .resetStream:
            return (id, .resetStream(.cancel))
        case .reject, nil:
            return (id, .response(response))
        }
    }
}
