public import PushMockCore

/// What the simulated devices hold, for Swift tests and the CLI.
extension PushMockServer {
    /// The simulated Live Activity with push token (or id) `token`, with its timeline.
    public func activity(_ token: String) -> SimulatedActivity? {
        activities.activity(token)
    }

    /// Every simulated Live Activity.
    public var liveActivities: [SimulatedActivity] { activities.all }

    /// Every broadcast channel.
    public var broadcastChannels: [BroadcastChannel] { channels.all }

    /// Declared `ActivityAttributes` types (the configuration's, the API's, and those registered
    /// from Swift tests).
    public var activityTypes: ActivityTypeRegistry { activities.types }

    /// The simulated devices' limits (for ``SimulatedActivity/state(at:limits:)``).
    public var liveActivityLimits: LiveActivityDevice.Limits { activities.limits }
}
