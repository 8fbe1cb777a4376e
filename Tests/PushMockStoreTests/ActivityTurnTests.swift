import PushMockStore
import Synchronization
import Testing

/// A fleet order's turn hands its store what the push changed.
@Suite("ActivityTurn")
struct ActivityTurnTests {
    @Test("a turn made with a one-argument end (an order that never gives a turn up) gets the changes; the rebase is the store's to call")
    func oneArgumentEnd() {
        let ended = Mutex<[[(key: String, value: [UInt8])]]>([])
        let turn = ActivityTurn(snapshots: ["activity:x": [1]]) { changes in ended.withLock { $0.append(changes) } }
        #expect(turn.snapshots == ["activity:x": [1]])
        turn.finish([("activity:x", [2]), ("activity-entry:x/1", [3])]) { _, _ in
            Issue.record("an order that never gives a turn up never rebases")
            return []
        }
        let changes = ended.withLock { $0 }
        #expect(changes.count == 1)
        #expect(changes.first?.map(\.key) == ["activity:x", "activity-entry:x/1"])
        #expect(changes.first?.map(\.value) == [[2], [3]])
    }

    @Test("a turn let go of unfinished (its push dropped before it was answered) ends with no changes; a finished one ends once")
    func droppedTurn() {
        let ended = Mutex<[[(key: String, value: [UInt8])]]>([])
        do {
            _ = ActivityTurn(snapshots: [:]) { changes in ended.withLock { $0.append(changes) } }
        }
        #expect(ended.withLock { $0.map(\.count) } == [0], "ended once, with nothing to write")

        ended.withLock { $0 = [] }
        do {
            let turn = ActivityTurn(snapshots: [:]) { changes in ended.withLock { $0.append(changes) } }
            turn.finish([("activity:x", [2])])
        }
        #expect(ended.withLock { $0.map(\.count) } == [1], "a finished turn is not ended again when it goes")
    }
}
