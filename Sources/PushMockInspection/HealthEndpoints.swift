/// A transport-neutral HTTP answer of the inspection layer (the server adapts it to the wire).
public struct InspectionResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// The content type of `body`.
    public var contentType: String
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, contentType: String = "application/json", body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    /// A JSON response from a UTF-8 string.
    public static func json(_ status: Int, _ json: String) -> InspectionResponse {
        InspectionResponse(status: status, body: Array(json.utf8))
    }
}

/// `/livez` and `/readyz`: liveness (the process serves requests) and readiness (every listener is
/// bound and the configuration loaded).
public enum HealthEndpoints {
    /// Answers `GET /livez`.
    public static func livez() -> InspectionResponse {
        .json(200, #"{"status":"ok"}"#)
    }

    /// Answers `GET /readyz`.
    public static func readyz(ready: Bool) -> InspectionResponse {
        ready ? .json(200, #"{"status":"ready"}"#) : .json(503, #"{"status":"starting"}"#)
    }
}
