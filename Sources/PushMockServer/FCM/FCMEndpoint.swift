import Foundation
import Logging
import PushMockBytes
import PushMockCore
import PushMockStore
import PushMockTransport
import Synchronization

/// `POST /v1/projects/{project}/messages:send`: Google's front end (authentication, project) then
/// FCM (message rules, registration tokens), answering with Google's envelope and recording every
/// request.
final class FCMEndpoint: PushEndpoint, Sendable {
    static let service = Delivery.Service.fcm
    let validator: FCMMessageValidator
    let accounts: [ServiceAccount]
    let tokens: AccessTokenStore
    let devices: DeviceRegistry
    let recorder: PushRecorder
    let activities: LiveActivities
    let clock: PushMockClock
    let logger: Logger
    /// The topic subscriptions a topic or condition send fans out to.
    let subscriptions: TopicSubscriptions
    /// Milliseconds of inactivity after which a registration token is stale (nil: never).
    let staleTokenLimit: Int64?
    /// The quota projects a user's token may name: the service accounts' projects and the
    /// configured ones (``FCMConfiguration/userProjects``).
    let quotaProjects: Set<String>
    /// Self-signed service-account JWTs already verified, by token (``selfSignedGrant(_:now:)``).
    let selfSigned = Mutex<[String: AccessTokenStore.Grant]>([:])

    init(
        validator: FCMMessageValidator, accounts: [ServiceAccount], tokens: AccessTokenStore, devices: DeviceRegistry, recorder: PushRecorder,
        activities: LiveActivities,
        subscriptions: TopicSubscriptions, clock: PushMockClock, logger: Logger, staleTokenAfter: Duration? = nil, userProjects: [String] = []
    ) {
        self.quotaProjects = Set(accounts.map(\.projectID) + userProjects)
        self.staleTokenLimit = staleTokenAfter.map { $0.components.seconds &* 1000 }
        self.subscriptions = subscriptions
        self.validator = validator
        self.accounts = accounts
        self.tokens = tokens
        self.devices = devices
        self.recorder = recorder
        self.activities = activities
        self.clock = clock
        self.logger = logger
    }

    static let invalidCredentials =
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
    static let missingCredentials =
        "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
    static let metadata = [("method", "google.firebase.fcm.v1.FcmService.SendMessage"), ("service", "fcm.googleapis.com")]

    /// The project of a `/v1/projects/{project}/messages:send` path, or `nil` for another path.
    static func project(in path: String) -> String? {
        return path.withUTF8View { bytes -> String? in
            let prefix: StaticString = "/v1/projects/"
            let suffix: StaticString = "/messages:send"
            var end = bytes.count
            if let query = bytes.firstIndex(byte: UInt8(ascii: "?")) { end = query }
            let p = prefix.utf8CodeUnitCount
            let q = suffix.utf8CodeUnitCount
            guard end > p + q else { return nil }
            guard bytes.hasPrefix(prefix), bytes.view((end - q)..<end).equals(suffix) else { return nil }
            let project = bytes.view(p..<(end - q))
            guard !project.contains(byte: UInt8(ascii: "/")) else { return nil }
            return project.string
        }
    }

    /// A message as Google's front end and FCM judged it: validated and registered, or refused.
    struct Judgement {
        let project: String
        var identity: String?
        /// Read in place (never bound as an optional: each binding would copy every string in it).
        var result: FCMSendResult
        var validated: Bool
        var error: GoogleError?
        /// The connection's state, looked up once for the message (its token cache, scratch
        /// memory and message ids).
        var connection: ConnectionState?
    }

