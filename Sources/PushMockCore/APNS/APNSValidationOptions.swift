/// The choices PushMock makes where Apple's behaviour is undocumented (reference §14), and the
/// limits it enforces. Every one is configurable.
public struct APNSValidationOptions: Sendable, Hashable {
    /// How long a provider token is valid after `iat` (Apple: one hour).
    public var tokenLifetime: Duration = .hours(1) { didSet { tokenLifetimeSeconds = tokenLifetime.wholeSeconds } }
    /// How long a connection keeps a token before it may switch to a new one (Apple: 20 minutes).
    public var tokenRefreshInterval: Duration = .seconds(1200)
    /// How far in the future `iat` may be before the token is invalid (§14 Q5; default one hour).
    public var futureIssuedAtTolerance: Duration = .hours(1) { didSet { futureIssuedAtSeconds = futureIssuedAtTolerance.wholeSeconds } }
    /// `tokenLifetime` and `futureIssuedAtTolerance` in whole seconds, kept beside them: every push
    /// compares its token's age with both, and `Duration.components` divides 128 bits (about 190
    /// instructions each).
    public private(set) var tokenLifetimeSeconds: Int64 = 3600
    public private(set) var futureIssuedAtSeconds: Int64 = 3600
    /// Reject `background` pushes at priority 10 with `BadPriority` (Apple calls it an error; §14 Q2).
    public var rejectBackgroundPriority10 = true
    /// Reject a push type whose topic suffix does not match (`liveactivity` to a bare bundle id…)
    /// with `BadTopic` (§14 Q2).
    public var rejectTopicPushTypeMismatch = true
    /// Reject a body that is not a JSON object with 400 `BadPayload` (§14 Q1).
    public var rejectNonJSONBody = true
    /// Live Activity payload rules: profile and freshness window.
    public var liveActivity = LiveActivityOptions()

    /// The defaults described above.
    public init() {}
}
