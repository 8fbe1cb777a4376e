import Foundation
import Logging
import PushMockCore
import PushMockStore
import PushMockTransport
import Synchronization

/// `POST /3/device/<token>`: adapts a transport request to the core validator, answers as APNs
/// does, records the delivery, and raises the connection's stream limit after the first valid
/// credential.
final class APNSEndpoint: PushEndpoint, Sendable {
    static let service = Delivery.Service.apns
    let validator: APNSValidator
    let recorder: PushRecorder
    let activities: LiveActivities
    let clock: PushMockClock
    let trust: ClientCertificateTrust
    let defaultEnvironment: APNSEnvironment
    let raisedStreamLimit: UInt32
    let logger: Logger
    private let seeds: Mutex<IDGenerator>
    /// Bumped by a reset: connections then forget their token binding and stream-limit raise.
    let bindingGeneration = Atomic<UInt64>(0)

    init(
        validator: APNSValidator, recorder: PushRecorder, activities: LiveActivities, clock: PushMockClock, trust: ClientCertificateTrust,
        defaultEnvironment: APNSEnvironment, raisedStreamLimit: UInt32, idSeed: UInt64?, logger: Logger
    ) {
        self.validator = validator
        self.recorder = recorder
        self.activities = activities
        self.clock = clock
        self.trust = trust
        self.defaultEnvironment = defaultEnvironment
        self.raisedStreamLimit = raisedStreamLimit
        self.logger = logger
        self.seeds = Mutex(idSeed.map(IDGenerator.init(seed:)) ?? IDGenerator())
    }

    /// What PushMock keeps per APNs connection. Only its connection's event loop touches it, and
    /// never with overlapping accesses, so its fields skip the runtime's exclusivity checks.
    final class APNSState {
        @exclusivity(unchecked) var auth = APNSConnectionAuth()
        let credential: APNSConnectionCredential
        @exclusivity(unchecked) var ids: IDGenerator
        @exclusivity(unchecked) var raised = false
        @exclusivity(unchecked) var generation: UInt64 = 0
        /// Whether an answer on this connection has put `apns-id` and `apns-unique-id` in its HPACK
        /// table. The first answer sends them indexed; later ones, never indexed as ids should be,
        /// then name them by index instead of encoding the names again (~580 instructions a push).
        @exclusivity(unchecked) var idNamesIndexed = false

        init(credential: APNSConnectionCredential, ids: IDGenerator) {
            self.credential = credential
            self.ids = ids
        }
    }

    func state(for context: RequestContext, connection: ConnectionState? = nil) -> APNSState {
        let connection = connection ?? ConnectionState.of(context)
        let generation = bindingGeneration.load(ordering: .relaxed)
        if let existing = connection.apns {
            if existing.generation == generation {
                return existing
            }
            // A reset: the connection keeps its credential and ids, the token binding starts over.
            existing.auth = APNSConnectionAuth()
            existing.generation = generation
            return existing
        }
        let credential =
            context.connection.clientCertificateChain.isEmpty
            ? APNSConnectionCredential.token
            : trust.credential(for: context.connection.clientCertificateChain, now: Date(timeIntervalSince1970: Double(clock.nowMilliseconds) / 1000))
        let seed = seeds.withLock { $0.next() }
        let state = APNSState(credential: credential, ids: IDGenerator(seed: seed))
        if case .certificate = credential {
            state.raised = true
        }
        state.generation = generation
        connection.apns = state
        return state
    }

    func environment(for request: HTTPServerRequest, connection: ConnectionInfo) -> APNSEnvironment {
        (request.authority ?? request.headers["host"]).flatMap(APNSEnvironment.init(host:))
            ?? connection.serverName.flatMap(APNSEnvironment.init(host:))
            ?? defaultEnvironment
    }

    /// `com.example.app` of `com.example.app.push-type.liveactivity`.
    static func bundleID(ofTopic topic: String) -> String {
        guard let range = topic.range(of: ".push-type.") else { return topic }
        return String(topic[..<range.lowerBound])
    }

    /// A push as the validator judged it, on its connection.
    struct Judgement {
        var verdict: APNSVerdict
        let environment: APNSEnvironment
        let state: APNSState
        /// The connection's state, looked up once for the push (its records are held there until
        /// the answer is flushed).
        let connection: ConnectionState
    }

    func judge(_ request: HTTPServerRequest, target: Void, context: RequestContext, now: PushInstant) -> Judgement {
        let connection = ConnectionState.of(context)
        let state = state(for: context, connection: connection)
        let environment = environment(for: request, connection: context.connection)
        var judgement = Judgement(verdict: APNSVerdict(), environment: environment, state: state, connection: connection)
        validator.validate(
            method: request.method, path: request.path, headers: request.headers.fields, body: request.body,
            bodyTruncated: request.limitExceeded != nil,
            environment: environment, credential: state.credential, auth: &state.auth, now: now, ids: &state.ids, into: &judgement.verdict)
        if judgement.verdict.authenticated, !state.raised {
            state.raised = true
            context.control.setMaxConcurrentStreams(raisedStreamLimit)
        }
        return judgement
    }

    func faultFacts(of judgement: inout Judgement) -> FaultFacts? {
        FaultFacts(token: judgement.verdict.deviceToken, topic: judgement.verdict.topic)
    }

    func connectionState(of judgement: inout Judgement) -> ConnectionState? {
        judgement.connection
    }

