import Foundation
import PushMockCore
import PushMockStore
import PushMockTestSupport
import Synchronization
import Testing

@testable import PushMockServer

/// Topic subscriptions are saved one key per subscription: a batch costs the batch, not the topic.
@Suite("FCM topic subscriptions in a store that keeps state")
struct TopicArchiveTests {
    @Test("20 batches of 1 000 tokens into one topic write each subscription once (linear, not one whole topic per batch), and restore whole")
    func batchesAreLinear() throws {
        let archive = CountingArchive()
        let subscriptions = TopicArchive.subscriptions(archive: archive)
        let token = { (index: Int) in "fcm-" + String(index) + String(repeating: "t", count: 150) }
        for batch in 0..<20 {
            let tokens = (0..<1_000).map { token(batch * 1_000 + $0) }
            let (results, _) = subscriptions.subscribe(tokens, to: "news", project: "demo", now: 1_700_000_000_000 + Int64(batch))
            #expect(results.allSatisfy { $0 == .done })
        }
        let written: Int = archive.written.load(ordering: .relaxed)
        // Each subscription's key and time: about 190 bytes; one snapshot per batch wrote 20 times as much in all.
        #expect(written < 20_000 * 250, "\(written) bytes written for 20 000 subscriptions")
        let restored = TopicSubscriptions()
        try TopicArchive.restore(restored, from: archive)
        #expect(restored.subscribers(of: "news", project: "demo").count == 20_000)
        #expect(restored.topics(of: token(19_999))["demo"]?["news"] == 1_700_000_000_019)

        // Unsubscribing, forgetting a token and forgetting all delete their keys.
        _ = subscriptions.unsubscribe((0..<500).map(token), from: "news", project: "demo")
        #expect(try archive.archived(prefix: TopicArchive.keyPrefix).count == 19_500)
        subscriptions.remove(token: token(600))
        #expect(try archive.archived(prefix: TopicArchive.keyPrefix).count == 19_499)
        subscriptions.removeAll()
        #expect(try archive.archived(prefix: TopicArchive.keyPrefix).isEmpty)
    }

    @Test(
        "a topic kept whole by an older PushMock is read at start and rewritten as one key per subscription; a fleet's key applies one subscription")
    func olderLayout() throws {
        let archive = CountingArchive()
        archive.archive("topic:demo/old", Array(#"{"a":1,"b":2}"#.utf8))
        archive.archive("topic:demo/old/c", Array("3".utf8))
        let subscriptions = TopicSubscriptions()
        try TopicArchive.restore(subscriptions, from: archive)
        #expect(subscriptions.subscribers(of: "old", project: "demo") == ["a", "b", "c"])
        let keys = try archive.archived(prefix: TopicArchive.keyPrefix)
        #expect(Set(keys.keys) == ["topic:demo/old/a", "topic:demo/old/b", "topic:demo/old/c"])
        #expect(keys["topic:demo/old/b"] == Array("2".utf8))

        // What another instance saved: one subscription added, one removed; a token may hold a slash.
        try TopicArchive.apply(key: "topic:demo/old/x/y", Array("9".utf8), to: subscriptions)
        try TopicArchive.apply(key: "topic:demo/old/a", [], to: subscriptions)
        #expect(subscriptions.subscribers(of: "old", project: "demo") == ["b", "c", "x/y"])
        #expect(subscriptions.topics(of: "x/y")["demo"]?["old"] == 9)
    }
}
