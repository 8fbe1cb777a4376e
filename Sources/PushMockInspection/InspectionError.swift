/// Every error the inspection port answers: its status, its message and any header it needs, as
/// `{"error":"…"}` (DESIGN.md: one error struct per module).
public struct InspectionError: Error, Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// What went wrong and what to do, for people.
    public var message: String
    /// Header fields the answer carries (`allow` with a 405, `www-authenticate` with a 401).
    public var headers: [InspectionResponse.Header]

    /// Creates an error.
    public init(_ status: Int, _ message: String, headers: [InspectionResponse.Header] = []) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    /// A 400 naming what is wrong with the request.
    public static func badRequest(_ message: String) -> InspectionError { InspectionError(400, message) }

    /// A 404.
    public static func notFound(_ message: String) -> InspectionError { InspectionError(404, message) }

    /// The answer to an answer that could not be encoded.
    public static let encodingFailed = InspectionError(500, "could not encode the response")

    /// The store failed (a database that is down); the push port keeps answering.
    public static func store(_ error: any Error) -> InspectionError {
        InspectionError(503, "the delivery store cannot answer now: \(error)")
    }

    /// The error's body.
    public struct Body: Codable, Sendable {
        public var error: String
    }

    /// The JSON answer.
    public var response: InspectionResponse {
        let body = InspectionResponse.encoded(Body(error: message)) ?? Array(#"{"error":"could not encode the response"}"#.utf8)
        return InspectionResponse(status: status, headers: headers, body: body)
    }
}
