import ArgumentParser
import Foundation
import PushMockCore
import PushMockServer

/// Forwarding to the real services (or any compatible server): off unless an upstream is given.
struct RelayOptions: ParsableArguments {
    @Option(
        help:
            "Forward APNs pushes to this upstream: https://api.sandbox.push.apple.com, https://api.push.apple.com (the push's own environment picks between Apple's two), or another server such as a PushMock. Relayed pushes reach real devices."
    )
    var relayApns: String?

    @Option(help: "The relay's own APNs signing key (.p8) for --relay-apns; the sender's token is never forwarded.")
    var relayApnsKey: String?

    @Option(help: "The key id of --relay-apns-key.")
    var relayApnsKeyId: String?

    @Option(help: "The team id of --relay-apns-key.")
    var relayApnsTeamId: String?

    @Option(help: "Instead of a key: the relay's APNs client certificate, PEM, with its private key in the same file or in --relay-apns-cert-key.")
    var relayApnsCert: String?

    @Option(help: "The private key of --relay-apns-cert, PEM.")
    var relayApnsCertKey: String?

    @Option(help: "Forward FCM sends to this upstream: https://fcm.googleapis.com, or another server such as a PushMock.")
    var relayFcm: String?

    @Option(
        help:
            "The relay's own service account key file (JSON) for --relay-fcm: its token_uri gives the access tokens, its project_id names the project sent to."
    )
    var relayFcmServiceAccount: String?

    @Option(
        help:
            "relay: what PushMock accepts is forwarded, the sender gets PushMock's answer at once (default); shadow: every push is forwarded, rejected ones too; passthrough: the sender gets the upstream's answer (502 without one)."
    )
    var relayMode: RelayConfiguration.Mode?

    @Option(help: "Also trust this CA (PEM) for the upstreams: another PushMock's Certs/ca.pem.")
    var relayCaFile: String?

    @Option(help: "Pushes waiting to be forwarded at most; more are recorded with the relay error \"queue full\" (default 10000).")
    var relayQueueLimit: Int?

    func check() throws {
        if relayApnsKey != nil, relayApnsKeyId == nil || relayApnsTeamId == nil {
            throw ValidationError("--relay-apns-key needs --relay-apns-key-id and --relay-apns-team-id")
        }
        if relayApnsKey != nil, relayApnsCert != nil {
            throw ValidationError("--relay-apns-key and --relay-apns-cert: one or the other")
        }
        let apnsCredentials = [relayApnsKey, relayApnsKeyId, relayApnsTeamId, relayApnsCert, relayApnsCertKey].contains { $0 != nil }
        if relayApns == nil, apnsCredentials {
            throw ValidationError("--relay-apns-key/--relay-apns-cert name the relay's credentials for --relay-apns URL, which is missing")
        }
        if relayFcm == nil, relayFcmServiceAccount != nil {
            throw ValidationError("--relay-fcm-service-account names the relay's account for --relay-fcm URL, which is missing")
        }
        if let relayQueueLimit, relayQueueLimit < 1 {
            throw ValidationError("--relay-queue-limit must be at least 1 (got \(relayQueueLimit))")
        }
    }

    func apply(to configuration: inout PushMockConfiguration) {
        if let relayApns {
            var credential = configuration.relay.apns?.credential
            if let relayApnsKey, let relayApnsKeyId, let relayApnsTeamId {
                credential = .token(key: .file(relayApnsKey), keyID: relayApnsKeyId, teamID: relayApnsTeamId)
            } else if let relayApnsCert {
                credential = .certificate(chain: .file(relayApnsCert), key: .file(relayApnsCertKey ?? relayApnsCert))
            }
            configuration.relay.apns = .init(url: relayApns, credential: credential)
        }
        if let relayFcm {
            configuration.relay.fcm = .init(
                url: relayFcm, serviceAccount: relayFcmServiceAccount.map { .file($0) } ?? configuration.relay.fcm?.serviceAccount)
        }
        if let relayMode { configuration.relay.mode = relayMode }
        if let relayCaFile { configuration.relay.trustedCAs = .file(relayCaFile) }
        if let relayQueueLimit { configuration.relay.queueLimit = relayQueueLimit }
    }
}