    /// Authenticates, validates and checks the registration of a message, with the error it is
    /// refused with. The judgement is made once, at the end: made empty first and then written,
    /// the empty result it replaced cost about 160 instructions of releases a message.
    func judge(_ request: HTTPServerRequest, target project: String, context: RequestContext, now: PushInstant) -> Judgement {
        let connection = ConnectionState.of(context)
        var identity: String?
        let result: FCMSendResult
        do throws(GoogleError) {
            if let cached = connection.fcmCredential, cached.admits(request, project: project, now: now) {
                identity = cached.grant.clientEmail
            } else {
                identity = try authenticate(request, project: project, connection: connection, now: now).clientEmail
            }
            guard request.method == "POST" else {
                throw GoogleError(code: 404, message: "Method not found.", status: "NOT_FOUND")
            }
            if case .bodySize(let limit)? = request.limitExceeded {
                // What is there is a cut-off body: nothing is judged on it. (Google's front end
                // answers a body past its own limit 413 as well; FCM's 4 096-byte message limit
                // is a 400 from the validator.)
                throw GoogleError(
                    code: 413, message: "Request Entity Too Large: the body is larger than PushMock's \(limit)-byte cap (serve --max-body-size)",
                    status: "INVALID_ARGUMENT"
                )
            }
            if request.limitExceeded != nil {
                throw GoogleError(
                    code: 400, message: "Request contains an invalid argument.", status: "INVALID_ARGUMENT", details: [.fcmError(.invalidArgument)])
            }
            result = try validator.validate(request.body, now: now, scratch: connection.fcmScratch)
        } catch {
            return Judgement(project: project, identity: identity, result: FCMSendResult(), validated: false, error: error, connection: connection)
        }
        var refusal: GoogleError?
        do throws(GoogleError) {
            try checkRegistration(of: result, project: project, now: now)
        } catch {
            refusal = error
        }
        return Judgement(project: project, identity: identity, result: consume result, validated: true, error: refusal, connection: connection)
    }

    func connectionState(of judgement: inout Judgement) -> ConnectionState? {
        judgement.connection
    }

    /// Faults fire only for a message FCM would take: valid, to a registered token.
    func faultFacts(of judgement: inout Judgement) -> FaultFacts? {
        guard judgement.error == nil else { return nil }
        return FaultFacts(token: judgement.result.target?.value, project: judgement.project)
    }

    func answer(
        _ judgement: inout Judgement, fault: FiredFault?, request: HTTPServerRequest, context: RequestContext, now: PushInstant
    ) -> (response: HTTPServerResponse, outcome: PushOutcome) {
        let project = judgement.project
        var answer: (status: Int, body: [UInt8], headers: HTTPHeaderList, reason: String?, explanation: String?)
        if let rejection = fault?.rejection {
            let code = FCMErrorCode(rawValue: rejection.reason)
            judgement.error = GoogleError(
                code: rejection.status, message: code?.defaultMessage ?? rejection.reason, status: code?.status ?? Self.statusName(rejection.status),
                details: code.map { [.fcmError($0)] } ?? [])
        }
        if let error = judgement.error {
            var headers: HTTPHeaderList = []
            if error.code == 401 {
                let missing = error.recordedReason == "CREDENTIALS_MISSING"
                headers.append(
                    "www-authenticate",
                    missing ? #"Bearer realm="https://accounts.google.com/""# : #"Bearer realm="https://accounts.google.com/", error="invalid_token""#
                )
            }
            // A faulted 429 or 503 carries Retry-After: 60 unless the fault names its own (added
            // where every rejecting fault's answer is shaped, PushRecorder.shaped).
            if let fault, fault.rejection != nil, !fault.namesRetryAfter, error.code == 429 || error.code == 503 {
                headers.append("retry-after", "60")
            }
            answer = (error.code, Array(error.json.utf8), headers, error.recordedReason, error.message)
            logger.debug(
                "FCM request rejected", metadata: ["status": "\(error.code)", "reason": "\(error.recordedReason)", "message": "\(error.message)"])
        } else {
            answer = (
                200,
                successBody(
                    project: project, toToken: judgement.result.isSentToToken, validateOnly: judgement.result.validateOnly, now: now,
                    connection: judgement.connection),
                [], nil, nil
            )
        }
        let accepted = answer.reason == nil
        let validated = judgement.validated
        let described = describe(judgement.result, project: project, delivered: accepted && validated)
        let drop = accepted ? judgement.result.liveActivityDrop : nil
        // The APNs request FCM makes for a Live Activity message reaches the same simulated device.
        var device: LiveActivityDevice.Outcome?
        if accepted, validated, !judgement.result.validateOnly, let token = judgement.result.liveActivityToken {
            device = activities.receive(
                judgement.result.liveActivityPush, token: token, bundleID: judgement.result.apnsTopic.map(APNSEndpoint.bundleID(ofTopic:)),
                service: .fcm, now: now, payloadDrop: drop
            )
        }
        let recorded = self.outcome(
            of: judgement.result, described, rejection: answer.reason.map { ($0, answer.explanation) }, validated: validated,
            identity: judgement.identity, project: project, device: device)
        return (GooglePages.json(status: answer.status, bytes: answer.body, extraHeaders: answer.headers), recorded)
    }

