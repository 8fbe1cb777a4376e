import Foundation
import NIOCore
public import PushMockCore
import PushMockInspection
import PushMockStore
import PushMockTransport
import Synchronization

/// The inspection port's control routes that change server state: devices, faults, reset, and the
/// long-poll wait (the read-only delivery routes are ``InspectionAPI``'s).
///
/// | Route | |
/// |---|---|
/// | `GET /api/v1/deliveries/wait?<filters>&count=N&timeout=5s` | 200 once N matching deliveries exist, else 408 with what there is |
/// | `GET /api/v1/devices`, `GET/PUT/DELETE /api/v1/devices/{token}` | the device registry (the config file's device format) |
/// | `GET/PUT/DELETE /api/v1/faults`, `DELETE /api/v1/faults/{id}` | faults (the config file's fault format) |
/// | `POST /api/v1/reset` | deliveries cleared, devices and faults back to the configuration, access tokens forgotten |
struct ControlEndpoints: Sendable {
    let api: InspectionAPI
    let store: InMemoryDeliveryStore
    let devices: DeviceRegistry
    let faults: FaultPlan
    let accessTokens: AccessTokenStore
    let configuration: PushMockConfiguration
    /// The FCM service accounts loaded (public parts only are ever shown).
    let serviceAccounts: [ServiceAccount]
    /// Simulated Live Activities and broadcast channels.
    let activities: ActivityEndpoints
    /// What `POST /api/v1/reset` puts back.
    let reset: ServerReset
    /// What the event streams share (the subscriber cap, events encoded once).
    let events: EventHub

