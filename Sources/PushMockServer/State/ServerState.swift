import Foundation
import PushMockCore
import PushMockInspection
import PushMockStore
import PushMockTransport
import Synchronization

/// The server's state as the inspection port reaches it: the device registry, the fault plan,
/// the simulated activities and channels, reset and metrics, behind the protocols
/// ``PushMockInspection`` declares, which hands it Core's values (the bodies are decoded there).
struct ServerState: DeviceDirectory, FaultDirectory, ActivityBoard, ServerControl {
    let store: any DeliveryStore
    /// What the store can do beyond recording (keep state, share it with a fleet).
    let capabilities: StoreCapabilities
    let registry: DeviceRegistry
    let plan: FaultPlan
    let liveActivities: LiveActivities
    let broadcastChannels: BroadcastChannelStore
    let subscriptions: TopicSubscriptions
    let accessTokens: AccessTokenStore
    let parity: ParityLedger
    let apns: APNSEndpoint
    let fcm: FCMEndpoint
    let webPush: WebPushEndpoint
    let metricsRegistry: ServerMetrics
    let configuration: PushMockConfiguration
    /// Where the push port counts the records it keeps after its answers.
    let lanes: AnswerLanes

    // MARK: DeviceDirectory

    func devices() -> [String: DeviceRecord] { registry.all }

    func device(_ token: String) -> DeviceRecord? { registry.record(for: token) }

    func setDevice(_ token: String, _ record: DeviceRecord) {
        registry.set(record, for: token)
        saveDevices()
    }

    /// Forgets `token`: its registry record and its topic subscriptions.
    func removeDevice(_ token: String) -> Bool {
        defer { saveDevices() }
        let registered = registry.remove(token) != nil
        let subscribed = subscriptions.tokens.filter { $0.lowercased() == token.lowercased() }.reduce(0) { $0 + subscriptions.remove(token: $1) }
        return registered || subscribed > 0
    }

    func topics(of token: String) -> [String] {
        var topics = subscriptions.topics(of: token)
        if topics.isEmpty, let match = subscriptions.tokens.first(where: { $0.lowercased() == token.lowercased() }) {
            // The registry keeps tokens in lowercase; subscriptions keep them as sent.
            topics = subscriptions.topics(of: match)
        }
        return Set(topics.values.flatMap(\.keys)).sorted()
    }

    func subscribedTokens() -> Set<String> { subscriptions.tokens }

    // MARK: FaultDirectory

    func faults() -> [FaultRule] { plan.rules }

    func addFault(_ rule: FaultRule) throws(InspectionError) -> FaultRule {
        if let problem = configuration.relay.upstreamFaultProblem(rule) { throw InspectionError.badRequest(problem) }
        defer { saveFaults() }
        // A new serial each time: with a fleet's count, a rule added again starts its count again.
        var added = rule
        added.serial = UUID().uuidString
        return plan.add(added)
    }

    func removeFault(id: String) -> Bool {
        defer { saveFaults() }
        return plan.remove(id: id)
    }

    func removeAllFaults() -> Int {
        let count = plan.rules.count
        plan.reset(rules: [], seed: configuration.faultSeed)
        saveFaults()
        return count
    }

    // MARK: Kept across restarts (a store that archives state: SQLite, PostgreSQL) and shared by a fleet (PostgreSQL)

    /// The devices as set through the API, for the next start.
    func saveDevices() {
        guard let archive = capabilities.archive, let data = try? JSONEncoder().encode(registry.all) else { return }
        archive.archive(StateKey.devices.key, Array(data))
    }

    /// The faults as set through the API (with what a `count` fault had left then), for the next start.
    func saveFaults() {
        FaultArchive.save(plan, to: capabilities.archive)
    }

