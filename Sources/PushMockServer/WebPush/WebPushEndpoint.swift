import PushMockCore
import PushMockStore
import PushMockTransport
import Synchronization

/// `POST` to a minted subscription's endpoint: the push service (RFC 8030) as Apple's, Mozilla's
/// and Google's answer it. The request's headers (`TTL`, `Urgency`, `Topic`, `Content-Encoding`),
/// size and VAPID credentials (RFC 8292) are checked as the service checks them, and each refusal
/// answers in that service's own body. An accepted push is answered 201 and its payload opened
/// with the subscription's keys (RFC 8291), as the browser would: one that does not open is
/// `dropped`, since the push service cannot see inside it and answers 201 all the same.
final class WebPushEndpoint: PushEndpoint, Sendable {
    static let service = Delivery.Service.webpush
    let subscriptions: WebPushSubscriptions
    let recorder: PushRecorder
    let clock: PushMockClock
    /// A relay is set: each push says why it is not forwarded.
    let relaying: Bool
    /// The ids of the messages' `Location`s.
    private let ids = Mutex(IDGenerator())

    init(subscriptions: WebPushSubscriptions, recorder: PushRecorder, clock: PushMockClock, relaying: Bool = false) {
        self.subscriptions = subscriptions
        self.recorder = recorder
        self.clock = clock
        self.relaying = relaying
    }

    /// The request's target: the service whose path it used, and the subscription id.
    struct Target {
        let service: WebPushSubscription.Service
        let id: String
    }

    /// A refusal, before any fault: the rule, the status, and the service's own body.
    struct Refusal {
        var status: Int
        var rule: String
        var explanation: String
    }

    struct Judgement {
        let target: Target
        var refusal: Refusal?
        var subscription: WebPushSubscription?
        var credentials: VAPIDCredentials?
        var opened: WebPushDecryption.Opened?
        var dropped: WebPushDecryption.Rule?
        /// A Declarative Web Push payload Safari refuses.
        var declarative: DeclarativeWebPush.Problem?
        var topic: String?
        var diagnostics: [String] = []
    }

    /// The most a push message's body may hold (RFC 8030 section 7.2 lets a service refuse more than 4 096 bytes).
    static let maxBody = 4096
    static let urgencies: Set<String> = ["very-low", "low", "normal", "high"]

    func judge(_ request: HTTPServerRequest, target: Target, context: RequestContext, now: PushInstant) -> Judgement {
        var judgement = Judgement(target: target)
        judgement.refusal = refusal(request, judgement: &judgement, now: now)
        return judgement
    }

    /// The first rule the request breaks, in the order a push service reads it: the method,
    /// the subscription, the headers, the size, then VAPID. Nil when the service takes it.
    private func refusal(_ request: HTTPServerRequest, judgement: inout Judgement, now: PushInstant) -> Refusal? {
        let headers = request.headers
        judgement.topic = headers["topic"]
        guard request.method == "POST" else { return Refusal(status: 405, rule: "MethodNotAllowed", explanation: "push with POST") }
        guard let subscription = subscriptions.subscription(judgement.target.id), subscription.service == judgement.target.service else {
            return Refusal(
                status: 404, rule: "UnknownSubscription",
                explanation: "no subscription \(judgement.target.id) was minted here for \(judgement.target.service.rawValue)")
        }
        judgement.subscription = subscription
        judgement.diagnostics.append("\(subscription.service.rawValue) subscription \(subscription.id.prefix(16))…, \(subscription.state.rawValue)")
        guard subscription.state == .active else {
            return Refusal(
                status: 410, rule: "ExpiredSubscription", explanation: "the subscription is expired (marked so through the inspection API)")
        }
        if let problem = headerProblem(request, diagnostics: &judgement.diagnostics) { return problem }
        return vapidProblem(request, subscription: subscription, judgement: &judgement, now: now)
    }

