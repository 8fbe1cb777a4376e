import Foundation
public import PushMockCore
public import PushMockStore
import Synchronization

/// The whole inspection port, transport-neutral: one route table from which come the handlers,
/// 404, 405 with `Allow`, and the check against `openapi.yaml`; the browser guards and the
/// inspection token in front. The server hands it each request; tests call it without sockets.
///
/// ```swift
/// let router = InspectionRouter(store: store, devices: devices, faults: faults, activities: board, control: control)
/// let answer = await router.respond(to: InspectionRequest(method: "GET", target: "/api/v1/deliveries?limit=5"))
/// ```
public struct InspectionRouter: Sendable {
    let store: any DeliveryStore
    let devices: any DeviceDirectory
    let faults: any FaultDirectory
    let activities: any ActivityBoard
    let control: any ServerControl
    let settings: InspectionSettings
    let events: EventHub
    /// Long-polls waiting now.
    let longPolls: SlotCounter
    /// How the catalogue and "Send again" reach the push port (nil: they answer 409).
    let sender: (any PushSender)?
    /// What the catalogue signs with.
    let credentials: CatalogueCredentials
    /// The server's clock, in seconds since 1970 (provider tokens and Live Activity timestamps).
    let now: @Sendable () -> Int64
    /// The server's clock, in milliseconds since 1970 (a device registered as unregistered since now).
    let nowMilliseconds: @Sendable () -> Int64
    /// The Web Push subscriptions minted.
    let webPush: WebPushSubscriptions

    /// Creates the port over the server's state.
    public init(
        store: any DeliveryStore, devices: any DeviceDirectory, faults: any FaultDirectory, activities: any ActivityBoard,
        control: any ServerControl, settings: InspectionSettings = InspectionSettings(),
        sender: (any PushSender)? = nil, credentials: CatalogueCredentials = CatalogueCredentials(),
        nowMilliseconds: (@Sendable () -> Int64)? = nil, webPush: WebPushSubscriptions = WebPushSubscriptions()
    ) {
        self.webPush = webPush
        self.sender = sender
        self.credentials = credentials
        let milliseconds = nowMilliseconds ?? { Int64(Date().timeIntervalSince1970 * 1000) }
        self.nowMilliseconds = milliseconds
        self.now = { milliseconds() / 1000 }
        self.store = store
        self.devices = devices
        self.faults = faults
        self.activities = activities
        self.control = control
        self.settings = settings
        self.events = EventHub(store: store, maxSubscribers: settings.maxEventSubscribers)
        self.longPolls = SlotCounter(limit: settings.maxLongPolls)
    }