    /// Devices, faults, simulated activities and broadcast channels as the last run left them
    /// (devices and faults in place of the configuration's); with a store a fleet shares, also as
    /// other instances change them from now on.
    static func restore(
        from capabilities: StoreCapabilities, registry: DeviceRegistry, plan: FaultPlan, activities: LiveActivities, channels: BroadcastChannelStore,
        subscriptions: TopicSubscriptions, accessTokens: AccessTokenStore, parity: ParityLedger, seed: UInt64,
        configuredTypes: [String: ActivityTypeDeclaration], webPush: WebPushSubscriptions
    ) throws {
        guard let archive = capabilities.archive else { return }
        try parity.restore(compact: capabilities.sharedArchive == nil)
        if let bytes = try archive.archived(StateKey.tokenGeneration.key), let generation = UInt64(String(decoding: bytes, as: UTF8.self)) {
            accessTokens.adopt(generation: generation)
        }
        for key in [StateKey.devices, .faults] {
            if let bytes = try archive.archived(key.key) { try apply(key, bytes, registry: registry, plan: plan, seed: seed) }
        }
        try FaultArchive.restoreSpent(from: archive, to: plan)
        if let bytes = try archive.archived(StateKey.channels.key) { try channels.apply(bytes) }
        // Types first: a restored activity is bound to its type.
        try ActivityTypeArchive.restore(activities.types, configured: configuredTypes, from: archive)
        try activities.restore(from: archive)
        try TopicArchive.restore(subscriptions, from: archive)
        try WebPushArchive.restore(webPush, from: archive)
        capabilities.sharedArchive?.observeState { key, bytes in
            guard let kind = StateKey(key) else { return }
            switch kind {
            case .activity, .activityEntry:
                activities.apply(key: key, bytes)
            case .faultSpent(let fleetKey):
                if !bytes.isEmpty { plan.removeSpent(fleetKey: fleetKey) }
            case .activityType(let name):
                try? ActivityTypeArchive.apply(name: name, bytes, to: activities.types, configured: configuredTypes)
            case .topic:
                try? TopicArchive.apply(key: key, bytes, to: subscriptions)
            case .channels:
                try? channels.apply(bytes)
            case .tokenGeneration:
                if let generation = UInt64(String(decoding: bytes, as: UTF8.self)) { accessTokens.adopt(generation: generation) }
            case .devices, .faults:
                try? apply(kind, bytes, registry: registry, plan: plan, seed: seed)
            case .parity:
                parity.apply(key: key, bytes)
            case .webPush(let id):
                WebPushArchive.apply(id: id, bytes, to: webPush)
            }
        }
    }

    /// A snapshot of devices or faults, in place of what is set now.
    private static func apply(_ key: StateKey, _ bytes: [UInt8], registry: DeviceRegistry, plan: FaultPlan, seed: UInt64) throws {
        guard !bytes.isEmpty else { return }
        switch key {
        case .devices:
            let devices = try JSONDecoder().decode([String: DeviceRecord].self, from: Data(bytes))
            for (token, _) in registry.all where devices[token] == nil { registry.remove(token) }
            for (token, record) in devices { registry.set(record, for: token) }
        case .faults:
            try FaultArchive.apply(bytes, to: plan, seed: seed)
        default:
            break
        }
    }

    // MARK: ActivityBoard

    func activities() -> [SimulatedActivity] { liveActivities.all }

    func activity(_ key: String) -> SimulatedActivity? { liveActivities.activity(key) }

    func channels() -> [BroadcastChannel] { broadcastChannels.all }

    func state(of activity: SimulatedActivity) -> SimulatedActivity.State {
        activity.state(at: configuration.clock.now, limits: liveActivities.limits)
    }

    func shown(_ activity: SimulatedActivity) -> SimulatedActivity.Shown {
        activity.shown(at: configuration.clock.now)
    }

    func activityTypes() -> [String: ActivityTypeRegistry.Entry] { liveActivities.types.all }

    func declareActivityType(_ name: String, _ declaration: ActivityTypeDeclaration) throws(InspectionError) {
        try declareActivityTypes([(name, declaration)])
    }