    /// RFC 8030's headers, the content coding and the size.
    private func headerProblem(_ request: HTTPServerRequest, diagnostics: inout [String]) -> Refusal? {
        let headers = request.headers
        guard let ttlText = headers["ttl"] else {
            return Refusal(
                status: 400, rule: "MissingTTL", explanation: "no TTL header: RFC 8030 section 5.2 requires one (seconds to keep the message)")
        }
        guard let ttl = Int(ttlText), ttl >= 0 else {
            return Refusal(status: 400, rule: "InvalidTTL", explanation: "TTL \(ttlText) is not a whole number of seconds, 0 or more")
        }
        if let urgency = headers["urgency"], !Self.urgencies.contains(urgency) {
            return Refusal(
                status: 400, rule: "InvalidUrgency", explanation: "Urgency \(urgency) is none of very-low, low, normal, high (RFC 8030 section 5.3)")
        }
        if let topic = headers["topic"], topic.utf8.count > 32 || !topic.utf8.allSatisfy(WebPushSubscriptions.isBase64URL) {
            return Refusal(
                status: 400, rule: "InvalidTopic",
                explanation: "Topic \(topic) is not at most 32 characters of the base64url alphabet (RFC 8030 section 5.4)")
        }
        if request.limitExceeded != nil || request.body.count > Self.maxBody {
            return Refusal(status: 413, rule: "PayloadTooLarge", explanation: "the body is over \(Self.maxBody) bytes (RFC 8030 section 7.2)")
        }
        let encoding = headers["content-encoding"]
        if !request.body.isEmpty, encoding != "aes128gcm", encoding != "aesgcm" {
            return Refusal(
                status: 400, rule: "UnsupportedEncoding",
                explanation:
                    "a payload needs Content-Encoding: aes128gcm (RFC 8291), or the older aesgcm; got \(encoding.map { "`\($0)`" } ?? "none")")
        }
        if !request.body.isEmpty, encoding == "aesgcm",
            WebPushDecryption.headerParameters(headers["encryption"])["salt"] == nil
                || WebPushDecryption.headerParameters(headers["crypto-key"])["dh"] == nil
        {
            return Refusal(
                status: 400, rule: "MissingCryptoKeys",
                explanation: "aesgcm carries its salt in `Encryption: salt=…` and the sender's key in `Crypto-Key: dh=…`; one is missing")
        }
        diagnostics.append("TTL \(ttl) s, urgency \(headers["urgency"] ?? "normal")" + (headers["topic"].map { ", topic \($0)" } ?? ""))
        return nil
    }

    /// VAPID, where the subscription needs it (made with an application server key, or Apple's,
    /// which always does) or the request carries it.
    private func vapidProblem(
        _ request: HTTPServerRequest, subscription: WebPushSubscription, judgement: inout Judgement, now: PushInstant
    )
        -> Refusal?
    {
        let authorization = request.headers["authorization"]
        let required = subscription.applicationServerKey != nil || subscription.service == .apple
        guard required || authorization != nil else {
            judgement.diagnostics.append("no VAPID: the subscription was made without an application server key")
            return nil
        }
        let credentials: VAPIDCredentials
        do {
            credentials = try VAPIDCredentials.parse(authorization: authorization, cryptoKey: request.headers["crypto-key"])
        } catch {
            return Refusal(status: 403, rule: error.rawValue, explanation: error.explanation)
        }
        judgement.credentials = credentials
        let claims = credentials.claims
        judgement.diagnostics.append(
            "VAPID (\(credentials.form.rawValue)): aud \(claims.audience ?? "none"), exp \(claims.expiry.map(String.init) ?? "none"), sub \(claims.subject ?? "none")"
        )
        // An origin leaves out its scheme's default port (RFC 6454 section 6.1).
        var authority = request.authority ?? "localhost"
        if authority.hasSuffix(":443") { authority.removeLast(4) }
        let origin = "https://" + authority
        if let broken = credentials.check(origin: origin, now: now.secondsSinceEpoch, refuseLocalhostSubject: subscription.service == .apple) {
            return Refusal(status: 403, rule: broken.rawValue, explanation: broken.explanation + (broken == .audience ? " (\(origin))" : ""))
        }
        if let expected = subscription.applicationServerKey, expected != credentials.key {
            return Refusal(
                status: 403, rule: "keyMismatch",
                explanation: "k is not the applicationServerKey the subscription was made with: sign with that key pair's private half")
        }
        return nil
    }

    func faultFacts(of judgement: inout Judgement) -> FaultFacts? {
        FaultFacts(token: judgement.target.id, topic: judgement.topic)
    }

