import Foundation
import Logging
import PushMockCore
import PushMockInspection
import PushMockOutbound
import PushMockStore
import PushMockTransport

/// The server's parts, made from a configuration and a store: state, endpoints, responders.
extension PushMockServer {
    struct Components {
        let store: any DeliveryStore
        let devices: DeviceRegistry
        let tokens: ProviderTokenVerifier
        let faults: FaultPlan
        let accessTokens: AccessTokenStore
        let activities: LiveActivities
        let channels: BroadcastChannelStore
        let push: PushResponder
        let inspection: InspectionPort
        let metadata: MetadataServer
        let pushAddress: PushAddress
        let state: ServerState
        let relay: Relay?
        /// Where the push port's connections count the records they keep after their answers.
        let lanes: AnswerLanes
    }

    static func makeComponents(_ configuration: PushMockConfiguration, store written: any DeliveryStore, logger: Logger) throws -> Components {
        // Pushes are recorded once their answers are flushed; readers wait for that (SettlingStore).
        let lanes = AnswerLanes()
        let store = SettlingStore(written, lanes: lanes)
        let apns = configuration.apns
        var catalogue = CatalogueCredentials()
        let registry: APNSCredentialRegistry
        (registry, catalogue.apns) = try apnsRegistry(apns)
        let tokens = ProviderTokenVerifier(registry: registry)
        let devices = DeviceRegistry(closed: apns.closedDeviceRegistry, records: apns.devices)
        for rule in configuration.faults {
            if let problem = configuration.relay.upstreamFaultProblem(rule) { throw PushMockError(code: .invalidConfiguration, message: problem) }
        }
        let faults = FaultPlan(rules: configuration.faults, seed: configuration.faultSeed)
        let activityTypes = ActivityTypeRegistry(configuration.startingActivityTypes, maximumTypes: configuration.maxActivityTypes)
        let capabilities = StoreCapabilities(of: written)
        let archive = capabilities.archive
        let channels = BroadcastChannelStore(seed: configuration.idSeed, limit: configuration.broadcastChannelLimit, archive: archive)
        let activities = LiveActivities(
            limits: configuration.liveActivityLimits, devices: devices, types: activityTypes, seed: configuration.idSeed, archive: archive,
            channels: channels
        )
        let subscriptions = TopicArchive.subscriptions(archive: archive)
        let metrics = ServerMetrics()
        let parity = ParityLedger(archive: archive) { [clock = configuration.clock] in clock.nowMilliseconds }
        let relay =
            configuration.relay.isEnabled
            ? try Relay(configuration.relay, store: written, metrics: metrics, logger: logger, parity: parity) : nil
        let recorder = PushRecorder(
            store: written, capabilities: capabilities, metrics: metrics, faults: faults, activities: activities, relay: relay)
        let endpoint = try apnsEndpoint(
            configuration, tokens: tokens, devices: devices, activityTypes: activityTypes, recorder: recorder, activities: activities, logger: logger)
        let accounts: [ServiceAccount]
        (accounts, catalogue.fcm) = try serviceAccounts(configuration.fcm)
        // With a store that lasts, tokens are sealed with a secret every instance of a fleet (and
        // the next run) derives alike, so that a token from one instance is good on all of them.
        let accessTokens = AccessTokenStore(secret: archive == nil ? nil : AccessTokenStore.secret(for: accounts), accounts: accounts)
        let webPush = WebPushArchive.subscriptions(archive: archive)
        do {
            try ServerState.restore(
                from: capabilities, registry: devices, plan: faults, activities: activities, channels: channels, subscriptions: subscriptions,
                accessTokens: accessTokens, parity: parity, seed: configuration.faultSeed, configuredTypes: configuration.startingActivityTypes,
                webPush: webPush
            )
        } catch {
            throw PushMockError(
                code: .storeUnavailable,
                message:
                    "store \(configuration.store): the state it kept (devices, faults, activities, channels, Web Push subscriptions) cannot be read: \(error)"
            )
        }
        let (oauth, fcm, iid) = googleEndpoints(
            configuration, accounts: accounts, accessTokens: accessTokens, devices: devices, activityTypes: activityTypes, recorder: recorder,
            activities: activities, subscriptions: subscriptions, logger: logger)
        let pushAddress = PushAddress(
            host: configuration.host, caFile: caFile(of: configuration.tls), realHosts: configuration.transparent || configuration.proxyPort != nil)
        let webPushEndpoint = WebPushEndpoint(subscriptions: webPush, recorder: recorder, clock: configuration.clock, relaying: relay != nil)
        let state = ServerState(
            store: store, capabilities: capabilities, registry: devices, plan: faults, liveActivities: activities, broadcastChannels: channels,
            subscriptions: subscriptions,
            accessTokens: accessTokens, parity: parity, apns: endpoint, fcm: fcm, webPush: webPushEndpoint, metricsRegistry: metrics,
            configuration: configuration, lanes: lanes
        )
        let router = inspectionRouter(
            configuration, store: store, state: state, accounts: accounts, pushAddress: pushAddress, catalogue: catalogue, webPush: webPush)
        relay?.observe { [router] result, id in router.relayAnswered(result, forDelivery: id) }
        return Components(
            store: store,
            devices: devices,
            tokens: tokens,
            faults: faults,
            accessTokens: accessTokens,
            activities: activities,
            channels: channels,
            push: PushResponder(
                mode: configuration.mode, apns: endpoint, broadcast: BroadcastEndpoint(apns: endpoint, channels: channels), fcm: fcm, iid: iid,
                oauth: oauth,
                webPush: webPushEndpoint,
                tokenPath: configuration.fcm.tokenPath,
                transparent: configuration.transparent, streamsBeforeAuthentication: apns.streamsBeforeAuthentication, metrics: metrics,
                activityOrder: capabilities.activityOrder
            ),
            inspection: InspectionPort(router: router),
            metadata: metadataServer(configuration, account: accounts.first, accessTokens: accessTokens, recorder: recorder),
            pushAddress: pushAddress,
            state: state,
            relay: relay,
            lanes: lanes
        )
    }