    /// FCM's check of a validated message's registration token or installation ID against the
    /// device registry: another project's, unregistered, expired or stale. (It takes the result,
    /// borrowed: handed the target, the caller copied it out, a retain and a release a message.)
    @inline(__always)
    func checkRegistration(of result: borrowing FCMSendResult, project: String, now: PushInstant) throws(GoogleError) {
        let record: DeviceRecord?
        switch result.target {
        case .token(let token)?, .fid(let token)?: record = devices.record(for: token)
        case .topic?, .condition?, nil: return
        }
        guard let record else { return }
        if let owner = record.fcmProject, owner != project {
            throw GoogleError.fcm(.senderIDMismatch)
        }
        switch record.state {
        case .active: break
        case .unregistered, .expired: throw GoogleError.fcm(.unregistered)
        }
        if record.isStale(nowMilliseconds: now.millisecondsSinceEpoch, limitMilliseconds: staleTokenLimit) {
            throw GoogleError.fcm(.unregistered)
        }
    }

    /// What a message's delivery records besides its answer: its token or topic, diagnostics, and
    /// the tokens a topic or condition reaches (when it is `delivered`).
    struct Described {
        var topic: String?
        var deviceToken: String?
        var diagnostics: [String] = []
        var recipients: [String]?
    }

    @inline(__always)
    func describe(_ result: FCMSendResult, project: String, delivered: Bool) -> Described {
        var described = Described()
        switch result.target {
        case .token(let token)?: described.deviceToken = token
        case .fid(let fid)?:
            described.deviceToken = fid
            described.diagnostics.append("target fid")
        case .topic(let name)?: described.topic = name
        case .condition(let condition)?:
            described.topic = condition
            described.diagnostics.append("target condition")
        case nil: break
        }
        if result.validateOnly {
            described.diagnostics.append("validate_only: checked, not delivered")
        }
        if let token = result.liveActivityToken {
            described.diagnostics.append("APNs request: liveactivity to \(token)\(result.apnsTopic.map { " topic \($0)" } ?? "")")
        }
        if !result.diagnostics.isEmpty { described.diagnostics += result.diagnostics }
        // A topic or condition send is recorded with the tokens it would reach: a bounded sample
        // and their number (a topic of 20 000 tokens must not cost megabytes per send).
        guard delivered, !result.validateOnly else { return described }
        var reached: [String]?
        switch result.target {
        case .topic(let topic)?:
            reached = subscriptions.subscribers(of: topic, project: project)
        case .condition(let condition)?:
            reached = (try? subscriptions.fanOut(condition: condition, project: project)) ?? []
        case .token?, .fid?, nil:
            break
        }
        if let reached {
            let sample = Self.recipientSample(reached)
            described.recipients = sample
            if sample.count < reached.count {
                described.diagnostics.append("fan-out: \(reached.count) registration tokens; recipients lists the first \(sample.count)")
            }
            if sample.isEmpty, let target = result.target {
                described.diagnostics.append(
                    "nobody would receive it: no registration token in project \(project) is subscribed to \(target.kind == "topic" ? "topic \(target.value)" : "topics matching \(target.value)") (subscribe tokens through Instance ID or FCM topicSubscriptions)"
                )
            }
        }
        return described
    }

