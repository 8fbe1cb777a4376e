import Foundation
public import PushMockCore

/// Where PushMock forwards the pushes it records, and with whose credentials: off unless an
/// upstream is set (`--relay-apns`, `--relay-fcm`, or `relay` in the configuration file).
public struct RelayConfiguration: Sendable {
    /// What the sender gets, and what is forwarded.
    public enum Mode: String, Sendable, CaseIterable {
        /// What PushMock accepts is forwarded; the sender gets PushMock's answer at once.
        case relay
        /// Every push is forwarded, rejected ones too; the sender gets PushMock's answer at once.
        case shadow
        /// Every push is forwarded and the sender gets the upstream's answer (502 when there is none).
        case passthrough
    }

    /// A key file's contents, or its path (read when the server starts).
    public enum Material: Sendable, Equatable {
        case pem(String)
        case file(String)

        func read(_ what: String) throws -> String {
            switch self {
            case .pem(let text): return text
            case .file(let path):
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw PushMockError(code: .invalidConfiguration, message: "relay: cannot read \(what) \(path)")
                }
                return String(decoding: data, as: UTF8.self)
            }
        }
    }

    /// How PushMock signs in to the APNs upstream.
    public enum APNSCredential: Sendable, Equatable {
        /// A `.p8` signing key: provider tokens of the relay's own, renewed every 30 minutes.
        case token(key: Material, keyID: String, teamID: String)
        /// A client certificate and its key (PEM), presented in the TLS handshake.
        case certificate(chain: Material, key: Material)
    }

    public struct APNSUpstream: Sendable, Equatable {
        /// `https://api.sandbox.push.apple.com`, `https://api.push.apple.com`, or another server.
        public var url: String
        public var credential: APNSCredential?

        public init(url: String, credential: APNSCredential?) {
            self.url = url
            self.credential = credential
        }
    }

    public struct FCMUpstream: Sendable, Equatable {
        /// `https://fcm.googleapis.com`, or another server.
        public var url: String
        /// The service account key file (JSON) whose `token_uri` gives the relay its access tokens.
        public var serviceAccount: Material?

        public init(url: String, serviceAccount: Material?) {
            self.url = url
            self.serviceAccount = serviceAccount
        }
    }

    /// Which pushes are forwarded: every condition set must hold (none set: all of them).
    public struct Match: Sendable, Equatable {
        public var service: Delivery.Service?
        public var topic: String?
        public var token: String?
        public var project: String?

        public init(service: Delivery.Service? = nil, topic: String? = nil, token: String? = nil, project: String? = nil) {
            self.service = service
            self.topic = topic
            self.token = token
            self.project = project
        }

        func matches(service: Delivery.Service, topic: String?, token: String?, project: String?) -> Bool {
            if let wanted = self.service, wanted != service { return false }
            if let wanted = self.topic, wanted != topic { return false }
            if let wanted = self.token, wanted.lowercased() != token?.lowercased() { return false }
            if let wanted = self.project, wanted != project { return false }
            return true
        }
    }

    public var apns: APNSUpstream?
    public var fcm: FCMUpstream?
    public var mode: Mode = .relay
    public var match = Match()
    /// Pushes waiting to be forwarded at most; more are recorded as `queue full` and counted.
    public var queueLimit = 10_000
    /// Bytes of pushes (bodies, fields and paths) waiting to be forwarded at most; past it as past
    /// ``queueLimit``.
    public var queueBytes = 64 << 20
    /// In `passthrough`: requests awaiting the upstream at most, in all and from one connection.
    /// Past either, the sender is answered at once as the service answers overload (APNs 429
    /// `TooManyRequests`, FCM 429 `QUOTA_EXCEEDED`) and the push is not forwarded.
    public var passthroughLimit = 1_000
    public var passthroughPerConnection = 100
    /// In `passthrough`: how long a sender waits for the upstream's answer, every attempt and
    /// backoff included, before it gets 502 (well under the usual client timeouts of 10–60 s).
    public var passthroughDeadline: Duration = .seconds(8)
    /// Forwards in flight at most (HTTP/2 streams over the pooled connections).
    public var concurrency = 64
    /// How long one attempt may take before it counts as failed (opening a connection: 5 s at most).
    public var timeout: Duration = .seconds(10)
    /// How long opening a connection (TCP and TLS) may take, within an attempt. The relay's
    /// network work runs at the lowest CPU priority, so on a machine whose cores are all busy a
    /// connection can take longer than on an idle one.
    public var connectTimeout: Duration = .seconds(5)
    /// Attempts at most for a 429 or 5xx answer (or no answer), with backoff in between.
    public var attempts = 3
    /// The first backoff; it doubles after each attempt.
    public var backoff: Duration = .milliseconds(200)
    /// CA certificates (PEM) trusted for upstreams besides the system's: another PushMock's CA.
    public var trustedCAs: Material?

    public init() {}

    /// Whether any upstream is set.
    public var isEnabled: Bool { apns != nil || fcm != nil }

    /// The one line the banner shows.
    public var summary: String? {
        guard isEnabled else { return nil }
        let upstreams = [apns.map { "APNs to \($0.url)" }, fcm.map { "FCM to \($0.url)" }].compactMap { $0 }
        return "relay (\(mode.rawValue)): \(upstreams.joined(separator: ", ")); relayed pushes reach real devices"
    }

    /// Why fault `rule` on the upstream's answer cannot fire here (nil when it can, or when it is
    /// on PushMock's own answer): the sender gets the upstream's answer only from a passthrough
    /// relay of the rule's service.
    public func upstreamFaultProblem(_ rule: FaultRule) -> String? {
        guard rule.target == .upstream else { return nil }
        guard isEnabled, mode == .passthrough else {
            return
                "fault \(rule.id) is on the upstream's answer, which the sender gets only through --relay-mode passthrough; this server's relay is \(isEnabled ? mode.rawValue : "off")"
        }
        if rule.match.service == .apns, apns == nil {
            return "fault \(rule.id) is on APNs' answer, but the relay does not forward APNs (--relay-apns)"
        }
        if rule.match.service == .fcm, fcm == nil { return "fault \(rule.id) is on FCM's answer, but the relay does not forward FCM (--relay-fcm)" }
        return nil
    }

    /// Refuses what cannot work: a URL that is not https, or the real services without credentials.
    public func validate() throws {
        if let apns {
            guard let url = URL(string: apns.url), url.scheme == "https", url.host != nil else {
                throw PushMockError(code: .invalidConfiguration, message: "relay: the APNs upstream must be an https URL, got \(apns.url)")
            }
            if apns.credential == nil {
                throw PushMockError(
                    code: .invalidConfiguration,
                    message:
                        "relay: forwarding to \(apns.url) needs the relay's own credentials: --relay-apns-key PATH --relay-apns-key-id ID --relay-apns-team-id ID, or --relay-apns-cert PATH (the sender's token is never forwarded)"
                )
            }
        }
        if let fcm {
            guard let url = URL(string: fcm.url), url.scheme == "https", url.host != nil else {
                throw PushMockError(code: .invalidConfiguration, message: "relay: the FCM upstream must be an https URL, got \(fcm.url)")
            }
            if fcm.serviceAccount == nil {
                throw PushMockError(
                    code: .invalidConfiguration,
                    message:
                        "relay: forwarding to \(fcm.url) needs the relay's own service account: --relay-fcm-service-account PATH (the sender's access token is never forwarded)"
                )
            }
        }
    }
}