    /// The APNs endpoint: its validator, client-certificate trust and stream limits.
    private static func apnsEndpoint(
        _ configuration: PushMockConfiguration, tokens: ProviderTokenVerifier, devices: DeviceRegistry, activityTypes: ActivityTypeRegistry,
        recorder: PushRecorder, activities: LiveActivities, logger: Logger
    ) throws -> APNSEndpoint {
        let apns = configuration.apns
        let trust = try ClientCertificateTrust(rootsPEM: apns.certificateTrustRoots.map { try readPEM($0, what: "certificate trust root") })
        return APNSEndpoint(
            validator: APNSValidator(options: apns.options, tokens: tokens, devices: devices, activityTypes: activityTypes),
            recorder: recorder,
            activities: activities,
            clock: configuration.clock,
            trust: trust,
            defaultEnvironment: apns.defaultEnvironment,
            raisedStreamLimit: configuration.http2.maxConcurrentStreams,
            idSeed: configuration.idSeed,
            logger: logger
        )
    }

    /// Google's endpoints on the push port: OAuth, FCM, and topic management.
    private static func googleEndpoints(
        _ configuration: PushMockConfiguration, accounts: [ServiceAccount], accessTokens: AccessTokenStore, devices: DeviceRegistry,
        activityTypes: ActivityTypeRegistry, recorder: PushRecorder, activities: LiveActivities, subscriptions: TopicSubscriptions, logger: Logger
    ) -> (OAuthEndpoint, FCMEndpoint, IIDEndpoint) {
        let apns = configuration.apns
        let oauth = OAuthEndpoint(
            endpoint: OAuthTokenEndpoint(configuration.fcm, accounts: accounts), tokens: accessTokens, recorder: recorder, clock: configuration.clock,
            logger: logger)
        let fcm = FCMEndpoint(
            validator: FCMMessageValidator(
                strictRegistrationTokens: configuration.fcm.strictRegistrationTokens, liveActivity: apns.options.liveActivity,
                activityTypes: activityTypes
            ),
            accounts: accounts, tokens: accessTokens, devices: devices, recorder: recorder, activities: activities, subscriptions: subscriptions,
            clock: configuration.clock, logger: logger, staleTokenAfter: configuration.fcm.staleTokenAfter,
            userProjects: configuration.fcm.userProjects
        )
        let iid = IIDEndpoint(
            fcm: fcm, subscriptions: subscriptions, requireAccessTokenAuth: configuration.fcm.requireAccessTokenAuth,
            mode: configuration.fcm.instanceID)
        return (oauth, fcm, iid)
    }

