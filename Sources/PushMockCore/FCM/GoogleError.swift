/// Google's error envelope, `{"error":{"code","message","status","details":[…]}}`, rendered the way
/// Google's front end does: pretty-printed with two spaces and a trailing newline.
public struct GoogleError: Sendable, Hashable, Error {
    /// One entry of `details`.
    public enum Detail: Sendable, Hashable {
        /// `google.firebase.fcm.v1.FcmError {errorCode}`.
        case fcmError(FCMErrorCode)
        /// `google.rpc.BadRequest {fieldViolations:[{field, description}]}`.
        case badRequest([FieldViolation])
        /// `google.rpc.ErrorInfo {reason, domain, metadata}`.
        case errorInfo(reason: String, metadata: [(String, String)])
        /// `google.firebase.fcm.v1.ApnsError {statusCode, reason}`.
        case apnsError(statusCode: Int, reason: String)
        /// `google.rpc.Help {links:[{description, url}]}`.
        case help(description: String, url: String)

        public static func == (lhs: Detail, rhs: Detail) -> Bool {
            switch (lhs, rhs) {
            case (.fcmError(let a), .fcmError(let b)): return a == b
            case (.badRequest(let a), .badRequest(let b)): return a == b
            case (.errorInfo(let a, let m), .errorInfo(let b, let n)): return a == b && m.map { "\($0)=\($1)" } == n.map { "\($0)=\($1)" }
            case (.apnsError(let a, let r), .apnsError(let b, let s)): return a == b && r == s
            case (.help(let a, let u), .help(let b, let v)): return a == b && u == v
            default: return false
            }
        }

        public func hash(into hasher: inout Hasher) {
            switch self {
            case .fcmError(let code): hasher.combine(code)
            case .badRequest(let violations): hasher.combine(violations)
            case .errorInfo(let reason, _): hasher.combine(reason)
            case .apnsError(let status, let reason):
                hasher.combine(status)
                hasher.combine(reason)
            case .help(let description, let url):
                hasher.combine(description)
                hasher.combine(url)
            }
        }
    }

    /// A `BadRequest` field violation.
    public struct FieldViolation: Sendable, Hashable {
        public var field: String
        public var description: String
        public init(field: String, description: String) {
            self.field = field
            self.description = description
        }
    }

    /// The HTTP status (`code`).
    public var code: Int
    /// The human message.
    public var message: String
    /// The canonical status name (`INVALID_ARGUMENT`…).
    public var status: String
    /// The details, in order.
    public var details: [Detail]
    /// PushMock's own reason to record instead of the FcmError code (Live Activity rules).
    public var reason: String?

    public init(code: Int, message: String, status: String, details: [Detail] = []) {
        self.code = code
        self.message = message
        self.status = status
        self.details = details
    }

    /// The FCM error code among the details, if any.
    public var fcmErrorCode: FCMErrorCode? {
        for case .fcmError(let code) in details { return code }
        return nil
    }

    /// The reason this error is recorded under: the FcmError code, else the ErrorInfo reason, else
    /// the status.
    public var recordedReason: String {
        if let reason { return reason }
        if let code = fcmErrorCode { return code.rawValue }
        for case .errorInfo(let reason, _) in details { return reason }
        return status
    }

    /// An INVALID_ARGUMENT with a field violation and, unless `fcmError` is false, an FcmError.
    public static func invalidArgument(_ message: String, field: String? = nil, fcmError: Bool = true) -> GoogleError {
        var details: [Detail] = []
        if let field {
            details.append(.badRequest([FieldViolation(field: field, description: message)]))
        }
        if fcmError {
            details.append(.fcmError(.invalidArgument))
        }
        return GoogleError(code: 400, message: message, status: "INVALID_ARGUMENT", details: details)
    }

    /// The error for an FCM error code with its usual status and message.
    public static func fcm(_ code: FCMErrorCode, message: String? = nil) -> GoogleError {
        GoogleError(code: code.httpStatus, message: message ?? code.defaultMessage, status: code.status, details: [.fcmError(code)])
    }

    /// The JSON text, as Google formats it.
    public var json: String {
        var out = "{\n  \"error\": {\n"
        out += "    \"code\": \(code),\n"
        out += "    \"message\": \"\(JSONText.escape(message))\",\n"
        out += "    \"status\": \"\(status)\""
        if !details.isEmpty {
            out += ",\n    \"details\": [\n"
            out += details.map(Self.render).joined(separator: ",\n")
            out += "\n    ]"
        }
        out += "\n  }\n}\n"
        return out
    }

    private static func render(_ detail: Detail) -> String {
        let indent = "        "
        switch detail {
        case .fcmError(let code):
            return
                "      {\n\(indent)\"@type\": \"type.googleapis.com/google.firebase.fcm.v1.FcmError\",\n\(indent)\"errorCode\": \"\(code.rawValue)\"\n      }"
        case .apnsError(let status, let reason):
            return
                "      {\n\(indent)\"@type\": \"type.googleapis.com/google.firebase.fcm.v1.ApnsError\",\n\(indent)\"statusCode\": \(status),\n\(indent)\"reason\": \"\(JSONText.escape(reason))\"\n      }"
        case .badRequest(let violations):
            let items = violations.map {
                "\(indent)  {\n\(indent)    \"field\": \"\(JSONText.escape($0.field))\",\n\(indent)    \"description\": \"\(JSONText.escape($0.description))\"\n\(indent)  }"
            }.joined(separator: ",\n")
            return
                "      {\n\(indent)\"@type\": \"type.googleapis.com/google.rpc.BadRequest\",\n\(indent)\"fieldViolations\": [\n\(items)\n\(indent)]\n      }"
        case .help(let description, let url):
            return
                "      {\n\(indent)\"@type\": \"type.googleapis.com/google.rpc.Help\",\n\(indent)\"links\": [\n\(indent)  {\n\(indent)    \"description\": \"\(JSONText.escape(description))\",\n\(indent)    \"url\": \"\(JSONText.escape(url))\"\n\(indent)  }\n\(indent)]\n      }"
        case .errorInfo(let reason, let metadata):
            var text =
                "      {\n\(indent)\"@type\": \"type.googleapis.com/google.rpc.ErrorInfo\",\n\(indent)\"reason\": \"\(reason)\",\n\(indent)\"domain\": \"googleapis.com\""
            if !metadata.isEmpty {
                let entries = metadata.map { "\(indent)  \"\(JSONText.escape($0))\": \"\(JSONText.escape($1))\"" }.joined(separator: ",\n")
                text += ",\n\(indent)\"metadata\": {\n\(entries)\n\(indent)}"
            }
            return text + "\n      }"
        }
    }
}
