import Foundation
import PushMockCore
import PushMockInspection
import PushMockStore
import Synchronization

/// The server's state as the inspection port reaches it: the device registry, the fault plan,
/// the simulated activities and channels, reset and metrics, behind the protocols
/// ``PushMockInspection`` declares. Bodies are read in the configuration file's formats.
struct ServerState: DeviceDirectory, FaultDirectory, ActivityBoard, ServerControl {
    let store: any DeliveryStore
    let registry: DeviceRegistry
    let plan: FaultPlan
    let liveActivities: LiveActivities
    let broadcastChannels: BroadcastChannelStore
    let subscriptions: TopicSubscriptions
    let accessTokens: AccessTokenStore
    let apns: APNSEndpoint
    let metricsRegistry: ServerMetrics
    let configuration: PushMockConfiguration

    // MARK: DeviceDirectory

    func devices() -> [String: DeviceRecord] { registry.all }

    func device(_ token: String) -> DeviceRecord? { registry.record(for: token) }

    func setDevice(_ token: String, json body: [UInt8]) throws(InspectionError) -> DeviceRecord {
        let record: DeviceRecord
        do {
            var object = try ConfigObject(file: "request body", path: "", value: Self.parse(body))
            record = try PushMockConfiguration.device(&object, now: configuration.clock.nowMilliseconds)
        } catch let error as InspectionError {
            throw error
        } catch {
            throw InspectionError.badRequest("\(error)")
        }
        registry.set(record, for: token)
        saveDevices()
        return record
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

    func addFault(json body: [UInt8]) throws(InspectionError) -> FaultRule {
        let rule: FaultRule
        do {
            rule = try PushMockConfiguration.fault(try ConfigObject(file: "request body", path: "", value: Self.parse(body)), index: plan.rules.count)
        } catch let error as InspectionError {
            throw error
        } catch {
            throw InspectionError.badRequest("\(error)")
        }
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

    static let devicesKey = "devices"
    static let faultsKey = "faults"
    /// The OAuth tokens' generation: a reset starts a new one, revoking every token before it.
    static let tokenGenerationKey = "oauth-generation"


    /// The devices as set through the API, for the next start.
    func saveDevices() {
        guard let archive = store as? any StateArchive, let data = try? JSONEncoder().encode(registry.all) else { return }
        archive.archive(Self.devicesKey, Array(data))
    }

    /// The faults as set through the API (with what a `count` fault had left then), for the next start.
    func saveFaults() {
        Self.saveFaults(plan, to: store)
    }

    /// Saves `plan`'s rules in `store`, if it keeps state: after a change through the API, and after
    /// a `count` fault fires (so that what it has left lasts across restarts and reaches the fleet).
    static func saveFaults(_ plan: FaultPlan, to store: any DeliveryStore) {
        guard let archive = store as? any StateArchive, let data = try? JSONEncoder().encode(plan.rules) else { return }
        archive.archive(faultsKey, Array(data))
    }

    /// A fleet's `count` faults that the shared counter found spent: one key each, so that telling
    /// the others never overwrites a fault list another instance just changed.
    static let spentPrefix = "fault-spent:"

    /// Tells the fleet (and the next start) that the `count` fault `fleetKey` is spent.
    static func announceSpent(_ fleetKey: String, to store: any DeliveryStore) {
        (store as? any StateArchive)?.archive(spentPrefix + fleetKey, [1])
    }

    /// Devices, faults, simulated activities and broadcast channels as the last run left them
    /// (devices and faults in place of the configuration's); with a store a fleet shares, also as
    /// other instances change them from now on.
    static func restore(
        from store: any DeliveryStore, registry: DeviceRegistry, plan: FaultPlan, activities: LiveActivities, channels: BroadcastChannelStore,
        subscriptions: TopicSubscriptions, accessTokens: AccessTokenStore, seed: UInt64, configuredTypes: [String: ActivityTypeDeclaration]
    ) throws {
        guard let archive = store as? any StateArchive else { return }
        if let bytes = try archive.archived(tokenGenerationKey), let generation = UInt64(String(decoding: bytes, as: UTF8.self)) {
            accessTokens.adopt(generation: generation)
        }
        for key in [devicesKey, faultsKey] {
            if let bytes = try archive.archived(key) { try apply(key, bytes, registry: registry, plan: plan, seed: seed) }
        }
        for key in try archive.archived(prefix: spentPrefix).keys { plan.removeSpent(fleetKey: String(key.dropFirst(spentPrefix.count))) }
        if let bytes = try archive.archived(BroadcastChannelStore.key) { try channels.apply(bytes) }
        // Types first: a restored activity is bound to its type.
        try ActivityTypeArchive.restore(activities.types, configured: configuredTypes, from: archive)
        try activities.restore(from: archive)
        try TopicArchive.restore(subscriptions, from: archive)
        if let shared = archive as? any SharedStateArchive {
            shared.observeState { key, bytes in
                if key.hasPrefix(ActivityLedger.headPrefix) || key.hasPrefix(ActivityLedger.entryPrefix) {
                    activities.apply(key: key, bytes)
                } else if key.hasPrefix(spentPrefix) {
                    if !bytes.isEmpty { plan.removeSpent(fleetKey: String(key.dropFirst(spentPrefix.count))) }
                } else if key.hasPrefix(ActivityTypeArchive.keyPrefix) {
                    try? ActivityTypeArchive.apply(key: key, bytes, to: activities.types, configured: configuredTypes)
                } else if key.hasPrefix(TopicArchive.keyPrefix) {
                    try? TopicArchive.apply(key: key, bytes, to: subscriptions)
                } else if key == BroadcastChannelStore.key {
                    try? channels.apply(bytes)
                } else if key == tokenGenerationKey, let generation = UInt64(String(decoding: bytes, as: UTF8.self)) {
                    accessTokens.adopt(generation: generation)
                } else {
                    try? apply(key, bytes, registry: registry, plan: plan, seed: seed)
                }
            }
        }
    }

    /// A snapshot of devices or faults, in place of what is set now.
    private static func apply(_ key: String, _ bytes: [UInt8], registry: DeviceRegistry, plan: FaultPlan, seed: UInt64) throws {
        guard !bytes.isEmpty else { return }
        switch key {
        case devicesKey:
            let devices = try JSONDecoder().decode([String: DeviceRecord].self, from: Data(bytes))
            for (token, _) in registry.all where devices[token] == nil { registry.remove(token) }
            for (token, record) in devices { registry.set(record, for: token) }
        case faultsKey:
            plan.reset(rules: try JSONDecoder().decode([FaultRule].self, from: Data(bytes)), seed: seed)
        default:
            break
        }
    }

    private static func parse(_ body: [UInt8]) throws(InspectionError) -> JSONValue {
        guard let json = JSONValue.parse(body) else { throw InspectionError.badRequest("the body is not valid JSON") }
        return json
    }

    // MARK: ActivityBoard

    func activities() -> [SimulatedActivity] { liveActivities.all }

    func activity(_ key: String) -> SimulatedActivity? { liveActivities.activity(key) }

    func channels() -> [BroadcastChannel] { broadcastChannels.all }

    func state(of activity: SimulatedActivity) -> SimulatedActivity.State {
        activity.state(at: configuration.clock.now, limits: liveActivities.limits)
    }

    func activityTypes() -> [String: ActivityTypeRegistry.Entry] { liveActivities.types.all }

    func declareActivityType(_ name: String, json body: [UInt8]) throws(InspectionError) -> ActivityTypeDeclaration {
        guard ActivityTypeDeclaration.isTypeName(name) else {
            throw InspectionError.badRequest("activity type names are Swift type names (the attributes-type of a start): a capital letter, then letters, digits or _; got \(name)")
        }
        let declaration: ActivityTypeDeclaration
        do {
            declaration = try PushMockConfiguration.activityType(name, Self.parse(body), file: "request body", path: "")
        } catch let error as InspectionError {
            throw error
        } catch {
            throw InspectionError.badRequest("\(error)")
        }
        liveActivities.types.declare(name, .declared(declaration))
        ActivityTypeArchive.save(name, body: body, in: store as? any StateArchive)
        return declaration
    }

    func declareActivityTypes(swiftSource text: String, file: String) throws(InspectionError)
        -> (types: [(name: String, declaration: ActivityTypeDeclaration)], warnings: [String])
    {
        guard let reader = configuration.swiftSourceReader else {
            throw InspectionError(
                501,
                "this server does not read Swift source (the pushmock executable does; PushMockTesting leaves the parser out): declare each type in the JSON form with PUT /api/v1/activity-types/{name}"
            )
        }
        let read = reader(file, text)
        guard !read.types.isEmpty else {
            let warnings = read.warnings.isEmpty ? "" : " (\(read.warnings.joined(separator: "; ")))"
            throw InspectionError.badRequest("no type in the body conforms to ActivityAttributes\(warnings)")
        }
        for (name, declaration) in read.types {
            liveActivities.types.declare(name, .declared(declaration))
            ActivityTypeArchive.save(name, body: (try? JSONEncoder().encode(declaration.source)).map(Array.init), in: store as? any StateArchive)
        }
        return (read.types, read.warnings)
    }

    func removeActivityType(_ name: String) -> Bool {
        guard liveActivities.types.remove(name) else { return false }
        // Saved as removed, for the next start and the fleet (a configured type stays removed
        // until a reset).
        ActivityTypeArchive.save(name, body: ActivityTypeArchive.removed, in: store as? any StateArchive)
        return true
    }

    // MARK: ServerControl

    /// Deliveries cleared; faults and devices as configured; simulated activities, channels, topic
    /// subscriptions and access tokens forgotten; open connections' APNs token bindings started over.
    func reset() async throws {
        try await store.clear()
        // The configured faults count from the start again, on every instance of a fleet.
        try await (store as? any FleetFaultCounter)?.forgetFires()
        if let archive = store as? any StateArchive {
            for key in try archive.archived(prefix: Self.spentPrefix).keys { archive.archive(key, []) }
        }
        plan.reset(rules: configuration.faults, seed: configuration.faultSeed)
        for (token, _) in registry.all {
            registry.remove(token)
        }
        for (token, record) in configuration.apns.devices {
            registry.set(record, for: token)
        }
        let generation = accessTokens.removeAll()
        (store as? any StateArchive)?.archive(Self.tokenGenerationKey, Array(String(generation).utf8))
        liveActivities.removeAll()
        ActivityTypeArchive.reset(liveActivities.types, configured: configuration.startingActivityTypes, in: store as? any StateArchive)
        liveActivities.types.reset(to: configuration.startingActivityTypes)
        broadcastChannels.removeAll()
        subscriptions.removeAll()
        apns.bindingGeneration.add(1, ordering: .relaxed)
        saveDevices()
        saveFaults()
    }

    func metrics() async -> [UInt8] {
        metricsRegistry.render(await store.statistics())
    }

    func issueAccessToken(clientEmail: String, projectID: String, scope: String) -> (token: String, expiresIn: Int64)? {
        let lifetime = configuration.fcm.accessTokenLifetime.components.seconds
        let token = accessTokens.issue(.init(clientEmail: clientEmail, projectID: projectID, scope: scope, expiresAt: configuration.clock.nowSeconds &+ lifetime))
        return (token, lifetime)
    }
}