    /// Google's metadata server (`--metadata-port`), with tokens for the first service account.
    private static func metadataServer(
        _ configuration: PushMockConfiguration, account: ServiceAccount?, accessTokens: AccessTokenStore, recorder: PushRecorder
    ) -> MetadataServer {
        MetadataServer(
            account: account, tokens: accessTokens, lifetime: configuration.fcm.accessTokenLifetime, recorder: recorder,
            clock: configuration.clock,
            hostGuard: InspectionGuard(
                inspectionHost: configuration.inspectionHost, extraHosts: configuration.inspectionAllowedHosts + MetadataServer.metadataHosts))
    }

    /// The CA file clients are told to trust: `ca.pem` beside the certificate chain's file.
    static func caFile(of tls: PushMockConfiguration.TLSSource) -> String {
        switch tls {
        case .files(let chain, _):
            let directory = (chain as NSString).deletingLastPathComponent
            return directory.isEmpty ? "ca.pem" : directory + "/ca.pem"
        case .pem:
            return "ca.pem"
        }
    }

    /// The APNs keys and bundles as the provider-token verifier's registry, and the first key with
    /// its private half, which the catalogue and `/api/v1/send` sign with.
    static func apnsRegistry(_ apns: APNSConfiguration) throws -> (APNSCredentialRegistry, CatalogueCredentials.APNS?) {
        var registry = APNSCredentialRegistry()
        var signing: CatalogueCredentials.APNS?
        for key in apns.keys {
            let pem = try readPEM(key.source, what: "APNs key \(key.keyID)")
            if signing == nil, pem.contains("PRIVATE KEY") {
                let topic = key.topics?.first ?? apns.bundles.first { $0.teamID == key.teamID }?.bundleID ?? "com.example.app"
                signing = CatalogueCredentials.APNS(keyID: key.keyID, teamID: key.teamID, pem: pem, topic: topic)
            }
            do {
                registry.add(
                    APNSSigningKey(
                        keyID: key.keyID, teamID: key.teamID, publicKey: try APNSSigningKey.publicKey(fromPEM: pem), scope: key.scope,
                        topics: key.topics))
            } catch {
                throw PushMockError(code: .invalidConfiguration, message: "APNs key \(key.keyID) is not a P-256 key in PEM (.p8): \(error)")
            }
        }
        for bundle in apns.bundles {
            registry.addBundle(bundle.bundleID, team: bundle.teamID)
        }
        return (registry, signing)
    }

    /// The FCM service accounts, and the first with its private key, with which the catalogue and
    /// `/api/v1/send` obtain access tokens.
    static func serviceAccounts(_ fcm: FCMConfiguration) throws -> ([ServiceAccount], CatalogueCredentials.FCM?) {
        var accounts: [ServiceAccount] = []
        var signing: CatalogueCredentials.FCM?
        for source in fcm.serviceAccounts {
            let text = try readPEM(source, what: "FCM service account")
            do {
                accounts.append(try ServiceAccount.parse(json: Array(text.utf8)))
                if signing == nil, text.contains("PRIVATE KEY") {
                    signing = CatalogueCredentials.FCM(json: text, tokenPath: fcm.tokenPath)
                }
            } catch {
                throw PushMockError(code: .invalidConfiguration, message: "FCM service account \(source): \(error)")
            }
        }
        return (accounts, signing)
    }