    /// What is recorded of a message judged `result`, rejected with `rejection` (reason and
    /// message) or taken by the simulated device as `device`.
    @inline(__always)
    func outcome(
        of result: FCMSendResult, _ described: Described, rejection: (reason: String, message: String?)?, validated: Bool, identity: String?,
        project: String, device: LiveActivityDevice.Outcome?
    ) -> PushOutcome {
        let drop = rejection == nil ? result.liveActivityDrop : nil
        let fields = device?.deliveryFields
        return PushOutcome(
            .fcm, rejection != nil ? .rejected : (fields?.outcome ?? (drop != nil ? .dropped : .accepted)), bodyIsJSON: validated,
            identity: identity, pushType: result.isLiveActivity ? "liveactivity" : nil, topic: described.topic,
            deviceToken: described.deviceToken, reason: rejection?.reason ?? fields?.reason ?? drop?.reason,
            explanation: rejection?.message ?? fields?.explanation ?? drop?.explanation,
            diagnostics: device.map { described.diagnostics + $0.diagnostics } ?? described.diagnostics, project: project,
            recipients: described.recipients, device: device)
    }

    /// `{"name": "projects/<p>/messages/<id>"}` pretty-printed as Google does, written as bytes
    /// (the hot path: no string interpolation); `fake_message_id` for `validateOnly`, and for a
    /// check (no `connection`). The id is `0:<microseconds>%<hex><hex>` for a message to a
    /// registration token (`toToken`), as FCM's ids look (fcm.md §5), and the bare microseconds
    /// for a topic or condition.
    func successBody(project: String, toToken: Bool, validateOnly: Bool, now: PushInstant, connection: ConnectionState?) -> [UInt8] {
        // Prefix, project, infix, at most 2 + 20 + 1 + 16 id bytes, suffix.
        let capacity =
            Self.namePrefix.utf8CodeUnitCount + project.utf8.count + Self.messagesInfix.utf8CodeUnitCount + 48 + Self.nameSuffix.utf8CodeUnitCount
        return [UInt8](capacity: capacity) { out in
            out.put(Self.namePrefix)
            out.put(utf8: project)
            out.put(Self.messagesInfix)
            if validateOnly || connection == nil {
                out.put(Self.fakeMessageID)
            } else if let connection {
                let random = connection.nextRandom()
                let micros = now.millisecondsSinceEpoch &* 1000 &+ Int64(random % 1000)
                if toToken {
                    out.put("0:")
                    out.putDecimal(micros)
                    out.put(UInt8(ascii: "%"))
                    let hex = UInt64(UInt32(truncatingIfNeeded: random >> 32) | 0x1000_0000)
                    out.putHex(hex << 32 | hex, digits: 16)  // the eight digits twice
                } else {
                    out.putDecimal(micros)
                }
            }
            out.put(Self.nameSuffix)
        }
    }

    private static let namePrefix: StaticString = "{\n  \"name\": \"projects/"
    private static let messagesInfix: StaticString = "/messages/"
    private static let fakeMessageID: StaticString = "fake_message_id"
    private static let nameSuffix: StaticString = "\"\n}\n"

    /// At most this many of a fan-out's tokens are recorded with its delivery...
    static let maxRecordedRecipients = 100
    /// ...and at most this many bytes of them.
    static let maxRecordedRecipientBytes = 16 * 1024

    /// The first tokens of a fan-out (sorted), within ``maxRecordedRecipients`` and
    /// ``maxRecordedRecipientBytes``.
    static func recipientSample(_ tokens: [String]) -> [String] {
        var sample: [String] = []
        var bytes = 0
        for token in tokens.prefix(maxRecordedRecipients) {
            bytes += token.utf8.count
            if bytes > maxRecordedRecipientBytes { break }
            sample.append(token)
        }
        return sample
    }

    static func statusName(_ status: Int) -> String {
        switch status {
        case 400: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 429: "RESOURCE_EXHAUSTED"
        case 500: "INTERNAL"
        case 503: "UNAVAILABLE"
        default: "UNKNOWN"
        }
    }
}

extension FCMSendResult {
    /// Whether the message is sent to a registration token (tested in place: the target is not
    /// copied out).
    var isSentToToken: Bool {
        if case .token? = target { return true }
        return false
    }
}
