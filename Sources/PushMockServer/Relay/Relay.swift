import Foundation
import Logging
import PushMockCore
import PushMockStore
import PushMockTransport
import Synchronization

/// One push to forward: what was recorded of it, and PushMock's own verdict.
struct RelayJob: Sendable {
    var deliveryID: UInt64
    var delivery: Delivery
}

/// What an upstream answered.
struct UpstreamAnswer: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
}

/// Forwards recorded pushes to the real APNs or FCM (or any compatible server, another PushMock
/// included) with the relay's own credentials, and records what the upstream answered with the
/// delivery (``RelayResult``).
///
/// In `relay` and `shadow` modes a push is queued (bounded: what overflows is recorded as
/// `queue full` and counted) and forwarded by a fixed number of tasks over pooled HTTP/2
/// connections, so the sender's answer never waits for the upstream. In `passthrough` the
/// sender's request waits for ``exchange(_:)``. 429, 5xx and no answer are retried with backoff;
/// a 4xx never is. The sender's `authorization` is never forwarded.
final class Relay: Sendable {
    let configuration: RelayConfiguration
    private let store: any DeliveryStore
    private let metrics: ServerMetrics
    private let logger: Logger
    private let client: RelayClient
    private let providerToken: RelayProviderToken?
    private let accessToken: RelayAccessToken?
    private let jobs: AsyncStream<RelayJob>.Continuation
    private let consumer: Mutex<Task<Void, Never>?>
    private let waiting = Atomic<Int>(0)
    /// Whether the APNs upstream is one of Apple's hosts (then the push's environment picks which).
    private let apnsToApple: Bool
    /// Pushes dropped at the queue bound, recorded as such by the relay's thread.
    private let drops = Mutex(RelayDrops())
    /// A recording of `drops` is scheduled.
    private let recordingDrops = Atomic<Bool>(false)
    /// Where the queued forwards run: a thread at the lowest priority.
    private let executor = RelayExecutor()
    /// Told of every answer recorded (the event streams' `relay` events). In a struct: a closure
    /// kept in a `Mutex` and read back gains a reabstraction thunk on every read with Swift 6.3,
    /// so each call would be slower than the last.
    private struct Observer: Sendable {
        let call: @Sendable (RelayResult, UInt64) -> Void
    }

    private let observer = Mutex<Observer?>(nil)

    /// Request fields that are never forwarded: the sender's credentials, and what belongs to its
    /// own connection.
    static let withheld: Set<String> = [
        "authorization", "host", "content-length", "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
        "x-goog-user-project",
    ]

    init(_ configuration: RelayConfiguration, store: any DeliveryStore, metrics: ServerMetrics, logger: Logger) throws {
        try configuration.validate()
        self.configuration = configuration
        apnsToApple = configuration.apns.flatMap { URL(string: $0.url)?.host }.map(Self.appleHosts.contains) ?? false
        self.store = store
        self.metrics = metrics
        self.logger = logger
        var providerToken: RelayProviderToken?
        var clientCertificate: (chainPEM: String, keyPEM: String)?
        switch configuration.apns?.credential {
        case .token(let key, let keyID, let teamID)?:
            providerToken = try RelayProviderToken(pem: try key.read("APNs key"), keyID: keyID, teamID: teamID)
        case .certificate(let chain, let key)?:
            clientCertificate = (try chain.read("APNs certificate"), try key.read("APNs certificate key"))
        case nil:
            break
        }
        self.providerToken = providerToken
        let client = try RelayClient(trustedCAsPEM: try configuration.trustedCAs?.read("trusted CA file"), clientCertificate: clientCertificate)
        self.client = client
        if let fcm = configuration.fcm, let material = fcm.serviceAccount {
            let account = try RelayAccessToken.account(json: try material.read("FCM service account"))
            accessToken = RelayAccessToken(account: account) { url, form in
                let answer = try await client.send(
                    method: "POST", url: url, headers: [(name: "content-type", value: "application/x-www-form-urlencoded")], body: Array(form.utf8),
                    timeout: .seconds(10))
                return (answer.status, answer.body)
            }
        } else {
            accessToken = nil
        }
        let (stream, continuation) = AsyncStream.makeStream(of: RelayJob.self, bufferingPolicy: .bufferingOldest(configuration.queueLimit))
        jobs = continuation
        consumer = Mutex(nil)
        let concurrency = max(1, configuration.concurrency)
        consumer.withLock {
            $0 = Task(executorPreference: executor) { [self] in
                await withTaskGroup(of: Void.self) { group in
                    var running = 0
                    for await job in stream {
                        waiting.subtract(1, ordering: .relaxed)
                        if running >= concurrency {
                            await group.next()
                            running -= 1
                        }
                        group.addTask(executorPreference: executor) { _ = await self.exchange(job) }
                        running += 1
                    }
                }
            }
        }
    }

