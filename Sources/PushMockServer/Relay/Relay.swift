import Foundation
import Logging
import PushMockCore
import PushMockOutbound
import PushMockStore
import PushMockTransport
import Synchronization

/// Forwards recorded pushes to the real APNs or FCM (or any compatible server, another PushMock
/// included) with the relay's own credentials, and records what the upstream answered with the
/// delivery (``RelayResult``).
///
/// In `relay` and `shadow` modes a push is queued (bounded: what overflows is recorded as
/// `queue full` and counted) and forwarded by a fixed number of tasks over pooled HTTP/2
/// connections, so the sender's answer never waits for the upstream. In `passthrough` the
/// sender's request waits for ``exchange(_:)``. 429, 5xx and no answer are retried with backoff;
/// a 4xx never is. Only the fields each API defines are forwarded (``forwards(_:to:)``): never the
/// sender's credentials.
final class Relay: Sendable {
    let configuration: RelayConfiguration
    private let store: any DeliveryStore
    let metrics: ServerMetrics
    private let logger: Logger
    private let client: OutboundClient
    private let providerToken: RelayProviderToken?
    private let accessToken: RelayAccessToken?
    private let queue = Mutex(RelayQueue())
    private let consumer: Mutex<Task<Void, Never>?>
    /// Whether the APNs upstream is one of Apple's hosts (then the push's environment picks which).
    private let apnsToApple: Bool
    /// What the push path asks of every delivery, worked out once: which services have an
    /// upstream, whether only accepted pushes go, and whether `match` filters anything.
    private let forwardsAPNs: Bool
    private let forwardsFCM: Bool
    private let forwardsRejected: Bool
    private let matchesAll: Bool
    /// The upstreams' URLs as configured.
    private let apnsURL: String
    private let fcmURL: String
    /// Where the queued forwards run: a thread of their own (their TLS and HTTP/2 work runs on the
    /// client's event loop, at the lowest priority).
    private let executor = RelayExecutor()
    /// Told of every answer recorded (the event streams' `relay` events). In a struct: a closure
    /// kept in a `Mutex` and read back gains a reabstraction thunk on every read with Swift 6.3,
    /// so each call would be slower than the last.
    private struct Observer: Sendable {
        let call: @Sendable (RelayResult, UInt64) -> Void
    }

    private let observer = Mutex<Observer?>(nil)
    /// Counts each upstream answer's agreement with PushMock's, by reason (nil: not counted).
    private let parity: ParityLedger?

    /// Whether the sender's request field `name` is forwarded to a `service` upstream: only the
    /// fields that API defines (APNs' `apns-*`; Google's client and API headers) and the content
    /// type. Never the sender's credentials (`authorization`, `proxy-authorization`, cookies, the
    /// quota project) or what belongs to its own connection.
    static func forwards(_ name: String, to service: Delivery.Service) -> Bool {
        if name == "content-type" { return true }
        switch service {
        case .apns: return name.hasPrefix("apns-")
        default: return googleFields.contains(name)
        }
    }

    static let googleFields: Set<String> = ["x-goog-api-client", "x-firebase-client", "user-agent"]

