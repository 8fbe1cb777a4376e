import Foundation
import PushMockCore
import PushMockStore

/// FCM topic subscriptions in a store that keeps state: one key per subscription
/// (`topic:<project>/<topic>/<token>` → when it was subscribed, in ms, as decimal text), so that a
/// batch of 1 000 tokens saves 1 000 small keys however many the topic has (one snapshot per
/// topic made 20 batches into a topic of 20 000 tokens write 135 MB); an empty value deletes the
/// subscription. A fleet's other instances apply each key as it is saved.
///
/// A store written before this layout holds one snapshot per topic (`topic:<project>/<topic>` →
/// `{"<token>": <ms>}`): it is read, and rewritten as keys, at start.
enum TopicArchive {
    static let keyPrefix = StateKey.Prefix.topic

    /// Subscriptions that save every change in `archive` (if any), in the order of the changes.
    static func subscriptions(archive: (any StateArchive)?) -> TopicSubscriptions {
        guard let archive else { return TopicSubscriptions() }
        return TopicSubscriptions { project, topic, changes in
            for (token, subscribedAt) in changes {
                archive.archive(key(project: project, topic: topic, token: token), subscribedAt.map { Array(String($0).utf8) } ?? [])
            }
        }
    }

    static func key(project: String, topic: String, token: String) -> String {
        StateKey.topic(project + "/" + topic + "/" + token).key
    }

    /// Every subscription the store kept; a topic kept whole (the layout before) is read first,
    /// then the keys, and it is rewritten as keys.
    static func restore(_ subscriptions: TopicSubscriptions, from archive: any StateArchive) throws {
        let kept = try archive.archived(prefix: keyPrefix)
        let wholes = kept.filter { parse($0.key).map { $0.token == nil } ?? false }
        for (key, bytes) in wholes { try apply(key: key, bytes, to: subscriptions) }
        for (key, bytes) in kept where wholes[key] == nil { try apply(key: key, bytes, to: subscriptions) }
        for (key, bytes) in wholes {
            guard let (project, topic, _) = parse(key), !bytes.isEmpty else { continue }
            let subscribers = try JSONDecoder().decode(TopicSubscriptions.Subscribers.self, from: Data(bytes))
            for (token, at) in subscribers where kept[Self.key(project: project, topic: topic, token: token)] == nil {
                archive.archive(Self.key(project: project, topic: topic, token: token), Array(String(at).utf8))
            }
            archive.archive(key, [])
        }
    }

    /// A key's project, topic and token (nil: a topic kept whole).
    private static func parse(_ key: String) -> (project: String, topic: String, token: String?)? {
        let name = key.dropFirst(keyPrefix.count)
        guard let slash = name.firstIndex(of: "/") else { return nil }
        let project = String(name[..<slash])
        let rest = name[name.index(after: slash)...]
        guard let second = rest.firstIndex(of: "/") else { return (project, String(rest), nil) }
        return (project, String(rest[..<second]), String(rest[rest.index(after: second)...]))
    }

    /// One saved key, in place of what it names now: one subscription (empty: unsubscribed), or a
    /// topic kept whole.
    static func apply(key: String, _ bytes: [UInt8], to subscriptions: TopicSubscriptions) throws {
        guard let (project, topic, token) = parse(key) else { return }
        if let token {
            let at = bytes.isEmpty ? nil : Int64(String(decoding: bytes, as: UTF8.self))
            subscriptions.apply(token: token, topic: topic, project: project, subscribedAt: at)
            return
        }
        let subscribers = bytes.isEmpty ? [:] : try JSONDecoder().decode(TopicSubscriptions.Subscribers.self, from: Data(bytes))
        subscriptions.replace(topic: topic, project: project, with: subscribers)
    }
}
