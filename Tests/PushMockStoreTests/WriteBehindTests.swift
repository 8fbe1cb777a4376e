import PushMockCore
import PushMockTestSupport
import Synchronization
import Testing

@testable import PushMockStore

/// The write-behind queue under storage that fails: pushes are never refused, the bound holds,
/// what is dropped is counted, the trouble is reported once a second, and writes resume.
@Suite("The write-behind queue when the storage fails")
struct WriteBehindTests {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "connection refused" }
    }

    @Test("past the bound deliveries are dropped and counted; one line a second says so; writes resume and lose nothing queued")
    func failingStorage() async throws {
        let failing = Atomic<Bool>(true)
        let written = Mutex<[UInt64]>([])
        let lines = Mutex<[(String, Bool)]>([])
        let queue = WriteBehind<[Delivery]>(queueLimit: 5)
        queue.start(
            { batch in
                if failing.load(ordering: .relaxed) { throw Unavailable() }
                written.withLock { $0 += batch.map(\.id) }
            }, report: { line, trouble in lines.withLock { $0.append((line, trouble)) } })

        var queued = 0
        for index in 1...8 where queue.enqueue(SampleDelivery.make(index).with(id: UInt64(index))) { queued += 1 }
        // The writer may have taken a batch before the bound was reached, but never more than 5 are held.
        #expect(queued >= 5 && queued < 8, "\(queued) of 8 queued with a bound of 5")
        #expect(queue.statistics.dropped == UInt64(8 - queued))

        // One line a second; a loaded machine (the whole suite at once) may run the reporter late.
        let reported = await eventually { lines.withLock { $0.contains { $0.1 && $0.0.contains("connection refused") } } }
        #expect(reported, "a line says the writes fail: \(lines.withLock { $0.map(\.0) })")
        let first = lines.withLock { $0.first?.0 ?? "" }
        #expect(first.contains("\(8 - queued) dropped in the last second"), "\(first)")

        failing.store(false, ordering: .relaxed)
        await queue.flush()
        #expect(written.withLock { $0 } == Array(1...UInt64(queued)), "everything queued is written once, in order")
        let resumed = await eventually { lines.withLock { $0.contains { !$0.1 && $0.0.contains("resumed") } } }
        #expect(resumed, "\(lines.withLock { $0.map(\.0) })")
        await queue.close()
    }

    @Test("a storage that never answers counts as failing after the stall limit, and closing gives up on it after its patience")
    func silentStorage() async throws {
        let queue = WriteBehind<[Delivery]>(queueLimit: 100)
        let ended = Atomic<Bool>(false)
        queue.start { _ in
            // Never answers (a server gone in the middle of a write); only cancellation ends it.
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(50)) }
            ended.store(true, ordering: .sequentiallyConsistent)
            throw CancellationError()
        }
        let enqueued = ContinuousClock.now
        for index in 1...3 { queue.enqueue(SampleDelivery.make(index).with(id: UInt64(index))) }
        let early = queue.statistics.failure
        // Only while the stall limit cannot have passed since the write began (a loaded machine may
        // reach this line later than that).
        if ContinuousClock.now - enqueued < WriteBehind<[Delivery]>.stallLimit {
            #expect(early == nil, "not failing before the stall limit")
        }
        let failing = await eventually { queue.statistics.failure?.hasPrefix("no answer from the storage for") == true }
        #expect(failing, "\(String(describing: queue.statistics.failure))")
        #expect(queue.statistics.queued == 3, "the batch being written still waits: it counts as queued")
        let started = ContinuousClock.now
        await queue.close(patience: .milliseconds(500))
        #expect(ContinuousClock.now - started < TestDeadline.hang, "closing does not wait for a storage that never answers")
        #expect(queue.statistics.dropped == 3, "what was not written is counted")
        #expect(queue.statistics.queued == 0, "and no longer counts as queued")
        // The abandoned write ends once cancelled; what it was writing is not counted again then.
        #expect(await eventually { ended.load(ordering: .sequentiallyConsistent) }, "the abandoned write was cancelled")
        await Task.yield()
        #expect(queue.statistics.dropped == 3, "once: the abandoned write ending later does not count it again")
    }

    @Test("a reader or closing that comes during the batch window ends it: nobody waits for a whole window")
    func windowEndsEarly() async throws {
        let written = Mutex<[UInt64]>([])
        let queue = WriteBehind<[Delivery]>(queueLimit: 100, window: .seconds(30), carry: ())
        queue.start { batch in written.withLock { $0 += batch.map(\.id) } }
        queue.enqueue(SampleDelivery.make(1).with(id: 1))
        // The writer enters its window first.
        try #require(await eventually { queue.isGathering }, "the writer never began its window")
        #expect(written.withLock { $0 }.isEmpty, "still gathering")
        let started = ContinuousClock.now
        #expect(await queue.flush(within: .seconds(10)), "the reader's flush is written")
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(written.withLock { $0 } == [1])

        queue.enqueue(SampleDelivery.make(2).with(id: 2))
        try #require(await eventually { queue.isGathering }, "the writer never began its window")
        let closing = ContinuousClock.now
        await queue.close()
        #expect(ContinuousClock.now - closing < .seconds(10), "closing does not wait out the window")
        #expect(written.withLock { $0 } == [1, 2])
    }

    @Test("a line only when there is something to say")
    func lines() {
        var reported = WriteBehind<[Delivery]>.Trouble(dropped: 0, failing: false)
        #expect(WriteBehind<[Delivery]>.troubleLine(queued: 0, dropped: 0, failure: nil, since: &reported) == nil)
        let failing = WriteBehind<[Delivery]>.troubleLine(queued: 100, dropped: 0, failure: "gone", since: &reported)
        #expect(failing?.trouble == true && failing?.text == "the store's writes are failing (gone); 100 deliveries queued, none dropped yet")
        let dropping = WriteBehind<[Delivery]>.troubleLine(queued: 100_000, dropped: 40, failure: "gone", since: &reported)
        #expect(dropping?.text.hasSuffix("40 dropped in the last second (40 in all, pushmock_store_dropped_total)") == true)
        let more = WriteBehind<[Delivery]>.troubleLine(queued: 100_000, dropped: 45, failure: "gone", since: &reported)
        #expect(more?.text.contains(", 5 dropped in the last second (45 in all") == true)
        let back = WriteBehind<[Delivery]>.troubleLine(queued: 0, dropped: 45, failure: nil, since: &reported)
        #expect(back?.trouble == false && back?.text == "the store's writes resumed; 0 deliveries queued, 45 dropped in all")
        #expect(WriteBehind<[Delivery]>.troubleLine(queued: 0, dropped: 45, failure: nil, since: &reported) == nil)
    }
}