    /// Answers a control route, or returns nil for the delivery routes.
    func respond(to request: InspectionRequest, eventLoop: any EventLoop) -> ResponderResult? {
        let segments = request.path.split(separator: "/").map(String.init)
        guard segments.count >= 3, segments[0] == "api", segments[1] == "v1" else { return nil }
        switch (request.method, segments[2], segments.count) {
        case ("GET", "deliveries", 4) where segments[3] == "wait":
            return wait(request, eventLoop: eventLoop)
        case ("GET", "events", 3):
            return events(request)
        case (_, "events", 3):
            return .response(Self.http(InspectionAPI.error(405, "use GET /api/v1/events")))
        case (_, "devices", _):
            return .response(Self.http(devicesRoute(request, token: segments.count > 3 ? segments[3] : nil)))
        case (_, "faults", _):
            return .response(Self.http(faultsRoute(request, id: segments.count > 3 ? segments[3] : nil)))
        case ("GET", "activities", 3):
            return .response(Self.http(activities.list(request)))
        case ("GET", "activities", 4):
            return .response(Self.http(activities.one(segments[3])))
        case ("GET", "channels", 3):
            return .response(Self.http(activities.channelList(request)))
        case ("GET", "keys", 3):
            return .response(Self.http(.json(200, keysJSON())))
        case ("GET", "service-accounts", 3):
            return .response(Self.http(.json(200, serviceAccountsJSON())))
        case (_, "keys", 3), (_, "service-accounts", 3):
            return .response(Self.http(InspectionAPI.error(405, "\(request.method) is not allowed on \(request.path); credentials come from the configuration")))
        case ("POST", "reset", 3):
            reset()
            return .response(Self.http(.json(200, #"{"reset":true}"#)))
        case (_, "reset", 3):
            return .response(Self.http(InspectionAPI.error(405, "use POST /api/v1/reset")))
        default:
            return nil
        }
    }

    static func http(_ answer: InspectionResponse) -> HTTPServerResponse {
        HTTPServerResponse(status: answer.status, headers: [("content-type", answer.contentType)], body: answer.body)
    }

    // MARK: Wait

    private func wait(_ request: InspectionRequest, eventLoop: any EventLoop) -> ResponderResult {
        let spec: InspectionAPI.WaitSpec
        switch api.waitSpec(request) {
        case .failure(let error): return .response(Self.http(error.response))
        case .success(let parsed): spec = parsed
        }
        let promise = eventLoop.makePromise(of: HTTPServerResponse.self)
        let finished = WaitCompletion(promise: promise, api: api, spec: spec)
        guard let waiter = store.wait(for: spec.filter, count: spec.count, { finished.complete(timedOut: false) }) else {
            // Already there: answer now (and never leave a promise behind).
            finished.complete(timedOut: false)
            return .deferred(promise.futureResult)
        }
        let store = self.store
        eventLoop.scheduleTask(in: .milliseconds(spec.timeoutMilliseconds)) {
            store.cancelWait(waiter)
            finished.complete(timedOut: true)
        }
        return .deferred(promise.futureResult)
    }

    /// Completes a wait once, from the recording thread or the timeout.
    final class WaitCompletion: Sendable {
        let promise: EventLoopPromise<HTTPServerResponse>
        let api: InspectionAPI
        let spec: InspectionAPI.WaitSpec
        let completed = Atomic<Bool>(false)

        init(promise: EventLoopPromise<HTTPServerResponse>, api: InspectionAPI, spec: InspectionAPI.WaitSpec) {
            self.promise = promise
            self.api = api
            self.spec = spec
        }

        func complete(timedOut: Bool) {
            guard !completed.exchange(true, ordering: .acquiringAndReleasing) else { return }
            promise.succeed(ControlEndpoints.http(api.waitAnswer(spec, timedOut: timedOut)))
        }
    }

    // MARK: Events

    private func events(_ request: InspectionRequest) -> ResponderResult {
        let filter: DeliveryFilter
        switch api.eventFilter(request) {
        case .failure(let error): return .response(Self.http(error.response))
        case .success(let parsed): filter = parsed
        }
        var cursor = filter.after ?? (store.nextID - 1)
        if let last = request.header("last-event-id") {
            guard let id = UInt64(last.trimmingCharacters(in: .whitespaces)) else {
                return .response(Self.http(InspectionAPI.error(400, "Last-Event-ID must be a delivery id, got \(last)")))
            }
            cursor = id
        }
        guard events.join() else {
            return .response(Self.http(InspectionAPI.error(503, "\(events.maxSubscribers) event streams are open, the most this server takes (--max-event-subscribers); close one or raise the limit")))
        }
        let store = self.store
        let start = cursor
        let hub = events
        let reveal = request.reveal
        let head = HTTPServerResponse(status: 200, headers: [("content-type", "text/event-stream"), ("cache-control", "no-cache")])
        return .stream(head) { writer in
            EventStream.start(store: store, filter: filter, cursor: start, writer: writer, keepAlive: .seconds(15), hub: hub, reveal: reveal)
        }
    }

    // MARK: Devices

    private func devicesRoute(_ request: InspectionRequest, token: String?) -> InspectionResponse {
        switch (request.method, token) {
        case ("GET", nil):
            let all = devices.all.sorted { $0.key < $1.key }.map { Self.deviceJSON($0.key, $0.value) }
            return .json(200, "{\"devices\":[" + all.joined(separator: ",") + "]}")
        case ("GET", let token?):
            guard let record = devices.record(for: token) else { return InspectionAPI.error(404, "no device \(token) in the registry") }
            return .json(200, Self.deviceJSON(token, record))
        case ("PUT", let token?):
            guard let json = JSONValue.parse(request.body) else { return InspectionAPI.error(400, "the body is not valid JSON") }
            do {
                var object = try ConfigObject(file: "request body", path: "", value: json)
                let record = try PushMockConfiguration.device(&object, now: configuration.clock.nowMilliseconds)
                devices.set(record, for: token)
                return .json(200, Self.deviceJSON(token, record))
            } catch {
                return InspectionAPI.error(400, "\(error)")
            }
        case ("DELETE", let token?):
            guard devices.remove(token) != nil else { return InspectionAPI.error(404, "no device \(token) in the registry") }
            return .json(200, #"{"removed":1}"#)
        default:
            return InspectionAPI.error(405, "\(request.method) is not allowed on \(request.path)")
        }
    }

    static func deviceJSON(_ token: String, _ record: DeviceRecord) -> String {
        let fields = record.configurationJSON.dropFirst()
        return #"{"token":"\#(JSONText.escape(token))""# + (fields == "}" ? "}" : "," + fields)
    }

    // MARK: Faults

    private func faultsRoute(_ request: InspectionRequest, id: String?) -> InspectionResponse {
        switch (request.method, id) {
        case ("GET", nil):
            return .json(200, "{\"faults\":[" + faults.rules.map(Self.faultJSON).joined(separator: ",") + "]}")
        case ("PUT", nil):
            guard let json = JSONValue.parse(request.body) else { return InspectionAPI.error(400, "the body is not valid JSON") }
            do {
                let rule = try PushMockConfiguration.fault(try ConfigObject(file: "request body", path: "", value: json), index: faults.rules.count)
                faults.add(rule)
                return .json(200, Self.faultJSON(rule))
            } catch {
                return InspectionAPI.error(400, "\(error)")
            }
        case ("DELETE", nil):
            let count = faults.rules.count
            faults.reset(rules: [], seed: configuration.faultSeed)
            return .json(200, #"{"removed":\#(count)}"#)
        case ("DELETE", let id?):
            guard faults.remove(id: id) else { return InspectionAPI.error(404, "no fault \(id)") }
            return .json(200, #"{"removed":1}"#)
        default:
            return InspectionAPI.error(405, "\(request.method) is not allowed on \(request.path)")
        }
    }

    static func faultJSON(_ rule: FaultRule) -> String {
        var match: [String] = []
        for (name, value) in [("service", rule.match.service), ("path", rule.match.path), ("token", rule.match.token), ("topic", rule.match.topic), ("project", rule.match.project)] {
            if let value { match.append(#""\#(name)":"\#(JSONText.escape(value))""#) }
        }
        var fields = [#""id":"\#(JSONText.escape(rule.id))""#, "\"match\":{" + match.joined(separator: ",") + "}"]
        switch rule.action {
        case .reject(let status, let reason): fields.append(#""reject":{"status":\#(status),"reason":"\#(JSONText.escape(reason))"}"#)
        case .delay(let milliseconds): fields.append(#""delayMilliseconds":\#(milliseconds)"#)
        case .goAway(let reason): fields.append(#""goAway":"\#(JSONText.escape(reason))""#)
        case .resetStream: fields.append(#""resetStream":true"#)
        }
        if let count = rule.count { fields.append(#""count":\#(count)"#) }
        if let probability = rule.probability { fields.append(#""probability":\#(probability)"#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    // MARK: Credentials (never private keys)

    private func keysJSON() -> String {
        let keys = configuration.apns.keys.map { key -> String in
            var fields = [#""keyId":"\#(JSONText.escape(key.keyID))""#, #""teamId":"\#(JSONText.escape(key.teamID))""#, #""scope":"\#(key.scope.rawValue)""#]
            if let topics = key.topics {
                fields.append("\"topics\":[" + topics.map { "\"\(JSONText.escape($0))\"" }.joined(separator: ",") + "]")
            }
            if case .file(let path) = key.source {
                fields.append(#""file":"\#(JSONText.escape(path))""#)
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let bundles = configuration.apns.bundles.map { #"{"bundleId":"\#(JSONText.escape($0.bundleID))","teamId":"\#(JSONText.escape($0.teamID))"}"# }
        return "{\"keys\":[" + keys.joined(separator: ",") + "],\"bundles\":[" + bundles.joined(separator: ",") + "]}"
    }

    private func serviceAccountsJSON() -> String {
        let accounts = serviceAccounts.map { account in
            #"{"projectId":"\#(JSONText.escape(account.projectID))","clientEmail":"\#(JSONText.escape(account.clientEmail))","privateKeyId":"\#(JSONText.escape(account.privateKeyID))"}"#
        }
        return "{\"serviceAccounts\":[" + accounts.joined(separator: ",") + "],\"tokenPath\":\"\(JSONText.escape(configuration.fcm.tokenPath))\"}"
    }
}

extension FaultRule {
    /// The rule in the configuration file's and the faults API's JSON format.
    public var configurationJSON: String { ControlEndpoints.faultJSON(self) }
}

extension DeviceRecord {
    /// The record in the configuration file's and the devices API's JSON format (`PUT /api/v1/devices/{token}`).
    public var configurationJSON: String {
        var fields: [String] = []
        if let bundle = bundleID { fields.append(#""bundleId":"\#(JSONText.escape(bundle))""#) }
        if let environment { fields.append(#""environment":"\#(environment.rawValue)""#) }
        if let project = fcmProject { fields.append(#""project":"\#(JSONText.escape(project))""#) }
        switch state {
        case .active: fields.append(#""state":"active""#)
        case .expired: fields.append(#""state":"expired""#)
        case .unregistered(let since): fields.append(#""state":"unregistered","unregisteredAt":\#(since)"#)
        }
        switch liveActivity {
        case nil: break
        case .activity: fields.append(#""liveActivity":"activity""#)
        case .pushToStart(let type):
            fields.append(#""liveActivity":"pushToStart""#)
            if let type { fields.append(#""attributesType":"\#(JSONText.escape(type))""#) }
        }
        return "{" + fields.joined(separator: ",") + "}"
    }
}
