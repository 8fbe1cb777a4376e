import PushMockCore
import PushMockOutbound
import PushMockTransport
import Synchronization

/// `passthrough`: the sender's request waits for the upstream's answer, within bounds (in all and
/// per sender connection), and gets that answer, or 429 at once past the bounds, or 502 when none came.
extension Relay {
    /// Takes a place for a `passthrough` request from `connection`; past either bound, nil, and
    /// the push is not forwarded (``overloaded(_:)``).
    func admitPassthrough(connection: UInt64) -> PassthroughPlace? {
        let total = configuration.passthroughLimit
        let perConnection = configuration.passthroughPerConnection
        let admitted = awaiting.withLock { state in
            let mine = state.byConnection[connection, default: 0]
            guard state.total < total, mine < perConnection else { return false }
            state.total += 1
            state.byConnection[connection] = mine + 1
            return true
        }
        return admitted ? PassthroughPlace(relay: self, connection: connection) : nil
    }

    /// Gives back a place ``admitPassthrough(connection:)`` took.
    fileprivate func release(connection: UInt64) {
        awaiting.withLock { state in
            state.total -= 1
            let mine = state.byConnection[connection, default: 1] - 1
            state.byConnection[connection] = mine > 0 ? mine : nil
        }
    }

    /// `passthrough` requests awaiting the upstream now.
    var awaitingUpstream: Int { awaiting.withLock { $0.total } }

    /// What a `passthrough` sender past the bounds gets at once, as the service answers overload
    /// (APNs 429 `TooManyRequests`; FCM 429 `QUOTA_EXCEEDED`); the push is recorded as not forwarded.
    func overloaded(_ job: RelayJob) -> HTTPServerResponse {
        let why =
            "not forwarded: \(configuration.passthroughLimit) passthrough requests in all, or \(configuration.passthroughPerConnection) from one connection, were awaiting the upstream (relay.passthroughLimit, relay.passthroughPerConnection)"
        metrics.relayDropped()
        record(RelayResult(upstream: job.upstream, error: why), forDelivery: job.deliveryID)
        if job.service == .apns {
            return .json(status: 429, #"{"reason":"TooManyRequests"}"#)
        }
        let error = GoogleError.fcm(.quotaExceeded, message: "PushMock relay: \(why)")
        return GooglePages.json(status: error.code, error.json)
    }

    /// What a `passthrough` sender gets: the upstream's answer, or 502 naming the upstream.
    func response(for answer: UpstreamAnswer?, of job: RelayJob) -> HTTPServerResponse {
        guard let answer else {
            let upstream = job.upstream
            if job.service == .apns {
                return .json(
                    status: 502,
                    #"{"reason":"RelayUpstreamUnavailable","description":"\#(JSONText.escape("no answer from \(upstream)"))"}"#)
            }
            return .json(
                status: 502,
                #"{"error":{"code":502,"message":"\#(JSONText.escape("no answer from \(upstream)"))","status":"UNAVAILABLE"}}"#)
        }
        var headers: HTTPHeaderList = []
        for field in answer.headers where ["content-type", "apns-id", "apns-unique-id", "retry-after"].contains(field.name) {
            headers.append(field.name, field.value)
        }
        return HTTPServerResponse(status: answer.status, headers: headers, body: answer.body.isEmpty ? nil : answer.body)
    }
}

/// A place among the `passthrough` requests awaiting the upstream, given back when it goes.
final class PassthroughPlace: Sendable {
    private let relay: Relay
    private let connection: UInt64

    fileprivate init(relay: Relay, connection: UInt64) {
        self.relay = relay
        self.connection = connection
    }

    deinit { relay.release(connection: connection) }
}
