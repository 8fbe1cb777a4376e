import Synchronization

/// FCM topic subscriptions per project, as the Instance ID service (`iid.googleapis.com`) and
/// FCM's `registrations/{token}/topicSubscriptions` keep them: which registration tokens a topic
/// send reaches (its fan-out), and which topics a token is subscribed to.
///
/// ```swift
/// let subscriptions = TopicSubscriptions()
/// let results = subscriptions.subscribe(["tokenA"], to: "news", project: "demo", now: 1_700_000_000_000)
/// subscriptions.subscribers(of: "news", project: "demo")            // ["tokenA"]
/// try subscriptions.fanOut(condition: "'news' in topics", project: "demo")
/// ```
public final class TopicSubscriptions: Sendable {
    /// Google's limit on the topics one app instance is subscribed to (fcm.md §10).
    public static let maxTopicsPerToken = 2000
    /// Google's limit on the registration tokens of one batch request (fcm.md §10).
    public static let maxTokensPerRequest = 1000

    /// What happened to one token of a batch request, with Instance ID's per-token error codes.
    public enum TokenResult: Sendable, Hashable {
        case done
        /// `TOO_MANY_TOPICS`: the token already has ``TopicSubscriptions/maxTopicsPerToken`` topics.
        case tooManyTopics
        /// `NOT_FOUND`: the token is unregistered or expired (the device registry says so).
        case notFound
        /// `INVALID_ARGUMENT`: the token is not a registration token.
        case invalidArgument
        /// `INVALID_ARGUMENT`: the token belongs to another project (Instance ID: "not valid for the
        /// Sender ID"; FCM v1: `SENDER_ID_MISMATCH`).
        case senderMismatch

        /// The `error` of this result in `{"results":[…]}`, `nil` for success.
        public var errorCode: String? {
            switch self {
            case .done: nil
            case .tooManyTopics: "TOO_MANY_TOPICS"
            case .notFound: "NOT_FOUND"
            case .invalidArgument, .senderMismatch: "INVALID_ARGUMENT"
            }
        }
    }

    /// One topic's subscribers: token → when it was subscribed (milliseconds since the epoch).
    public typealias Subscribers = [String: Int64]

    private struct Key: Hashable {
        var project: String
        var topic: String
    }

    private struct State {
        var topics: [Key: Subscribers] = [:]
        /// project → token → its topics.
        var tokens: [String: [String: Set<String>]] = [:]

        mutating func set(_ key: Key, _ subscribers: Subscribers) {
            let previous = topics[key] ?? [:]
            for token in previous.keys where subscribers[token] == nil {
                tokens[key.project, default: [:]][token]?.remove(key.topic)
                if tokens[key.project]?[token]?.isEmpty == true { tokens[key.project]?[token] = nil }
            }
            for token in subscribers.keys where previous[token] == nil {
                tokens[key.project, default: [:]][token, default: []].insert(key.topic)
            }
            topics[key] = subscribers.isEmpty ? nil : subscribers
        }

        /// One token's subscription to one topic, changed in place (nil: unsubscribed).
        mutating func set(_ key: Key, token: String, subscribedAt: Int64?) {
            if let subscribedAt {
                if topics[key, default: [:]].updateValue(subscribedAt, forKey: token) == nil {
                    tokens[key.project, default: [:]][token, default: []].insert(key.topic)
                }
            } else if topics[key]?.removeValue(forKey: token) != nil {
                tokens[key.project]?[token]?.remove(key.topic)
                if tokens[key.project]?[token]?.isEmpty == true { tokens[key.project]?[token] = nil }
                if topics[key]?.isEmpty == true { topics[key] = nil }
            }
        }
    }

    /// What changed in one topic: each token's subscription time now (nil: unsubscribed).
    public typealias Changes = [(token: String, subscribedAt: Int64?)]

    private let state = Mutex(State())
    private let changed: (@Sendable (_ project: String, _ topic: String, _ changes: Changes) -> Void)?

    /// Creates an empty set of subscriptions; `changed` is told what changed in a topic (only the
    /// tokens subscribed or unsubscribed, so that saving a batch costs the batch, not the topic)
    /// after ``subscribe(_:to:project:now:check:)``, ``unsubscribe(_:from:project:check:)``,
    /// ``remove(token:)`` or ``removeAll()``, under the lock, so in the order of the changes.
    public init(changed: (@Sendable (_ project: String, _ topic: String, _ changes: Changes) -> Void)? = nil) {
        self.changed = changed
    }

