import Foundation
public import PushMockCore
import PushMockStore

/// A delivery as the inspection API shows it (`GET /api/v1/deliveries…`, the `delivery` events of
/// `GET /api/v1/events`), and as ``PushMockClient`` reads it back.
public struct DeliveryResource: Codable, Sendable, Equatable {
    public var id: UInt64
    public var receivedAt: InspectionTime
    public var connectionId: UInt64
    /// `HTTP/2` or `HTTP/1.1`.
    public var `protocol`: String
    public var service: String
    public var method: String
    public var path: String
    /// Name and value pairs in arrival order; `authorization` with its signature elided unless revealed.
    public var headers: [[String]]
    /// The `authorization` JWT decoded (signature elided), when it is one and not revealed.
    @Nullable public var authorization: AuthorizationView?
    public var outcome: Delivery.Outcome
    public var status: Int
    public var diagnostics: [String]
    @Nullable public var environment: String?
    @Nullable public var identity: String?
    @Nullable public var pushType: String?
    @Nullable public var topic: String?
    @Nullable public var deviceToken: String?
    @Nullable public var apnsId: String?
    @Nullable public var reason: String?
    @Nullable public var explanation: String?
    @Nullable public var fault: String?
    @Nullable public var project: String?
    @Nullable public var activityId: String?
    @Nullable public var issuedActivityToken: String?
    /// An FCM topic or condition send's fan-out: the registration tokens it would reach (empty:
    /// nobody is subscribed); `null` for every other request.
    @Nullable public var recipients: [String]?
    /// What the relay's upstream answered (`null`: not forwarded, or no answer yet).
    @Nullable public var relay: RelayResult?
    /// `applied`, `dropped` or `none`.
    public var deviceOutcome: String
    @Nullable public var dropReason: String?
    /// The body as text, when it is UTF-8…
    public var body: String?
    /// …else in base64.
    public var bodyBase64: String?
    /// The body parsed, when it is a JSON object.
    @Nullable public var payload: JSONValue?

    /// A JWT credential shown without its signature.
    public struct AuthorizationView: Codable, Sendable, Equatable {
        public var scheme: String
        public var header: JSONValue
        public var claims: JSONValue
        public var signature: String
    }

    /// `delivery` as the API shows it; `reveal` keeps the `authorization` header as received.
    public init(_ delivery: Delivery, reveal: Bool = false) {
        var headers = delivery.headers.map { [$0.name, $0.value] }
        var credential: AuthorizationView?
        if !reveal, let index = delivery.headers.firstIndex(where: { $0.name == "authorization" }) {
            let value = delivery.headers[index].value
            headers[index][1] = CredentialView.value(value)
            credential = CredentialView.decoded(value)
        }
        id = delivery.id
        receivedAt = InspectionTime(milliseconds: delivery.receivedAt)
        connectionId = delivery.connectionID
        `protocol` = delivery.httpVersion
        service = delivery.service.rawValue
        method = delivery.method
        path = delivery.path
        self.headers = headers
        authorization = credential
        outcome = delivery.outcome
        status = delivery.status
        diagnostics = delivery.diagnostics
        environment = delivery.environment
        identity = delivery.identity
        pushType = delivery.pushType
        topic = delivery.topic
        deviceToken = delivery.deviceToken
        apnsId = delivery.apnsID
        reason = delivery.reason
        explanation = delivery.explanation
        fault = delivery.fault
        project = delivery.project
        activityId = delivery.activityID
        issuedActivityToken = delivery.issuedActivityToken
        recipients = delivery.recipients
        relay = delivery.relay
        deviceOutcome = DeliveryFilter.DeviceOutcome(delivery.outcome).rawValue
        dropReason = delivery.outcome == .dropped ? delivery.reason : nil
        if let text = String(validating: delivery.body, as: UTF8.self) {
            body = text
        } else {
            bodyBase64 = Data(delivery.body).base64EncodedString()
        }
        payload = delivery.bodyIsJSON ? JSONValue.parse(delivery.body) : nil
    }

    /// The delivery this resource shows (what ``PushMockClient`` hands to tests).
    public var delivery: Delivery {
        var bytes: [UInt8] = []
        if let body {
            bytes = Array(body.utf8)
        } else if let bodyBase64, let data = Data(base64Encoded: bodyBase64) {
            bytes = Array(data)
        }
        var delivery = Delivery(
            receivedAt: receivedAt.milliseconds, connectionID: connectionId, httpVersion: `protocol`,
            service: Delivery.Service(rawValue: service), environment: environment, method: method, path: path,
            headers: headers.compactMap { $0.count == 2 ? HeaderField(name: $0[0], value: $0[1]) : nil },
            body: bytes, bodyIsJSON: payload != nil, identity: identity, pushType: pushType, topic: topic,
            deviceToken: deviceToken, apnsID: apnsId, outcome: outcome, status: status, reason: reason,
            explanation: explanation, diagnostics: diagnostics, fault: fault, project: project
        )
        delivery.id = id
        delivery.activityID = activityId
        delivery.issuedActivityToken = issuedActivityToken
        delivery.recipients = recipients
        delivery.relay = relay
        return delivery
    }
}
