import PushMockCore
import PushMockTransport

/// A refused push in each service's own body: Apple's APNs-shaped `{"reason": …}` (always
/// `BadJwtToken` for VAPID, as Apple answers it), Mozilla autopush's
/// `{"code", "errno", "error", "message", "more_info"}` (its documented errno per rule), and
/// Google's plain-text sentence (Google documents no shape for its Web Push endpoint: PushMock's
/// choice, see docs/web-push.md).
enum WebPushAnswers {
    static func refusal(_ refusal: WebPushEndpoint.Refusal, service: WebPushSubscription.Service) -> HTTPServerResponse {
        switch service {
        case .apple:
            let reason = appleReason(refusal)
            return HTTPServerResponse(
                status: refusal.status, headers: [("content-type", "application/json")],
                body: Array(#"{"reason":"\#(JSONText.escape(reason))"}"#.utf8))
        case .mozilla:
            let (status, errno) = mozilla(refusal)
            let body =
                #"{"code":\#(status),"errno":\#(errno),"error":"\#(phrase(status))","message":"\#(JSONText.escape(refusal.explanation))","more_info":"http://autopush.readthedocs.io/en/latest/http.html#error-codes"}"#
            return HTTPServerResponse(status: status, headers: [("content-type", "application/json")], body: Array(body.utf8))
        case .google:
            return HTTPServerResponse(
                status: refusal.status, headers: [("content-type", "text/plain; charset=utf-8")], body: Array((refusal.explanation + "\n").utf8))
        }
    }

    /// Apple's reason: APNs' names where one fits, `BadJwtToken` for every VAPID rule.
    static func appleReason(_ refusal: WebPushEndpoint.Refusal) -> String {
        switch refusal.rule {
        case "UnknownSubscription": "BadDeviceToken"
        case "ExpiredSubscription": "Unregistered"
        case "MissingTTL", "InvalidTTL": "BadExpirationDate"
        case "InvalidUrgency": "BadPriority"
        case "InvalidTopic": "BadCollapseId"
        case "PayloadTooLarge": "PayloadTooLarge"
        case "MethodNotAllowed": "MethodNotAllowed"
        case "UnsupportedEncoding", "MissingCryptoKeys": "BadRequest"
        default: refusal.status == 403 ? "BadJwtToken" : refusal.rule
        }
    }

    /// Mozilla's status and errno (autopush's error codes page): VAPID is 401 errno 109.
    static func mozilla(_ refusal: WebPushEndpoint.Refusal) -> (Int, Int) {
        switch refusal.rule {
        case "UnknownSubscription": (404, 102)
        case "ExpiredSubscription": (410, 106)
        case "MissingTTL": (400, 111)
        case "InvalidTTL": (400, 112)
        case "InvalidTopic": (400, 113)
        case "InvalidUrgency", "UnsupportedEncoding": (400, 110)
        case "MissingCryptoKeys": (400, 101)
        case "PayloadTooLarge": (413, 104)
        case "MethodNotAllowed": (405, 999)
        default: refusal.status == 403 ? (401, 109) : (refusal.status, 999)
        }
    }

    static func phrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 410: "Gone"
        case 413: "Payload Too Large"
        case 429: "Too Many Requests"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }
}
