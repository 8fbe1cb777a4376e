import ArgumentParser
import Foundation
import PushMockCore
import PushMockServer

/// APNs: keys, bundles, trust, faults, and the rules that can be relaxed.
struct APNSOptions: ParsableArguments {
    @Option(
        name: .customLong("apns-key"),
        help:
            "Register an APNs signing key: KEYID:TEAMID:PATH.p8[:ENV][:TOPIC,…] (ENV: sandbox, production, both). Repeatable; the sample key in Certs/ is always registered."
    )
    var apnsKeys: [String] = []

    @Option(name: .customLong("apns-bundle"), help: "Register a bundle id: ID[:TEAMID] (default team: the sample team PMTEAM0001). Repeatable.")
    var apnsBundles: [String] = []

    @Option(name: .customLong("apns-environment"), help: "Environment for hosts that do not name one (localhost, 127.0.0.1) (default sandbox).")
    var apnsEnvironment: APNSEnvironment?

    @Option(
        name: .customLong("apns-trust-root"), help: "PEM file of a root that client certificates must chain to (default Certs/ca.pem). Repeatable.")
    var apnsTrustRoots: [String] = []

    @Option(
        name: .customLong("apns-streams-before-auth"),
        help: "SETTINGS_MAX_CONCURRENT_STREAMS of a token connection until its first valid provider token (APNs: 1).")
    var streamsBeforeAuth: UInt32?

    @Option(
        name: .customLong("apns-fault"),
        help: "Answer APNs pushes with this reason: REASON[:DEVICE_TOKEN] (e.g. TooManyRequests, Shutdown, Unregistered). Repeatable.")
    var apnsFaults: [String] = []

    @Flag(name: .customLong("closed-device-registry"), help: "Answer BadDeviceToken for device tokens that are not registered.")
    var closedDeviceRegistry = false

    @Flag(name: .customLong("allow-background-priority-10"), help: "Accept background pushes at priority 10 (default: BadPriority).")
    var allowBackgroundPriority10 = false

    @Flag(name: .customLong("allow-topic-mismatch"), help: "Accept a push type whose topic suffix does not match (default: BadTopic).")
    var allowTopicMismatch = false

    @Flag(name: .customLong("allow-non-json-body"), help: "Accept APNs bodies that are not a JSON object (default: BadPayload).")
    var allowNonJSONBody = false

    func check() throws {
        if let streamsBeforeAuth, !(1...1000).contains(streamsBeforeAuth) {
            throw ValidationError("--apns-streams-before-auth must be between 1 and 1000 (got \(streamsBeforeAuth))")
        }
        do {
            for key in apnsKeys { _ = try APNSConfiguration.Key(flag: key) }
            for (index, fault) in apnsFaults.enumerated() { _ = try Self.fault(fault, index: index) }
        } catch {
            throw ValidationError("\(error)")
        }
        for bundle in apnsBundles where bundle.isEmpty || bundle.hasPrefix(":") {
            throw ValidationError("--apns-bundle expects ID[:TEAMID] (got '\(bundle)')")
        }
    }

    /// `REASON[:DEVICE_TOKEN]` as a fault rule.
    static func fault(_ flag: String, index: Int) throws -> FaultRule {
        let parts = flag.split(separator: ":", maxSplits: 1).map(String.init)
        guard let name = parts.first, let reason = APNSRejectionReason.named(name) else {
            throw PushMockError(
                code: .invalidConfiguration,
                message: "--apns-fault \(flag): unknown reason; known: \(APNSRejectionReason.all.map(\.reason).joined(separator: ", "))")
        }
        let token = parts.count > 1 ? parts[1] : nil
        return FaultRule(
            id: "cli-\(index + 1)-\(reason.reason)", match: .init(service: .apns, token: token),
            action: .reject(status: reason.status, reason: reason.reason))
    }

    func apply(to configuration: inout PushMockConfiguration) throws {
        configuration.apns.keys += try apnsKeys.map { try APNSConfiguration.Key(flag: $0) }
        for flag in apnsBundles {
            let parts = flag.split(separator: ":", maxSplits: 1).map(String.init)
            configuration.apns.bundles.append(.init(bundleID: parts[0], teamID: parts.count > 1 ? parts[1] : DevCertificates.sampleAPNSTeamID))
        }
        if let apnsEnvironment { configuration.apns.defaultEnvironment = apnsEnvironment }
        if !apnsTrustRoots.isEmpty { configuration.apns.certificateTrustRoots = apnsTrustRoots.map { .file($0) } }
        if let streamsBeforeAuth { configuration.apns.streamsBeforeAuthentication = streamsBeforeAuth }
        if closedDeviceRegistry { configuration.apns.closedDeviceRegistry = true }
        if allowBackgroundPriority10 { configuration.apns.options.rejectBackgroundPriority10 = false }
        if allowTopicMismatch { configuration.apns.options.rejectTopicPushTypeMismatch = false }
        if allowNonJSONBody { configuration.apns.options.rejectNonJSONBody = false }
        configuration.faults += try apnsFaults.enumerated().map { try Self.fault($1, index: $0) }
    }
}