    /// Every operation of the port, in matching order (literal segments before `{…}`).
    public static let routes: [InspectionRoute] = [
        InspectionRoute("GET", "/") { router, call in try router.page(call) },
        InspectionRoute("GET", "/ui/{file}") { router, call in try router.uiFile(call) },
        InspectionRoute("GET", "/livez") { _, _ in .response(.health("ok")) },
        InspectionRoute("HEAD", "/livez") { _, _ in .response(.health("ok")) },
        InspectionRoute("GET", "/readyz") { router, _ in await router.readiness() },
        InspectionRoute("HEAD", "/readyz") { router, _ in await router.readiness() },
        InspectionRoute("GET", "/metrics") { router, _ in await router.metrics() },
        InspectionRoute("GET", "/api/v1/openapi.yaml") { _, _ in try openAPI() },
        InspectionRoute("GET", "/api/v1/deliveries") { router, call in try await router.listDeliveries(call) },
        InspectionRoute("DELETE", "/api/v1/deliveries") { router, call in try await router.removeDeliveries(call) },
        InspectionRoute("GET", "/api/v1/deliveries/wait") { router, call in try await router.waitForDeliveries(call) },
        InspectionRoute("GET", "/api/v1/deliveries/{id}") { router, call in try await router.delivery(call) },
        InspectionRoute("GET", "/api/v1/deliveries/{id}/curl") { router, call in try await router.curl(call) },
        InspectionRoute("POST", "/api/v1/deliveries/{id}/resend") { router, call in try await router.resendDelivery(call) },
        InspectionRoute("GET", "/api/v1/events") { router, call in try await router.openEventStream(call) },
        InspectionRoute("GET", "/api/v1/devices") { router, _ in router.listDevices() },
        InspectionRoute("GET", "/api/v1/devices/{token}") { router, call in try router.device(call) },
        InspectionRoute("PUT", "/api/v1/devices/{token}") { router, call in try router.setDevice(call) },
        InspectionRoute("DELETE", "/api/v1/devices/{token}") { router, call in try router.removeDevice(call) },
        InspectionRoute("GET", "/api/v1/web-push/subscriptions") { router, _ in router.listWebPushSubscriptions() },
        InspectionRoute("POST", "/api/v1/web-push/subscriptions") { router, call in try router.createWebPushSubscription(call) },
        InspectionRoute("GET", "/api/v1/web-push/subscriptions/{id}") { router, call in try router.webPushSubscription(call) },
        InspectionRoute("DELETE", "/api/v1/web-push/subscriptions/{id}") { router, call in try router.removeWebPushSubscription(call) },
        InspectionRoute("POST", "/api/v1/web-push/subscriptions/{id}/expire") { router, call in try router.expireWebPushSubscription(call) },
        InspectionRoute("GET", "/api/v1/faults") { router, _ in router.listFaults() },
        InspectionRoute("PUT", "/api/v1/faults") { router, call in try router.addFault(call) },
        InspectionRoute("DELETE", "/api/v1/faults") { router, _ in router.removeAllFaults() },
        InspectionRoute("DELETE", "/api/v1/faults/{id}") { router, call in try router.removeFault(call) },
        InspectionRoute("POST", "/api/v1/reset") { router, _ in try await router.reset() },
        InspectionRoute("GET", "/api/v1/keys") { router, _ in .response(.json(200, router.settings.keys)) },
        InspectionRoute("GET", "/api/v1/service-accounts") { router, _ in .response(.json(200, router.settings.serviceAccounts)) },
        InspectionRoute("GET", "/api/v1/credentials") { router, _ in router.developmentCredentials() },
        InspectionRoute("GET", "/api/v1/credentials/{file}") { router, call in try router.credentialFile(call) },
        InspectionRoute("GET", "/api/v1/activities") { router, call in try router.listActivities(call) },
        InspectionRoute("GET", "/api/v1/activities/{token}") { router, call in try router.activity(call) },
        InspectionRoute("GET", "/api/v1/channels") { router, call in try router.listChannels(call) },
        InspectionRoute("GET", "/api/v1/activity-types") { router, _ in router.listActivityTypes() },
        InspectionRoute("PUT", "/api/v1/activity-types") { router, call in try await router.declareActivityTypes(call) },
        InspectionRoute("GET", "/api/v1/activity-types/{name}") { router, call in try router.activityType(call) },
        InspectionRoute("PUT", "/api/v1/activity-types/{name}") { router, call in try router.declareActivityType(call) },
        InspectionRoute("DELETE", "/api/v1/activity-types/{name}") { router, call in try router.removeActivityType(call) },
        InspectionRoute("GET", "/api/v1/rejections") { router, _ in router.listRejections() },
        InspectionRoute("POST", "/api/v1/rejections/{id}/send") { router, call in try await router.sendRejection(call) },
        InspectionRoute("POST", "/api/v1/check") { router, call in try await router.checkPush(call) },
        InspectionRoute("POST", "/api/v1/send") { router, call in try await router.sendTestPush(call) },
        InspectionRoute("GET", "/api/v1/parity") { router, _ in router.listParity() },
        InspectionRoute("DELETE", "/api/v1/parity") { router, _ in try router.clearParity() },
        InspectionRoute("GET", "/api/v1/parity/fixtures") { router, call in try await router.parityFixtures(call) },
        InspectionRoute("POST", "/mcp") { router, call in try await router.mcp(call) },
    ]

    /// Paths answered without the inspection token and without the Host guard (probes).
    static let healthPaths: Set<String> = ["/livez", "/readyz"]

    /// The web page's own files, served without the token (they hold no data; the page asks for
    /// the token and sends it with every API call).
    static func isPage(_ path: String) -> Bool {
        path == "/" || path.hasPrefix("/ui/")
    }

    /// How long a route that reads or changes the delivery store may take before it answers 503
    /// (a PostgreSQL outage must not hang the API for its whole length).
    public static let storePatience: Duration = .seconds(10)

    /// Answers one request. A route that reads or changes the delivery store answers within its
    /// limit (``storePatience``; a wait: its timeout and 2 s): past it, 503 with the reason, and
    /// the store's call is cancelled.
    public func respond(to request: InspectionRequest) async -> InspectionAnswer {
        guard let limit = Self.storeLimit(request) else { return await answer(request) }
        return await Self.answer(within: limit) { await self.answer(request) }
    }

    /// What `work` answers, or 503 with the reason once `limit` passes first (`work` is then cancelled).
    static func answer(within limit: Duration, _ work: @escaping @Sendable () async -> InspectionAnswer) async -> InspectionAnswer {
        let done = AnswerSignal()
        let task = Task { done.finish(await work()) }
        if let answer = await done.result(timeout: limit) { return answer }
        task.cancel()
        // Milliseconds as seconds, written as JSON writes a number ("10", "0.3"), whatever the locale.
        let milliseconds = limit.components.seconds * 1_000 + limit.components.attoseconds / 1_000_000_000_000_000
        let seconds = milliseconds % 1_000 == 0 ? "\(milliseconds / 1_000)" : "\(Double(milliseconds) / 1_000)"
        return .response(
            InspectionError(
                503,
                "the delivery store did not answer within \(seconds) s (a database that stopped answering?); PushMock keeps answering pushes and queues their deliveries; try again, and see /readyz"
            ).response)
    }

