public import PushMockCore

/// What the inspection port asks of the server as a whole.
public protocol ServerControl: Sendable {
    /// `POST /api/v1/reset`: deliveries cleared; devices, faults, activities, channels and access
    /// tokens back to the configuration.
    func reset() async throws
    /// The Prometheus text of `GET /metrics`.
    func metrics() async -> [UInt8]
    /// `GET /api/v1/credentials/fcm-access-token`: an access token for a configured service
    /// account, as `/token` would issue it (nil when the account is not configured).
    func issueAccessToken(clientEmail: String, projectID: String, scope: String) -> (token: String, expiresIn: Int64)?
    /// `GET /api/v1/parity`: how often each upstream agreed with each of PushMock's answers.
    func parityRecords() -> [ParityRecord]
    /// `DELETE /api/v1/parity`: forgets every parity record (the fleet's too); how many there were.
    func clearParity() throws -> Int
    /// `POST /api/v1/check`: `request` judged as the push port would judge it on a new connection,
    /// to `environment` (APNs; nil: the server's default), with the same validators and the
    /// simulated device's current state, but not recorded, no fault fired, no device changed.
    func check(_ request: OutgoingRequest, environment: APNSEnvironment?) async throws -> PushCheck
}

extension ServerControl {
    /// No access tokens to give (a control plane without an OAuth token store).
    public func issueAccessToken(clientEmail: String, projectID: String, scope: String) -> (token: String, expiresIn: Int64)? { nil }
    /// No relay, no parity records.
    public func parityRecords() -> [ParityRecord] { [] }
    public func clearParity() throws -> Int { 0 }
    /// No push port to judge with.
    public func check(_ request: OutgoingRequest, environment: APNSEnvironment?) async throws -> PushCheck {
        throw InspectionError(409, "this inspection port has no push port whose rules could judge the request")
    }
}