    init(
        _ configuration: RelayConfiguration, store: any DeliveryStore, metrics: ServerMetrics, logger: Logger, parity: ParityLedger? = nil
    ) throws {
        try configuration.validate()
        self.parity = parity
        self.configuration = configuration
        apnsToApple = configuration.apns.flatMap { URL(string: $0.url)?.host }.map(Self.appleHosts.contains) ?? false
        forwardsAPNs = configuration.apns != nil
        forwardsFCM = configuration.fcm != nil
        forwardsRejected = configuration.mode != .relay
        matchesAll = configuration.match == RelayConfiguration.Match()
        apnsURL = configuration.apns?.url ?? ""
        fcmURL = configuration.fcm?.url ?? ""
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
        let trustedCAs = try configuration.trustedCAs?.read("trusted CA file")
        let client: OutboundClient
        do {
            client = try OutboundClient(
                trustedCAsPEM: trustedCAs, clientCertificate: clientCertificate, connectTimeout: configuration.connectTimeout,
                loopSetup: RelayExecutor.lowerPriority)
        } catch {
            throw PushMockError(code: .invalidConfiguration, message: "relay: \(error.description)")
        }
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
        consumer = Mutex(nil)
        let concurrency = max(1, configuration.concurrency)
        consumer.withLock {
            $0 = Task(executorPreference: executor) { [self] in
                await withTaskGroup(of: Void.self) { group in
                    var running = 0
                    while let job = await nextJob() {
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
    func record(_ result: RelayResult, forDelivery id: UInt64) {
        store.recordRelay(result, forDelivery: id)
        observer.withLock { $0 }?.call(result, id)
    }

    /// Whether `delivery` is forwarded: a service with an upstream, the match, and in `relay`
    /// mode only what PushMock accepted (a push a device would drop is accepted by the service).
    func forwards(_ delivery: Delivery) -> Bool {
        switch delivery.service {
        case .apns: guard forwardsAPNs else { return false }
        case .fcm: guard forwardsFCM else { return false }
        default: return false
        }
        if !forwardsRejected, delivery.outcome == .rejected { return false }
        return matchesAll
            || configuration.match.matches(
                service: delivery.service, topic: delivery.topic, token: delivery.deviceToken, project: delivery.project)
    }

    /// Queues delivery `id` for forwarding (`relay`, `shadow`). A full queue is never waited on:
    /// the push is counted, and only its id is noted, to be recorded as `queue full` by the
    /// relay's thread in a moment. The delivery is copied only once its place is taken (the
    /// lock's closures capture the id and the upstream, never the delivery).
    func submit(_ delivery: Delivery, id: UInt64) {
        let limit = configuration.queueLimit
        let byteLimit = configuration.queueBytes
        let upstream = upstream(for: delivery)
        let cost = RelayJob.cost(of: delivery)
        let step = queue.withLock { queue -> RelayQueue.Step in
            guard !queue.closed, queue.count < limit, queue.bytes + cost <= byteLimit else {
                guard queue.drops.add(id, upstream: upstream) else { return .dropped(record: false) }
                defer { queue.recordingDrops = true }
                return .dropped(record: !queue.recordingDrops)
            }
            return queue.reserve(cost: cost)
        }
        switch step {
        case .reserved:
            let job = RelayJob(deliveryID: id, delivery: delivery, upstream: upstream)
            queue.withLock { $0.fill(with: job) }?.resume(returning: job)
        case .dropped(let record):
            metrics.relayDropped()
            guard record else { return }
            Task(executorPreference: executor) { [self] in
                try? await Task.sleep(for: .milliseconds(50))
                recordDrops()
            }
        }
    }

    /// The next push to forward, waiting for one; nil once the relay is closed and nothing is left.
    private func nextJob() async -> RelayJob? {
        if let job = queue.withLock({ $0.pop() }) { return job }
        return await withCheckedContinuation { (consumer: CheckedContinuation<RelayJob?, Never>) in
            let ready: RelayJob?? = queue.withLock { queue in
                if let job = queue.pop() { return job }
                // A place taken before the close is filled after it: wait for that job too.
                if queue.closed, queue.count == 0 { return .some(nil) }
                queue.consumer = consumer
                return nil
            }
            if let ready { consumer.resume(returning: ready) }
        }
    }

    /// Records every push noted as dropped at the queue bound: `queue full`.
    private func recordDrops() {
        let runs = queue.withLock { queue in
            queue.recordingDrops = false
            return queue.drops.take()
        }
        for run in runs {
            let result = RelayResult(upstream: run.upstream, error: "queue full")
            store.recordRelay(result, forDeliveries: run.ids)
            if let observer = observer.withLock({ $0 }) {
                for id in run.ids { observer.call(result, id) }
            }
        }
    }

    /// Pushes queued and not yet being forwarded.
    var queued: Int { queue.withLock { $0.count } }

    /// What the pushes queued hold, in bytes.
    var queuedBytes: Int { queue.withLock { $0.bytes } }

    /// In `passthrough`: requests awaiting the upstream, in all and per sender connection.
    let awaiting = Mutex<(total: Int, byConnection: [UInt64: Int])>((0, [:]))

    /// Forwards `job` (retrying as the services ask), records what the upstream answered, and
    /// returns that answer (nil: none came). With `deadline` (`passthrough`), every attempt and
    /// backoff ends by then. A cancelled task (the sender left) stops at once.
    func exchange(_ job: RelayJob, deadline: Duration? = nil) async -> UpstreamAnswer? {
        let started = ContinuousClock.now
        let end = deadline.map { started + $0 }
        var delay = configuration.backoff
        var attempts = 0
        var answer: UpstreamAnswer?
        var failure: String?
        while true {
            var timeout = configuration.timeout
            if let end {
                let left = end - .now
                guard left > .zero else { break }
                timeout = min(timeout, left)
            }
            attempts += 1
            do {
                let received = try await send(job, timeout: timeout)
                answer = received
                failure = nil
                if received.status != 429 && received.status < 500 { break }
            } catch {
                failure = "\(error)"
                if let error = error as? OutboundError, error == .shuttingDown { break }
            }
            guard attempts < configuration.attempts, !Task.isCancelled else { break }
            if let end, ContinuousClock.now + delay >= end { break }
            try? await Task.sleep(for: delay)
            delay *= 2
        }
        if Task.isCancelled {
            failure = "the sender left before the upstream answered: forwarding stopped"
        } else if answer == nil, let end, let deadline, ContinuousClock.now >= end - .milliseconds(50) {
            failure = "no answer within the passthrough deadline (\(deadline.components.seconds) s, relay.passthroughDeadline): \(failure ?? "none")"
        }
        let milliseconds =
            Int((ContinuousClock.now - started).components.seconds * 1000)
            + Int((ContinuousClock.now - started).components.attoseconds / 1_000_000_000_000_000)
        var result = RelayResult(upstream: job.upstream, latencyMilliseconds: milliseconds, attempts: attempts)
        if let answer {
            result.status = answer.status
            switch job.service {
            case .apns:
                result.upstreamId = RelayResult.capped(answer.headers.first { $0.name == "apns-id" }?.value)
                if answer.status / 100 != 2 { result.reason = RelayResult.apnsReason(body: answer.body) }
            default:
                if answer.status / 100 == 2 {
                    result.upstreamId = RelayResult.messageName(body: answer.body)
                } else {
                    result.reason = RelayResult.googleReason(body: answer.body)
                }
            }
            result.agrees = RelayResult.agrees(
                status: answer.status, reason: result.reason, ownStatus: job.status, ownReason: job.reason, ownOutcome: job.outcome)
        } else {
            result.error = RelayResult.capped(failure ?? "no answer")
        }
        metrics.relayAnswered(service: job.service, agrees: result.agrees)
        record(result, forDelivery: job.deliveryID)
        parity?.note(result, service: job.service, status: job.status, reason: job.reason, outcome: job.outcome, delivery: job.deliveryID)
        if result.agrees == false {
            logger.info(
                "relay: the upstream disagrees",
                metadata: [
                    "delivery": "\(job.deliveryID)", "pushmock": "\(job.status) \(job.reason ?? "")",
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
            guard apnsToApple else { return apnsURL }
            return delivery.environment == "production" ? "https://api.push.apple.com" : "https://api.sandbox.push.apple.com"
        default:
            return fcmURL
        }
    }

    static let appleHosts: Set<String> = ["api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com"]

    /// One attempt, of `timeout` at most.
    private func send(_ job: RelayJob, timeout: Duration) async throws -> UpstreamAnswer {
        var path = job.path
        var headers: [(name: String, value: String)] = []
        switch job.service {
        case .apns:
            if let providerToken {
                headers.append(("authorization", "bearer " + (try providerToken.token(now: Int64(Date().timeIntervalSince1970)))))
            }
        default:
            guard let accessToken else { throw RelayError("no service account for FCM") }
            headers.append(("authorization", "Bearer " + (try await accessToken.token())))
            path = Self.rewritingProject(path, to: accessToken.account.projectID)
        }
        for field in job.headers where Self.forwards(field.name, to: job.service) {
            headers.append(field)
        }
        return try await client.send(
            method: job.method, url: Self.join(job.upstream, path), headers: headers, body: job.body, timeout: timeout)
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

    /// Stops taking pushes, forwards what is queued (at most `patience`), and closes the connections.
    func close(patience: Duration = .seconds(10)) async {
        queue.withLock { queue in
            queue.closed = true
            return queue.count == 0 ? queue.consumer.take() : nil
        }?.resume(returning: nil)
        if let task = consumer.withLock({ $0 }) {
            let finished = WaitSignal()
            Task {
                await task.value
                finished.finish(true)
            }
            if await !finished.result(timeout: patience, cancel: {}) {
                task.cancel()
                logger.warning("relay: \(queued) queued pushes were not forwarded before shutdown")
                // Cancelled forwards end at once (no retry is tried): the client is shut down after them.
                await task.value
            }
        }
        recordDrops()
        await client.shutdown()
        executor.stop()
    }
}