    func answer(
        _ judgement: inout Judgement, fault: FiredFault?, request: HTTPServerRequest, context: RequestContext, now: PushInstant
    ) -> (response: HTTPServerResponse, outcome: PushOutcome) {
        if let fault, let rejection = fault.rejection {
            judgement.refusal = Refusal(status: rejection.status, rule: rejection.reason, explanation: "fault \(fault.id)")
        }
        if relaying {
            judgement.diagnostics.append(
                "not relayed: a real Web Push service takes only what the subscribing browser's keys open, and those keys are PushMock's")
        }
        var outcome = PushOutcome(.webpush, .accepted)
        outcome.deviceToken = judgement.target.id
        outcome.topic = judgement.topic
        outcome.identity = judgement.credentials?.claims.subject
        if let refusal = judgement.refusal {
            outcome.outcome = .rejected
            outcome.reason = refusal.rule
            outcome.explanation = refusal.explanation
            outcome.diagnostics = judgement.diagnostics
            return (WebPushAnswers.refusal(refusal, service: judgement.target.service), outcome)
        }
        open(request, judgement: &judgement)
        if let dropped = judgement.dropped {
            outcome.outcome = .dropped
            outcome.reason = dropped.rawValue
            outcome.explanation = dropped.explanation
        } else if let problem = judgement.declarative {
            outcome.outcome = .dropped
            outcome.reason = "DeclarativeWebPushInvalid"
            outcome.explanation =
                "\(problem.path) \(problem.rule): Safari shows no declarative notification for it (a web app with no push handler shows nothing)"
        }
        outcome.diagnostics = judgement.diagnostics
        if let opened = judgement.opened {
            outcome.recordedBody = opened.plaintext
            outcome.bodyIsJSON = JSONValue.parse(opened.plaintext).map { if case .object = $0 { true } else { false } } ?? false
        }
        let location = "https://\(request.authority ?? "localhost")/m/\(ids.withLock { $0.nextUUIDString(lowercase: true) })"
        return (HTTPServerResponse(status: 201, headers: [("location", location)]), outcome)
    }

    /// A Declarative Web Push payload (`web_push: 8030`) read as Safari reads it: shown, or not
    /// shown (dropped at Apple, where a web app may rely on it; elsewhere only noted, since
    /// Firefox and Chrome hand every message to the service worker).
    private func declarative(_ plaintext: [UInt8], service: WebPushSubscription.Service, judgement: inout Judgement) {
        switch DeclarativeWebPush.read(plaintext) {
        case .notDeclarative:
            return
        case .shown(let notification):
            var line = "Declarative Web Push: shown as \"\(notification.title)\""
            if let body = notification.body { line += " — \(body)" }
            line += "; a tap opens \(notification.navigate)"
            if notification.mutable { line += "; mutable (a service worker may change it first)" }
            if let badge = notification.appBadge { line += "; app badge \(badge)" }
            judgement.diagnostics.append(line)
            judgement.diagnostics += notification.notes
        case .refused(let problem):
            let fault = "\(problem.path) \(problem.rule)"
            if service == .apple {
                judgement.declarative = problem
                judgement.diagnostics.append(
                    "Declarative Web Push refused (\(fault)): Safari does not show it, and hands it to the service worker's push event instead")
            } else {
                judgement.diagnostics.append(
                    "web_push: 8030, but \(fault): Safari would not show it; this browser hands every message to the service worker's push event")
            }
        }
    }

    /// Opens the payload as the browser would, noting what it came to.
    private func open(_ request: HTTPServerRequest, judgement: inout Judgement) {
        guard let subscription = judgement.subscription, !request.body.isEmpty else {
            judgement.diagnostics.append("no payload: the service worker's push event gets no data")
            return
        }
        let encoding = request.headers["content-encoding"] ?? "aes128gcm"
        do {
            let opened: WebPushDecryption.Opened
            if encoding == "aesgcm" {
                let encryption = WebPushDecryption.headerParameters(request.headers["encryption"])
                let dh = WebPushDecryption.headerParameters(request.headers["crypto-key"])["dh"]
                opened = try WebPushDecryption.openAESGCM(
                    request.body, salt: encryption["salt"].flatMap { Base64URL.decode(Substring($0)) } ?? [],
                    senderKey: dh.flatMap { Base64URL.decode(Substring($0)) } ?? [], recordSize: encryption["rs"].flatMap { Int($0) } ?? 4096,
                    privateKey: subscription.keys.privateKey, authSecret: subscription.keys.authSecret)
            } else {
                opened = try WebPushDecryption.open(request.body, privateKey: subscription.keys.privateKey, authSecret: subscription.keys.authSecret)
            }
            judgement.opened = opened
            judgement.diagnostics.append(
                "\(encoding): \(request.body.count)-byte body, record size \(opened.recordSize), \(opened.padding) padding bytes; \(opened.plaintext.count) bytes of plaintext (recorded as the body)"
            )
            declarative(opened.plaintext, service: subscription.service, judgement: &judgement)
        } catch {
            judgement.dropped = error
            judgement.diagnostics.append("\(encoding): \(request.body.count)-byte body that the browser cannot open, so it drops the push")
        }
    }
}
