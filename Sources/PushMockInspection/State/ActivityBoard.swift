public import PushMockCore

/// The simulated devices' Live Activities and the broadcast channels (`/api/v1/activities`,
/// `/api/v1/channels`).
public protocol ActivityBoard: Sendable {
    /// Every simulated activity.
    func activities() -> [SimulatedActivity]
    /// The activity with push token (or id) `key`.
    func activity(_ key: String) -> SimulatedActivity?
    /// Every broadcast channel.
    func channels() -> [BroadcastChannel]
    /// The state of `activity` now (the board's clock and the devices' limits).
    func state(of activity: SimulatedActivity) -> SimulatedActivity.State
}
