import Synchronization

/// The declared `ActivityAttributes` types, by Swift name (the `attributes-type` of a start), and
/// which type each started activity has, so that its updates are checked against it too. Shared by
/// the APNs and FCM validators; an undeclared type is not checked.
public final class ActivityTypeRegistry: Sendable {
    /// How a type is checked.
    public enum Entry: Sendable {
        /// By a declaration of its fields.
        case declared(ActivityTypeDeclaration)
        /// By decoding with the app's own types (registered from Swift tests).
        case decodable(DecodableActivityType)
    }

    private struct State {
        var types: [String: Entry] = [:]
        /// Activity push token (lower case) → type name.
        var activities: [String: String] = [:]
    }

    private let state = Mutex(State())
    private let count = Atomic<Int>(0)
    /// How many types ``declare(within:)`` lets the registry hold.
    public let maximumTypes: Int

    /// Creates a registry with `declarations`, with no bound on types declared.
    public convenience init(_ declarations: [String: ActivityTypeDeclaration] = [:]) {
        self.init(declarations, maximumTypes: .max)
    }

    /// Creates a registry with `declarations`; ``declare(within:)`` lets it hold `maximumTypes` in all.
    public init(_ declarations: [String: ActivityTypeDeclaration], maximumTypes: Int) {
        self.maximumTypes = maximumTypes
        reset(to: declarations)
    }

    /// Declares (or replaces) type `name`.
    public func declare(_ name: String, _ entry: Entry) {
        state.withLock { state in
            state.types[name] = entry
            count.store(state.types.count, ordering: .relaxed)
        }
    }

    /// Declares (or replaces) every type of `entries`, or none: false when the new names would take
    /// the registry past ``maximumTypes``.
    public func declare(within entries: [(name: String, entry: Entry)]) -> Bool {
        state.withLock { state in
            let added = Set(entries.map(\.name)).filter { state.types[$0] == nil }.count
            guard added == 0 || state.types.count + added <= maximumTypes else { return false }
            for (name, entry) in entries { state.types[name] = entry }
            count.store(state.types.count, ordering: .relaxed)
            return true
        }
    }

    /// Forgets type `name`; false when it was not declared.
    @discardableResult
    public func remove(_ name: String) -> Bool {
        state.withLock { state in
            defer { count.store(state.types.count, ordering: .relaxed) }
            return state.types.removeValue(forKey: name) != nil
        }
    }

    /// The declared types.
    public var all: [String: Entry] { state.withLock { $0.types } }

    /// Back to `declarations`, with no activity remembered.
    public func reset(to declarations: [String: ActivityTypeDeclaration]) {
        state.withLock { state in
            state.types = declarations.mapValues { .declared($0) }
            state.activities = [:]
            count.store(state.types.count, ordering: .relaxed)
        }
    }

    /// Remembers that the activity with push token `token` was started as `typeName`.
    /// Only a declared type is remembered, and at most ``maxBoundActivities`` activities (past
    /// it, half are forgotten and their updates go unchecked).
    public func bind(activityToken token: String, to typeName: String) {
        guard count.load(ordering: .relaxed) > 0 else { return }
        state.withLock { state in
            guard state.types[typeName] != nil else { return }
            if state.activities.count >= Self.maxBoundActivities {
                for key in state.activities.keys.prefix(Self.maxBoundActivities / 2) { state.activities[key] = nil }
            }
            state.activities[token.lowercased()] = typeName
        }
    }

    /// The most activities whose type is remembered.
    public static let maxBoundActivities = 200_000

    /// What a type check found.
    public struct Finding: Sendable, Hashable {
        /// The type the push was checked against, when declared.
        public var typeName: String?
        /// Why the device could not decode it.
        public var violation: LiveActivityRule?
        /// One line per `Date` field, with the instant the device reads.
        public var diagnostics: [String] = []
        /// `content-state` with dates as the device reads them.
        public var decodedContentState: JSONValue?
    }

