import PushMockPostgres
import PushMockStore
import PushMockTestSupport
import Testing

/// A fleet's pushes to one Live Activity take its turn in the database, one at a time.
@Suite("The PostgreSQL store orders a fleet's Live Activity pushes", .postgres)
struct PostgresActivityTurnTests {
    typealias Changes = [(key: String, value: [UInt8])]

    @Test("a push that outlives its turn is rebased, in a new turn, on what another instance saved meanwhile: never written over it")
    func lateFinish() async throws {
        let location = try await PostgresTestDatabase.create()
        // A gives every turn up as soon as it is read: its pushes always finish late.
        let a = try await PostgresDeliveryStore.connect(location, connectPatience: TestDeadline.hang, turnPatience: .zero)
        let b = try await PostgresDeliveryStore.connect(location, connectPatience: TestDeadline.hang)
        let (head, entry) = ("activity:x", "activity-entry:x/")
        let since = [entry: entry + "1"]

        let first = try await a.turn([head], since: since)
        #expect(first.snapshots.isEmpty)
        // B gets the turn once A has given it up, and saves an entry and the head.
        let second = try await b.turn([head], since: since)
        #expect(second.snapshots.isEmpty)
        #expect(second.finish([(entry + "1", Array("b".utf8)), (head, Array("B".utf8))]), "B's turn still held the activity")

        // A's push finishes now, with the same entry: it is handed what B saved, under the lock.
        let (seen, seenContinuation) = AsyncStream<(Changes, [String: [UInt8]]?)>.makeStream()
        let written = first.finish([(entry + "1", Array("a".utf8)), (head, Array("A".utf8))]) { changes, fleet in
            seenContinuation.yield((changes, fleet))
            return [(entry + "2", changes[0].value), (head, Array("BA".utf8)), ("outside:the-turn", Array("x".utf8))]
        }
        #expect(!written, "A's turn was given up: its changes are rebased later")
        var iterator = seen.makeAsyncIterator()
        let (changes, fleet) = try #require(await iterator.next())
        #expect(changes.map(\.key) == [entry + "1", head])
        #expect(fleet == [entry + "1": Array("b".utf8), head: Array("B".utf8)], "the rebase sees what B saved")

        // The next turn waits for the rebased write, and reads it beside B's.
        let third = try await b.turn([head], since: since)
        #expect(third.snapshots == [entry + "1": Array("b".utf8), entry + "2": Array("a".utf8), head: Array("BA".utf8)])
        third.finish([])
        #expect(try a.archived("outside:the-turn") == nil, "a key outside the turn is not written")
        try await a.close()
        try await b.close()
    }

    @Test("a turn let go of unfinished (its push dropped unanswered) lets the next push in at once, not after the store's patience")
    func droppedTurn() async throws {
        let location = try await PostgresTestDatabase.create()
        // A's patience outlasts the test's bound on a wait: only the dropped turn's end lets B in.
        let a = try await PostgresDeliveryStore.connect(location, connectPatience: TestDeadline.hang, turnPatience: .seconds(3_600))
        let b = try await PostgresDeliveryStore.connect(location, connectPatience: TestDeadline.hang)
        let head = "activity:x"
        do {
            let dropped = try await a.turn([head], since: [:])
            #expect(dropped.snapshots.isEmpty)
        }
        // B's wait for the lock cannot be cancelled: the test stops waiting for it at its bound.
        let (arrived, arrival) = AsyncStream<ActivityTurn?>.makeStream()
        Task { arrival.yield(try? await b.turn([head], since: [:])) }
        let bound = Task {
            try? await Task.sleep(for: TestDeadline.hang)
            arrival.yield(nil)
        }
        var iterator = arrived.makeAsyncIterator()
        let next = await iterator.next() ?? nil
        bound.cancel()
        guard let turn = next else {
            Issue.record("B gets the turn once A's dropped turn ends")
            return
        }
        #expect(turn.snapshots.isEmpty, "the dropped turn wrote nothing")
        #expect(turn.finish([(head, Array("B".utf8))]))
        try await a.close()
        try await b.close()
    }
}