    /// Subscribes `tokens` to `topic` in `project`; `check` judges each token first (the device
    /// registry: unregistered, another project). Returns one result per token, in order, and the
    /// topic's subscribers afterwards (to save). With `commit` false nothing changes: the results
    /// and subscribers are what subscribing would come to.
    public func subscribe(
        _ tokens: [String], to topic: String, project: String, now: Int64, commit: Bool = true,
        check: (String) -> TokenResult = { _ in .done }
    ) -> (results: [TokenResult], subscribers: Subscribers) {
        state.withLock { state in
            let key = Key(project: project, topic: topic)
            var subscribers = state.topics[key] ?? [:]
            var results: [TokenResult] = []
            results.reserveCapacity(tokens.count)
            var changes: Changes = []
            for token in tokens {
                var result = check(token)
                if result == .done, subscribers[token] == nil {
                    // (A token joins this one topic at most once a call: its count of topics is
                    // the same before and after the others', so a dry run needs no draft of it.)
                    if (state.tokens[project]?[token]?.count ?? 0) >= Self.maxTopicsPerToken {
                        result = .tooManyTopics
                    } else {
                        subscribers[token] = now
                        if commit { state.tokens[project, default: [:]][token, default: []].insert(topic) }
                        changes.append((token, now))
                    }
                }
                results.append(result)
            }
            if commit {
                state.topics[key] = subscribers.isEmpty ? nil : subscribers
                if !changes.isEmpty { changed?(project, topic, changes) }
            }
            return (results, subscribers)
        }
    }

    /// Unsubscribes `tokens` from `topic` in `project` (a token that was not subscribed is a
    /// success, as Instance ID answers it). Returns one result per token and the topic's subscribers
    /// afterwards. With `commit` false nothing changes.
    public func unsubscribe(
        _ tokens: [String], from topic: String, project: String, commit: Bool = true, check: (String) -> TokenResult = { _ in .done }
    ) -> (results: [TokenResult], subscribers: Subscribers) {
        state.withLock { state in
            let key = Key(project: project, topic: topic)
            var subscribers = state.topics[key] ?? [:]
            var changes: Changes = []
            let results = tokens.map { token -> TokenResult in
                let result = check(token)
                if result == .done, subscribers.removeValue(forKey: token) != nil { changes.append((token, nil)) }
                return result
            }
            if commit {
                state.set(key, subscribers)
                if !changes.isEmpty { changed?(project, topic, changes) }
            }
            return (results, subscribers)
        }
    }

    /// Whether `token` is subscribed to `topic` in `project`.
    public func isSubscribed(_ token: String, to topic: String, project: String) -> Bool {
        state.withLock { $0.topics[Key(project: project, topic: topic)]?[token] != nil }
    }

    /// The tokens subscribed to `topic` in `project`, sorted.
    public func subscribers(of topic: String, project: String) -> [String] {
        state.withLock { ($0.topics[Key(project: project, topic: topic)] ?? [:]).keys.sorted() }
    }

    /// The tokens a send to `condition` in `project` reaches, sorted: every token with at least one
    /// subscription in the project whose topics satisfy it. (A token with no subscription at all is
    /// unknown to PushMock, so a condition like `!('a' in topics)` reaches only known tokens.)
    public func fanOut(condition: String, project: String) throws -> [String] {
        let tokens = state.withLock { $0.tokens[project] ?? [:] }
        var reached: [String] = []
        for (token, topics) in tokens where try FCMCondition.matches(condition, subscribed: topics) {
            reached.append(token)
        }
        return reached.sorted()
    }

    /// The topics of `token` in every project: project → topic → when it was subscribed.
    public func topics(of token: String) -> [String: Subscribers] {
        state.withLock { state in
            var result: [String: Subscribers] = [:]
            for (project, tokens) in state.tokens {
                guard let topics = tokens[token] else { continue }
                for topic in topics {
                    result[project, default: [:]][topic] = state.topics[Key(project: project, topic: topic)]?[token]
                }
            }
            return result
        }
    }

    /// Every token with at least one subscription.
    public var tokens: Set<String> {
        state.withLock { Set($0.tokens.values.flatMap(\.keys)) }
    }

    /// Every topic with subscribers: (project, topic, subscribers).
    public var all: [(project: String, topic: String, subscribers: Subscribers)] {
        state.withLock { $0.topics.map { ($0.key.project, $0.key.topic, $0.value) } }
    }

    /// Replaces the subscribers of one topic (a snapshot from storage or another instance).
    public func replace(topic: String, project: String, with subscribers: Subscribers) {
        state.withLock { $0.set(Key(project: project, topic: topic), subscribers) }
    }

    /// Sets one token's subscription to one topic (from storage or another instance; nil:
    /// unsubscribed), without telling `changed`.
    public func apply(token: String, topic: String, project: String, subscribedAt: Int64?) {
        state.withLock { $0.set(Key(project: project, topic: topic), token: token, subscribedAt: subscribedAt) }
    }

    /// Unsubscribes `token` from every topic of every project; returns how many subscriptions it had.
    @discardableResult
    public func remove(token: String) -> Int {
        state.withLock { state in
            var removed = 0
            for (project, tokens) in state.tokens {
                for topic in tokens[token] ?? [] {
                    let key = Key(project: project, topic: topic)
                    var subscribers = state.topics[key] ?? [:]
                    subscribers[token] = nil
                    state.set(key, subscribers)
                    changed?(project, topic, [(token, nil)])
                    removed += 1
                }
            }
            return removed
        }
    }

    /// Forgets every subscription.
    public func removeAll() {
        state.withLock { state in
            for (key, subscribers) in state.topics { changed?(key.project, key.topic, subscribers.keys.map { ($0, nil) }) }
            state = State()
        }
    }
}