    /// Declares all of `types` or none (409 past the registry's bound), and keeps them in the store.
    func declareActivityTypes(_ types: [(name: String, declaration: ActivityTypeDeclaration)]) throws(InspectionError) {
        let registry = liveActivities.types
        guard registry.declare(within: types.map { ($0.name, .declared($0.declaration)) }) else {
            let known = registry.all
            throw .tooManyActivityTypes(registry.maximumTypes, adding: Set(types.map(\.name)).filter { known[$0] == nil }.count)
        }
        for (name, declaration) in types { ActivityTypeArchive.save(name, declaration, in: capabilities.archive) }
    }

    func declareActivityTypes(
        swiftSource text: String, file: String
    ) async throws(InspectionError)
        -> (types: [(name: String, declaration: ActivityTypeDeclaration)], warnings: [String])
    {
        guard let reader = configuration.swiftSourceReader else {
            throw InspectionError(
                501,
                "this server does not read Swift source (the pushmock executable does; PushMockTesting leaves the parser out): declare each type in the JSON form with PUT /api/v1/activity-types/{name}"
            )
        }
        let read: SwiftSourceReading
        do {
            read = try await reader(file, text)
        } catch let busy as SwiftSourceReaderBusy {
            throw InspectionError(503, busy.description)
        } catch {
            throw InspectionError.badRequest("\(error)")
        }
        guard !read.types.isEmpty else {
            let warnings = read.warnings.isEmpty ? "" : " (\(read.warnings.joined(separator: "; ")))"
            throw InspectionError.badRequest("no type in the body conforms to ActivityAttributes\(warnings)")
        }
        try declareActivityTypes(read.types)
        return (read.types, read.warnings)
    }

    func removeActivityType(_ name: String) -> Bool {
        guard liveActivities.types.remove(name) else { return false }
        // Saved as removed, for the next start and the fleet (a configured type stays removed
        // until a reset).
        ActivityTypeArchive.save(name, body: ActivityTypeArchive.removed, in: capabilities.archive)
        return true
    }

    // MARK: ServerControl

    /// Deliveries cleared; faults and devices as configured; simulated activities, channels, topic
    /// subscriptions and access tokens forgotten; open connections' APNs token bindings started over.
    func reset() async throws {
        try await store.clear()
        // The configured faults count from the start again, on every instance of a fleet.
        try await capabilities.faultCounter?.forgetFires()
        if let archive = capabilities.archive {
            for key in try archive.archived(prefix: StateKey.Prefix.faultSpent).keys { archive.archive(key, []) }
        }
        plan.reset(rules: configuration.faults, seed: configuration.faultSeed)
        for (token, _) in registry.all {
            registry.remove(token)
        }
        for (token, record) in configuration.apns.devices {
            registry.set(record, for: token)
        }
        let generation = accessTokens.removeAll()
        capabilities.archive?.archive(StateKey.tokenGeneration.key, Array(String(generation).utf8))
        liveActivities.removeAll()
        ActivityTypeArchive.reset(liveActivities.types, configured: configuration.startingActivityTypes, in: capabilities.archive)
        liveActivities.types.reset(to: configuration.startingActivityTypes)
        broadcastChannels.removeAll()
        subscriptions.removeAll()
        apns.bindingGeneration.add(1, ordering: .relaxed)
        saveDevices()
        saveFaults()
    }

    /// Returns once every push answered so far is kept (the push port keeps a record after its
    /// answer): before the relay and the store close.
    func answersSettled() async {
        await lanes.settled()
    }

    func metrics() async -> [UInt8] {
        // The store's statistics are read first, so the counters include every push answered
        // so far (the store waits for them: SettlingStore).
        metricsRegistry.render(await store.statistics())
    }

    func issueAccessToken(clientEmail: String, projectID: String, scope: String) -> (token: String, expiresIn: Int64)? {
        let lifetime = configuration.fcm.accessTokenLifetime.components.seconds
        let token = accessTokens.issue(
            .init(clientEmail: clientEmail, projectID: projectID, scope: scope, expiresAt: configuration.clock.nowSeconds &+ lifetime))
        return (token, lifetime)
    }

    func parityRecords() -> [ParityRecord] { parity.records }

    func clearParity() throws -> Int { try parity.clear() }
}