    func answer(
        _ judgement: inout Judgement, fault: FiredFault?, request: HTTPServerRequest, context: RequestContext, now: PushInstant
    ) -> (response: HTTPServerResponse, outcome: PushOutcome) {
        let environment = judgement.environment
        let state = judgement.state
        let rejection = fault?.rejection ?? judgement.verdict.rejection.map { (status: $0.status, reason: $0.reason) }
        let neverIndex = state.idNamesIndexed
        state.idNamesIndexed = true
        let response = answer(
            judgement.verdict, rejection: rejection, environment: environment, now: now, ids: &state.ids, neverIndex: neverIndex)
        if let rejection {
            logger.debug(
                "APNs push rejected",
                metadata: [
                    "reason": "\(rejection.reason)", "explanation": "\(judgement.verdict.explanation ?? "")", "fault": "\(fault?.id ?? "")",
                    "connection": "\(context.connection.id)", "path": "\(request.path)",
                ])
        }
        let device = self.device(for: judgement.verdict, rejected: rejection != nil, environment: environment, now: now, preview: false)
        return (response, outcome(of: judgement.verdict, rejection: rejection, environment: environment, device: device, fault: fault))
    }

    /// What the simulated device does with an accepted Live Activity push (both profiles); with
    /// `preview`, what it would do, on a copy (a check).
    @inline(__always)
    func device(
        for verdict: APNSVerdict, rejected: Bool, environment: APNSEnvironment, now: PushInstant, preview: Bool
    ) -> LiveActivityDevice.Outcome? {
        guard !rejected, verdict.pushType == .liveactivity, let token = verdict.deviceToken else { return nil }
        let bundleID = verdict.topic.map(Self.bundleID(ofTopic:))
        let drop = verdict.droppedByDevice ? verdict.liveActivityRule : nil
        if preview {
            return activities.preview(
                verdict.liveActivityPush, token: token, bundleID: bundleID, service: .apns, now: now, payloadDrop: drop, environment: environment)
        }
        return activities.receive(
            verdict.liveActivityPush, token: token, bundleID: bundleID, service: .apns, now: now, payloadDrop: drop, environment: environment)
    }

    /// APNs' answer to `verdict`, whose rejection is `rejection` (the validator's, or a fault's).
    /// Its ids are sent never indexed unless `neverIndex` is false (a connection's first answer:
    /// see ``APNSState/idNamesIndexed``).
    @inline(__always)
    func answer(
        _ verdict: APNSVerdict, rejection: (status: Int, reason: String)?, environment: APNSEnvironment, now: PushInstant, ids: inout IDGenerator,
        neverIndex: Bool = true
    ) -> HTTPServerResponse {
        guard let rejection else {
            // One array made with its fields: an empty list reserved and appended to cost ~250
            // instructions more.
            let apnsID = HeaderField(name: "apns-id", value: verdict.apnsID, neverIndex: neverIndex)
            guard environment == .sandbox else { return HTTPServerResponse(status: 200, headers: HTTPHeaderList([apnsID])) }
            // Written by the transport into the header block: never recorded, so never a string.
            return HTTPServerResponse(
                status: 200, headers: HTTPHeaderList([apnsID]), generatedID: .init(name: .apnsUniqueID, random: ids.next(), neverIndex: neverIndex))
        }
        var headers = HTTPHeaderList(capacity: 2)
        headers.append("content-type", "application/json")
        headers.append("apns-id", verdict.apnsID, neverIndex: neverIndex)
        let body: String
        if let rule = verdict.liveActivityRule, rule.reason == rejection.reason {
            body = #"{"reason":"\#(rule.reason)","description":"\#(JSONText.escape(rule.explanation))"}"#
        } else if rejection.reason == APNSRejectionReason.unregistered.reason {
            let timestamp = verdict.unregisteredTimestamp ?? now.millisecondsSinceEpoch
            body = #"{"reason":"\#(rejection.reason)","timestamp":\#(timestamp)}"#
        } else {
            body = #"{"reason":"\#(JSONText.escape(rejection.reason))"}"#
        }
        return HTTPServerResponse(status: rejection.status, headers: headers, body: Array(body.utf8))
    }

    /// What is recorded of a push judged `verdict`, answered with `rejection`, and taken by the
    /// simulated device as `device`.
    @inline(__always)
    func outcome(
        of verdict: APNSVerdict, rejection: (status: Int, reason: String)?, environment: APNSEnvironment, device: LiveActivityDevice.Outcome?,
        fault: FiredFault?
    ) -> PushOutcome {
        let fields = device?.deliveryFields
        return PushOutcome(
            .apns, rejection != nil ? .rejected : (fields?.outcome ?? (verdict.droppedByDevice ? .dropped : .accepted)),
            environment: environment.rawValue, bodyIsJSON: verdict.bodyIsJSONObject, identity: verdict.identity,
            pushType: verdict.pushType?.rawValue, topic: verdict.topic, deviceToken: verdict.deviceToken, apnsID: verdict.apnsID,
            reason: rejection?.reason ?? fields?.reason ?? (verdict.droppedByDevice ? verdict.liveActivityRule?.reason : nil),
            explanation: fault.map { "fault \($0.id)" } ?? fields?.explanation ?? verdict.explanation,
            diagnostics: device.map { verdict.diagnostics + $0.diagnostics } ?? verdict.diagnostics, device: device)
    }
}
