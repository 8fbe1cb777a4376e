import Foundation
import PushMockCore
import PushMockStore

/// FCM topic subscriptions in a store that keeps state: one snapshot per topic
/// (`topic:<project>/<topic>` → `{"<token>": <subscribed at, ms>}`), so that a batch of 1 000
/// tokens saves one topic, not every subscription; an empty snapshot deletes the topic. A fleet's
/// other instances apply each snapshot as it is saved.
enum TopicArchive {
    static let keyPrefix = "topic:"

    /// Subscriptions that save every change in `archive` (if any), in the order of the changes.
    static func subscriptions(archive: (any StateArchive)?) -> TopicSubscriptions {
        guard let archive else { return TopicSubscriptions() }
        return TopicSubscriptions { project, topic, subscribers in
            let bytes = subscribers.isEmpty ? [] : (try? JSONEncoder().encode(subscribers)).map(Array.init) ?? []
            archive.archive(key(project: project, topic: topic), bytes)
        }
    }

    static func key(project: String, topic: String) -> String {
        keyPrefix + project + "/" + topic
    }

    /// Every topic the store kept.
    static func restore(_ subscriptions: TopicSubscriptions, from archive: any StateArchive) throws {
        for (key, bytes) in try archive.archived(prefix: keyPrefix) {
            try apply(key: key, bytes, to: subscriptions)
        }
    }

    /// One topic's snapshot, in place of its subscribers now.
    static func apply(key: String, _ bytes: [UInt8], to subscriptions: TopicSubscriptions) throws {
        let name = key.dropFirst(keyPrefix.count)
        guard let slash = name.firstIndex(of: "/") else { return }
        let subscribers = bytes.isEmpty ? [:] : try JSONDecoder().decode(TopicSubscriptions.Subscribers.self, from: Data(bytes))
        subscriptions.replace(topic: String(name[name.index(after: slash)...]), project: String(name[..<slash]), with: subscribers)
    }
}
