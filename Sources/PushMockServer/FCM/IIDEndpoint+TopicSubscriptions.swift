import PushMockCore
import PushMockTransport

/// FCM v1 `projects/{project}/registrations/{token}/topicSubscriptions`: subscribe with `POST
/// ?topic_name=`, unsubscribe with `DELETE …/{topic}` (`allow_missing=true` takes a missing one).
extension IIDEndpoint {
    func topicSubscription(
        _ request: HTTPServerRequest, _ operation: Operation, now: PushInstant, into result: inout Judgement
    ) throws(GoogleError) {
        let query = Self.query(of: request.path)
        switch operation {
        case .subscribe(let project, let token):
            guard request.method == "POST" else { throw GoogleError(code: 404, message: "Method not found.", status: "NOT_FOUND") }
            guard let topic = query["topic_name"], !topic.isEmpty else {
                throw GoogleError.invalidArgument("topic_name is required", field: "topic_name")
            }
            result.topic = topic
            guard FCMMessageValidator.isTopicName(topic) else {
                throw GoogleError.invalidArgument(
                    "Invalid topic name: topic names match [a-zA-Z0-9-_.~%]{1,900}; got \"\(topic)\"", field: "topic_name")
            }
            if subscriptions.isSubscribed(token, to: topic, project: project) {
                throw GoogleError(code: 409, message: "Requested entity already exists", status: "ALREADY_EXISTS")
            }
            let outcome = change(add: true, [token], topic: topic, project: project, now: now, into: &result)
            try Self.throwing(outcome.results[0], token: token)
            result.body =
                #"{"name":"projects/\#(JSONText.escape(project))/registrations/\#(JSONText.escape(token))/topicSubscriptions/\#(JSONText.escape(topic))"}"#
            result.diagnostics.append("\(topic) has \(outcome.subscribers.count) subscriber\(outcome.subscribers.count == 1 ? "" : "s")")
        case .unsubscribe(let project, let token, let topic):
            guard request.method == "DELETE" else { throw GoogleError(code: 404, message: "Method not found.", status: "NOT_FOUND") }
            result.topic = topic
            guard subscriptions.isSubscribed(token, to: topic, project: project) || query["allow_missing"] == "true" else {
                throw GoogleError(code: 404, message: "Requested entity was not found.", status: "NOT_FOUND")
            }
            let outcome = change(add: false, [token], topic: topic, project: project, now: now, into: &result)
            try Self.throwing(outcome.results[0], token: token)
            result.body = "{}"
        case .batch, .relate, .info:
            break
        }
    }

    fileprivate static func throwing(_ result: TopicSubscriptions.TokenResult, token: String) throws(GoogleError) {
        switch result {
        case .done: return
        case .invalidArgument: throw GoogleError.fcm(.invalidArgument, message: "The registration token is not a valid FCM registration token")
        case .senderMismatch: throw GoogleError.fcm(.senderIDMismatch)
        case .notFound: throw GoogleError.fcm(.unregistered)
        case .tooManyTopics:
            throw GoogleError(
                code: 400,
                message: "The registration token is subscribed to \(TopicSubscriptions.maxTopicsPerToken) topics, the most an app instance can have",
                status: "FAILED_PRECONDITION")
        }
    }

    fileprivate static func query(of path: String) -> [String: String] {
        guard let mark = path.firstIndex(of: "?") else { return [:] }
        var items: [String: String] = [:]
        for pair in path[path.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            items[name] = parts.count > 1 ? decode(parts[1].replacing("+", with: " ")) : ""
        }
        return items
    }
}