    /// Checks `push` (to activity or push-to-start token `token`) against its declared type: the
    /// start's `attributes-type`, or the type its activity was started as. Costs one atomic load
    /// while nothing is declared.
    public func check(_ push: LiveActivityPush, token: String?, now: PushInstant) -> Finding {
        var finding = Finding()
        guard count.load(ordering: .relaxed) > 0 else { return finding }
        let (name, entry) = state.withLock { state -> (String?, Entry?) in
            let name = push.event == "start" ? push.attributesType : token.flatMap { state.activities[$0.lowercased()] }
            return (name, name.flatMap { state.types[$0] })
        }
        guard let name, let entry else { return finding }
        finding.typeName = name
        switch entry {
        case .declared(let declaration):
            if push.event == "start", let attributes = push.attributes {
                if case .failure(let failure) = ActivityTypeCheck.decode(
                    attributes, fields: declaration.attributes, in: declaration, path: "attributes")
                {
                    finding.violation = .attributesUndecodable(failure, type: name, preset: declaration.preset)
                    return finding
                }
            }
            if let contentState = push.contentState {
                switch ActivityTypeCheck.decode(contentState, fields: declaration.contentState, in: declaration, path: "content-state") {
                case .failure(let failure):
                    finding.violation = .contentStateUndecodable(failure, type: name, preset: declaration.preset)
                case .success(let reading):
                    finding.decodedContentState = reading.decoded
                    finding.diagnostics = reading.dates.map { ActivityTypeCheck.diagnostic($0, now: now) }
                }
            }
        case .decodable(let type):
            if push.event == "start", let attributes = push.attributes, let failure = type.attributes(attributes) {
                finding.violation = .attributesUndecodable(failure, type: name)
                return finding
            }
            if let contentState = push.contentState {
                if let failure = type.contentState(contentState) {
                    finding.violation = .contentStateUndecodable(failure, type: name)
                } else {
                    finding.decodedContentState = contentState
                }
            }
        }
        return finding
    }
}

/// A type checked by decoding with the app's own `Decodable` types (``ActivityTypeRegistry/Entry/decodable(_:)``).
public struct DecodableActivityType: Sendable {
    /// Decodes the attributes; the failure, or nil when they decode.
    public var attributes: @Sendable (JSONValue) -> ActivityTypeCheck.Failure?
    /// Decodes a content state; the failure, or nil when it decodes.
    public var contentState: @Sendable (JSONValue) -> ActivityTypeCheck.Failure?

    public init(
        attributes: @escaping @Sendable (JSONValue) -> ActivityTypeCheck.Failure?,
        contentState: @escaping @Sendable (JSONValue) -> ActivityTypeCheck.Failure?
    ) {
        self.attributes = attributes
        self.contentState = contentState
    }
}

extension LiveActivityRule {
    /// `content-state` does not decode into the declared ContentState.
    /// `preset`: the SDK whose preset type it is.
    public static func contentStateUndecodable(_ failure: ActivityTypeCheck.Failure, type: String, preset: String? = nil) -> LiveActivityRule {
        LiveActivityRule(
            "LiveActivityContentStateUndecodable",
            "\(failure) (\(type).ContentState\(presetNote(preset, type)); the device drops the update: \"Unable to decode content state\")"
        )
    }

    /// `attributes` of a start does not decode into the declared attributes type.
    public static func attributesUndecodable(_ failure: ActivityTypeCheck.Failure, type: String, preset: String? = nil) -> LiveActivityRule {
        LiveActivityRule("LiveActivityAttributesUndecodable", "\(failure) (\(type)\(presetNote(preset, type)); the device cannot start the activity)")
    }

    private static func presetNote(_ preset: String?, _ type: String) -> String {
        preset.map { " as the \($0) SDK defines it; declare your own \(type) to replace the preset" } ?? ""
    }

    /// The type-decoding reasons (their explanations name the path).
    public static let typeReasons = ["LiveActivityContentStateUndecodable", "LiveActivityAttributesUndecodable"]
}