    var mode: RelayConfiguration.Mode { configuration.mode }

    /// Calls `observe` with every answer recorded.
    func observe(_ observe: @escaping @Sendable (RelayResult, UInt64) -> Void) {
        observer.withLock { $0 = Observer(call: observe) }
    }

    /// Keeps `result` with delivery `id`, and tells the observer.
    private func record(_ result: RelayResult, forDelivery id: UInt64) {
        store.recordRelay(result, forDelivery: id)
        observer.withLock { $0 }?.call(result, id)
    }

    /// Whether `delivery` is forwarded: a service with an upstream, the match, and in `relay`
    /// mode only what PushMock accepted (a push a device would drop is accepted by the service).
    func forwards(_ delivery: Delivery) -> Bool {
        switch delivery.service {
        case .apns: guard configuration.apns != nil else { return false }
        case .fcm: guard configuration.fcm != nil else { return false }
        default: return false
        }
        if configuration.mode == .relay, delivery.outcome == .rejected { return false }
        return configuration.match.matches(
            service: delivery.service, topic: delivery.topic, token: delivery.deviceToken, project: delivery.project)
    }

    /// Queues `job` (`relay`, `shadow`); a full queue is recorded and counted, never waited on.
    func submit(_ job: RelayJob) {
        waiting.add(1, ordering: .relaxed)
        switch jobs.yield(job) {
        case .enqueued:
            break
        case .dropped, .terminated:
            waiting.subtract(1, ordering: .relaxed)
            metrics.relayDropped()
            // Recorded by the relay's thread in a moment: the push path only notes the id.
            let upstream = upstream(for: job.delivery)
            guard drops.withLock({ $0.add(job.deliveryID, upstream: upstream) }) else { return }
            if recordingDrops.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
                Task(executorPreference: executor) { [self] in
                    try? await Task.sleep(for: .milliseconds(50))
                    recordDrops()
                }
            }
        @unknown default:
            waiting.subtract(1, ordering: .relaxed)
        }
    }

    /// Records every push noted as dropped at the queue bound: `queue full`.
    private func recordDrops() {
        recordingDrops.store(false, ordering: .releasing)
        for run in drops.withLock({ $0.take() }) {
            let result = RelayResult(upstream: run.upstream, error: "queue full")
            for id in run.ids { record(result, forDelivery: id) }
        }
    }

    /// Pushes queued and not yet being forwarded.
    var queued: Int { max(0, waiting.load(ordering: .relaxed)) }

    /// Forwards `job` (retrying as the services ask), records what the upstream answered, and
    /// returns that answer (nil: none came).
    func exchange(_ job: RelayJob) async -> UpstreamAnswer? {
        let started = ContinuousClock.now
        var delay = configuration.backoff
        var attempts = 0
        var answer: UpstreamAnswer?
        var failure: String?
        while true {
            attempts += 1
            do {
                let received = try await send(job)
                answer = received
                failure = nil
                if received.status != 429 && received.status < 500 { break }
            } catch {
                failure = "\(error)"
            }
            guard attempts < configuration.attempts else { break }
            try? await Task.sleep(for: delay)
            delay *= 2
        }
        let milliseconds =
            Int((ContinuousClock.now - started).components.seconds * 1000)
            + Int((ContinuousClock.now - started).components.attoseconds / 1_000_000_000_000_000)
        var result = RelayResult(upstream: upstream(for: job.delivery), latencyMilliseconds: milliseconds, attempts: attempts)
        let delivery = job.delivery
        if let answer {
            result.status = answer.status
            switch delivery.service {
            case .apns:
                result.upstreamId = answer.headers.first { $0.name == "apns-id" }?.value
                if answer.status / 100 != 2 { result.reason = RelayResult.apnsReason(body: answer.body) }
            default:
                if answer.status / 100 == 2 {
                    result.upstreamId = RelayResult.messageName(body: answer.body)
                } else {
                    result.reason = RelayResult.googleReason(body: answer.body)
                }
            }
            result.agrees = RelayResult.agrees(
                status: answer.status, reason: result.reason, ownStatus: delivery.status, ownReason: delivery.reason, ownOutcome: delivery.outcome)
        } else {
            result.error = failure ?? "no answer"
        }
        metrics.relayAnswered(service: delivery.service, agrees: result.agrees)
        record(result, forDelivery: job.deliveryID)
        if result.agrees == false {
            logger.info(
                "relay: the upstream disagrees",
                metadata: [
                    "delivery": "\(job.deliveryID)", "pushmock": "\(delivery.status) \(delivery.reason ?? "")",
                    "upstream": "\(result.status ?? 0) \(result.reason ?? "")",
                ])
        }
        return answer
    }

    /// The upstream's base URL for `delivery`. Apple's hosts follow the environment the push was
    /// sent to (a push to the sandbox goes to Apple's sandbox, as sent); any other URL is used as
    /// it is.
    func upstream(for delivery: Delivery) -> String {
        switch delivery.service {
        case .apns:
            guard apnsToApple else { return configuration.apns?.url ?? "" }
            return delivery.environment == "production" ? "https://api.push.apple.com" : "https://api.sandbox.push.apple.com"
        default:
            return configuration.fcm?.url ?? ""
        }
    }

    static let appleHosts: Set<String> = ["api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com"]

    /// One attempt.
    private func send(_ job: RelayJob) async throws -> UpstreamAnswer {
        let delivery = job.delivery
        var path = delivery.path
        var headers: [(name: String, value: String)] = []
        switch delivery.service {
        case .apns:
            if let providerToken {
                headers.append(("authorization", "bearer " + (try providerToken.token(now: Int64(Date().timeIntervalSince1970)))))
            }
        default:
            guard let accessToken else { throw RelayError("no service account for FCM") }
            headers.append(("authorization", "Bearer " + (try await accessToken.token())))
            path = Self.rewritingProject(path, to: accessToken.account.projectID)
        }
        for field in delivery.headers where !Self.withheld.contains(field.name) {
            headers.append((field.name, field.value))
        }
        return try await client.send(
            method: delivery.method, url: Self.join(upstream(for: delivery), path), headers: headers, body: delivery.body,
            timeout: configuration.timeout)
    }

    /// `base` (no trailing slash needed) and `path`.
    static func join(_ base: String, _ path: String) -> String {
        (base.hasSuffix("/") ? String(base.dropLast()) : base) + path
    }

    /// An FCM path `/v1/projects/<sender's>/messages:send` naming the relay's project instead.
    static func rewritingProject(_ path: String, to project: String) -> String {
        let prefix = "/v1/projects/"
        guard path.hasPrefix(prefix), let slash = path.dropFirst(prefix.count).firstIndex(of: "/") else { return path }
        return prefix + project + path[slash...]
    }

    /// What a `passthrough` sender gets: the upstream's answer, or 502 naming the upstream.
    func response(for answer: UpstreamAnswer?, of delivery: Delivery) -> HTTPServerResponse {
        guard let answer else {
            let upstream = upstream(for: delivery)
            if delivery.service == .apns {
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

    /// Stops taking pushes, forwards what is queued (at most `patience`), and closes the connections.
    func close(patience: Duration = .seconds(10)) async {
        jobs.finish()
        if let task = consumer.withLock({ $0 }) {
            let finished = WaitSignal()
            Task {
                await task.value
                finished.finish(true)
            }
            if await !finished.result(timeout: patience, cancel: {}) {
                task.cancel()
                logger.warning("relay: \(queued) queued pushes were not forwarded before shutdown")
            }
        }
        recordDrops()
        await client.shutdown()
        executor.stop()
    }
}