    /// The limit of a request whose route waits on the delivery store (nil: it does not).
    static func storeLimit(_ request: InspectionRequest) -> Duration? {
        let path = request.path
        if path == "/api/v1/deliveries/wait" {
            let timeout = request.query.last { $0.name == "timeout" }.flatMap { DeliveryQuery.milliseconds($0.value) } ?? 5000
            return .milliseconds(min(max(0, timeout), 300_000)) + .seconds(2)
        }
        if path == "/api/v1/events" || path.hasSuffix("/resend") { return nil }
        if path.hasPrefix("/api/v1/deliveries") || path == "/api/v1/reset" || path == "/api/v1/parity/fixtures" { return storePatience }
        return nil
    }

    private func answer(_ request: InspectionRequest) async -> InspectionAnswer {
        do {
            return try await route(request)
        } catch let error as InspectionError {
            return .response(error.response)
        } catch {
            return .response(InspectionError.store(error).response)
        }
    }

    private func route(_ request: InspectionRequest) async throws -> InspectionAnswer {
        if let refusal = settings.browserGuard.hostRefusal(path: request.path, host: request.host) {
            throw refusal
        }
        if let token = settings.token, !Self.healthPaths.contains(request.path), !Self.isPage(request.path), !Self.authorized(request, token: token) {
            throw InspectionError(
                401, "this inspection API wants Authorization: Bearer <token> (the configured inspectionToken)",
                headers: [.init("www-authenticate", #"Bearer realm="pushmock-inspection""#)]
            )
        }
        // The first path pattern that matches decides; its methods are the path's.
        var allowed: [String] = []
        var chosen: (InspectionRoute, [Substring: String])?
        var matchedPath: String?
        for route in Self.routes where matchedPath == nil || route.path == matchedPath {
            guard let parameters = route.parameters(request.segments) else { continue }
            matchedPath = route.path
            allowed.append(route.method)
            if route.method == request.method { chosen = (route, parameters) }
        }
        guard matchedPath != nil else {
            throw InspectionError.notFound("no such endpoint: \(request.method) \(request.path) (the routes are in /api/v1/openapi.yaml)")
        }
        guard let (route, parameters) = chosen else {
            let allow = allowed.joined(separator: ", ")
            throw InspectionError(405, "\(request.method) is not allowed on \(request.path); allowed: \(allow)", headers: [.init("allow", allow)])
        }
        if let refusal = settings.browserGuard.crossSiteRefusal(method: request.method, path: request.path, headers: request.headers) {
            throw refusal
        }
        return try await route.handler(self, InspectionCall(request: request, parameters: parameters))
    }

    /// `Authorization: Bearer <token>`, or `access_token=<token>` in the query (EventSource cannot
    /// send headers). Compared in constant time.
    static func authorized(_ request: InspectionRequest, token: String) -> Bool {
        var presented: String?
        if let header = request.header("authorization"), header.lowercased().hasPrefix("bearer ") {
            presented = String(header.dropFirst(7).drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        } else {
            presented = request.queryValue("access_token")
        }
        guard let presented else { return false }
        let a = Array(presented.utf8)
        let b = Array(token.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count {
            difference |= a[index] ^ b[index]
        }
        return difference == 0
    }
    /// Tells the open event streams what the relay's upstream answered to delivery `id`.
    public func relayAnswered(_ result: RelayResult, forDelivery id: UInt64) {
        events.announceRelay(result, forDelivery: id)
    }
}

/// The first of an answer and a timeout.
final class AnswerSignal: Sendable {
    private let state = Mutex<(answer: InspectionAnswer?, finished: Bool, continuation: CheckedContinuation<InspectionAnswer?, Never>?)>(
        (nil, false, nil))

    func finish(_ answer: InspectionAnswer?) {
        let continuation = state.withLock { state -> CheckedContinuation<InspectionAnswer?, Never>? in
            guard !state.finished else { return nil }
            state.finished = true
            state.answer = answer
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: answer)
    }

    /// The answer, or nil when `timeout` passes first.
    func result(timeout: Duration) async -> InspectionAnswer? {
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.finish(nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> (InspectionAnswer?, Bool) in
                if state.finished { return (state.answer, true) }
                state.continuation = continuation
                return (nil, false)
            }
            if ready.1 { continuation.resume(returning: ready.0) }
        }
    }
}