    /// The inspection port's router over the server's state.
    static func inspectionRouter(
        _ configuration: PushMockConfiguration, store: any DeliveryStore, state: ServerState, accounts: [ServiceAccount], pushAddress: PushAddress,
        catalogue: CatalogueCredentials, webPush: WebPushSubscriptions = WebPushSubscriptions()
    ) -> InspectionRouter {
        var inspectionSettings = InspectionSettings(
            token: configuration.inspectionToken,
            browserGuard: InspectionGuard(inspectionHost: configuration.inspectionHost, extraHosts: configuration.inspectionAllowedHosts),
            // Streams and long-polls together stay below the inspection port's connection cap,
            // with an eighth of it (at least 4) kept for everything else: /livez, /metrics, the page.
            maxEventSubscribers: min(configuration.maxEventSubscribers, Self.longRequestCap(configuration)),
            pushAddress: pushAddress,
            keys: credentialList(configuration.apns),
            serviceAccounts: ServiceAccountList(
                serviceAccounts: accounts.map { .init(projectId: $0.projectID, clientEmail: $0.clientEmail, privateKeyId: $0.privateKeyID) },
                tokenPath: configuration.fcm.tokenPath
            )
        )
        inspectionSettings.credentials =
            configuration.developmentMaterial.map(DevMaterialDirectory.credentials(of:))
            ?? configuration.developmentMaterialFolder.map(DevMaterialDirectory.credentials(in:)) ?? DevelopmentCredentials()
        inspectionSettings.version = configuration.serverVersion
        inspectionSettings.maxLongPolls = max(1, min(configuration.maxLongPolls ?? .max, Self.longRequestCap(configuration)))
        return InspectionRouter(
            store: store, devices: state, faults: state, activities: state, control: state,
            settings: inspectionSettings,
            sender: LoopbackSender(address: pushAddress, deadline: configuration.catalogueAnswerDeadline), credentials: catalogue,
            nowMilliseconds: { [clock = configuration.clock] in clock.nowMilliseconds }, webPush: webPush
        )
    }

    /// The APNs keys and bundles configured, public facts only.
    static func credentialList(_ apns: APNSConfiguration) -> KeyList {
        let keys = apns.keys.map { key -> KeyList.Key in
            var file: String?
            if case .file(let path) = key.source { file = path }
            return KeyList.Key(keyId: key.keyID, teamId: key.teamID, scope: key.scope.rawValue, topics: key.topics, file: file)
        }
        return KeyList(keys: keys, bundles: apns.bundles.map { KeyList.Bundle(bundleId: $0.bundleID, teamId: $0.teamID) })
    }

    /// Event streams, and separately long-polls, at most: half of the inspection port's connection
    /// cap less its reserve (an eighth, at least 4), so that both full still leave the reserve.
    static func longRequestCap(_ configuration: PushMockConfiguration) -> Int {
        let inspection = DescriptorLimit.caps(descriptors: DescriptorLimit.raiseToHardLimit(), cleartext: configuration.cleartextPort != nil)
            .inspection
        return max(1, (inspection - max(4, inspection / 8)) / 2)
    }

    static func readPEM(_ source: APNSConfiguration.Key.Source, what: String) throws -> String {
        switch source {
        case .pem(let text):
            return text
        case .file(let path):
            guard FileCheck.exists(path) else {
                throw PushMockError(
                    code: .invalidConfiguration, message: "\(what): \(path) not found. Run from the repository root or pass the file explicitly.")
            }
            do {
                return try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw PushMockError(code: .invalidConfiguration, message: "\(what): cannot read \(path): \(error)")
            }
        }
    }
}
