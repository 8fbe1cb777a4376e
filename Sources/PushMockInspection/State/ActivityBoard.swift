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
    /// What `activity` shows now, and the update waiting for its render (the board's clock).
    func shown(_ activity: SimulatedActivity) -> SimulatedActivity.Shown
    /// The declared activity types by Swift name.
    func activityTypes() -> [String: ActivityTypeRegistry.Entry]
    /// Declares (or replaces) type `name`; 409 when a new type would pass the registry's bound.
    func declareActivityType(_ name: String, _ declaration: ActivityTypeDeclaration) throws(InspectionError)
    /// Declares every `ActivityAttributes` type in Swift source `text` (named `file` in origins
    /// and warnings): the types declared and the reader's warnings.
    func declareActivityTypes(
        swiftSource text: String, file: String
    ) async throws(InspectionError)
        -> (types: [(name: String, declaration: ActivityTypeDeclaration)], warnings: [String])
    /// Forgets type `name`; false when it was not declared.
    func removeActivityType(_ name: String) -> Bool
}

extension InspectionError {
    /// The answer to declarations that would take the registry past `maximumTypes`.
    public static func tooManyActivityTypes(_ maximumTypes: Int, adding: Int) -> InspectionError {
        InspectionError(
            409,
            "PushMock holds at most \(maximumTypes) activity types (--max-activity-types) and this would add \(adding) more; remove some with DELETE /api/v1/activity-types/{name} or raise the bound"
        )
    }
}

extension ActivityBoard {
    /// A board without a Swift source reader answers 501.
    public func declareActivityTypes(
        swiftSource text: String, file: String
    ) async throws(InspectionError)
        -> (types: [(name: String, declaration: ActivityTypeDeclaration)], warnings: [String])
    {
        throw InspectionError(
            501, "this server does not read Swift source: declare each type in the JSON form with PUT /api/v1/activity-types/{name}")
    }
}
