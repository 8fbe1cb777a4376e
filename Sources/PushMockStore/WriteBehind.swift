package import PushMockCore
import Synchronization

/// The write-behind queue of a store that keeps deliveries outside the process (SQLite, PostgreSQL).
///
/// The push path only appends under a lock; one writer task takes whatever has queued after a short
/// window and hands it to `write` as one batch (group commit: the next batch is what arrived while
/// the last one was written). A failed batch goes back to the front and is retried with a growing
/// pause, so the deliveries wait for the storage to come back instead of being lost; past
/// `queueLimit` new deliveries are dropped and counted. `close()` writes everything first.
///
/// ```swift
/// let queue = WriteBehind<[Delivery]>(queueLimit: 100_000)
/// queue.start { batch in try await database.insert(batch) }
/// queue.enqueue(delivery)
/// await queue.flush()
/// await queue.close()
/// ```
package final class WriteBehind<Batch: DeliveryBatch>: Sendable {
    struct State {
        var pending = Batch()
        /// What appending keeps from one batch to the next.
        var carry: Batch.Carry
        /// The id of the last delivery queued (dropped ones are not).
        var queuedThrough: UInt64 = 0
        var committed: UInt64 = 0
        var flushes: [(target: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
        var writer: CheckedContinuation<Void, Never>?
        var closing = false
        /// When closing gives up on a storage that keeps failing.
        var giveUpAt: ContinuousClock.Instant?
        var dropped: UInt64 = 0
        var lastFailure: String?
        /// When the batch being written was handed to the storage (nil between batches).
        var writingSince: ContinuousClock.Instant?
        /// Deliveries in the batch being written.
        var writing = 0
        /// Closing gave up on a storage that did not answer; what was left is counted as dropped.
        var abandoned = false
        /// The writer's window while it lasts: a reader or closing ends it early.
        var window: Task<Void, Never>?
    }

    /// A write that takes longer than this counts as failing (a database that does not answer
    /// at all: its client may wait a long time before it gives up).
    package static var stallLimit: Duration { .seconds(2) }

    private let state: Mutex<State>
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let monitor = Mutex<Task<Void, Never>?>(nil)
    /// Deliveries queued at most; more are dropped and counted.
    package let queueLimit: Int
    /// How long the writer lets a batch gather (what `kill -9` can lose, plus one write).
    package let window: Duration
    /// The window unless the store chooses another: 5 ms.
    package static var defaultWindow: Duration { .milliseconds(5) }
    /// Deliveries written in one batch at most.
    package static var batchLimit: Int { 10_000 }

    /// Creates an empty queue; nothing is written before ``start(_:)``. `carry` is given to every
    /// ``DeliveryBatch/append(_:carry:)``; `window` is how long a batch gathers.
    package init(queueLimit: Int, window: Duration = defaultWindow, carry: Batch.Carry) {
        precondition(queueLimit > 0)
        precondition(window >= .zero)
        self.queueLimit = queueLimit
        self.window = window
        state = Mutex(State(carry: carry))
    }

    /// Starts the writer: `write` is called with one batch at a time, oldest first. While writes
    /// fail or deliveries are dropped, `report` is given one line a second saying so (and one when
    /// writes resume): a log that shows the trouble without flooding.
    package func start(
        _ write: @escaping @Sendable (Batch) async throws -> Void,
        report: (@Sendable (_ line: String, _ trouble: Bool) -> Void)? = nil
    ) {
        let writer = Task.detached { [weak self] in
            guard let self else { return }
            await self.writeLoop(write)
        }
        task.withLock { $0 = writer }
        guard let report else { return }
        let watcher = Task.detached { [weak self] in
            var reported = Trouble(dropped: 0, failing: false)
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard let self, !Task.isCancelled else { return }
                let (queued, dropped, failure) = self.statistics
                if let line = Self.troubleLine(queued: queued, dropped: dropped, failure: failure, since: &reported) {
                    report(line.text, line.trouble)
                }
            }
        }
        monitor.withLock { $0 = watcher }
    }

    /// What was last reported: the drop count then, and whether writes were failing.
    package struct Trouble: Sendable, Equatable {
        package var dropped: UInt64
        package var failing: Bool
        package init(dropped: UInt64, failing: Bool) {
            self.dropped = dropped
            self.failing = failing
        }
    }

    /// The line for one second, if there is something to say: writes failing, deliveries dropped
    /// since the last line, or writes resumed after failing.
    package static func troubleLine(queued: Int, dropped: UInt64, failure: String?, since reported: inout Trouble) -> (text: String, trouble: Bool)? {
        defer { reported = Trouble(dropped: dropped, failing: failure != nil) }
        let newlyDropped = dropped - min(dropped, reported.dropped)
        if failure != nil || newlyDropped > 0 {
            var text = failure.map { "the store's writes are failing (\($0)); \(queued) deliveries queued" } ?? "\(queued) deliveries queued"
            text +=
                newlyDropped > 0
                ? ", \(newlyDropped) dropped in the last second (\(dropped) in all, pushmock_store_dropped_total)" : ", none dropped yet"
            return (text, true)
        }
        if reported.failing { return ("the store's writes resumed; \(queued) deliveries queued, \(dropped) dropped in all", false) }
        return nil
    }

    /// Queues `delivery` (whose id is assigned); false when it was dropped (queue full or closed).
    @discardableResult
    package func enqueue(_ delivery: Delivery) -> Bool {
        enqueue(delivery, id: delivery.id)
    }

    /// Queues `delivery` as the delivery `id` (what its `id` says is not read): the store need not
    /// copy a delivery to give it its id. False when it was dropped (queue full or closed).
    @discardableResult
    package func enqueue(_ delivery: borrowing Delivery, id: UInt64) -> Bool {
        let (queued, writer) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard state.pending.count < queueLimit && !state.closing else {
                state.dropped += 1
                return (false, nil)
            }
            state.pending.append(delivery, id: id, carry: &state.carry)
            state.queuedThrough = id
            let writer = state.writer
            state.writer = nil
            return (true, writer)
        }
        writer?.resume()
        return queued
    }

    /// Deliveries waiting to be written (those in the batch being written among them), dropped so
    /// far, and why the last write failed while writes are failing (or how long the current one has
    /// had no answer, past ``stallLimit``).
    package var statistics: (queued: Int, dropped: UInt64, failure: String?) {
        state.withLock { state in
            var failure = state.lastFailure
            if failure == nil, let since = state.writingSince {
                let waited = ContinuousClock.now - since
                if waited > Self.stallLimit { failure = "no answer from the storage for \(waited.components.seconds) s" }
            }
            return (state.pending.count + state.writing, state.dropped, failure)
        }
    }

    /// Whether the writer is in its batch window now (tests wait for it instead of for time).
    package var isGathering: Bool {
        state.withLock { $0.window != nil }
    }

    /// Counts a delivery the store could not queue (``statistics``' `dropped`).
    package func noteDropped() {
        state.withLock { $0.dropped += 1 }
    }

    /// Records why something else the store writes failed (shown until the next successful batch).
    package func noteFailure(_ failure: String) {
        state.withLock { $0.lastFailure = failure }
    }

    /// Waits until everything queued so far is written.
    package func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (ready, writer) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
                if state.committed >= state.queuedThrough { return (true, nil) }
                state.flushes.append((state.queuedThrough, continuation))
                state.window?.cancel()
                let writer = state.writer
                state.writer = nil
                return (false, writer)
            }
            writer?.resume()
            if ready { continuation.resume() }
        }
    }

    /// Waits until what was queued before is written, or `limit` passes (writes failing): a reader
    /// then answers from what is written instead of hanging. True when everything was written.
    @discardableResult
    package func flush(within limit: Duration) async -> Bool {
        let written = WaitSignal()
        Task {
            await self.flush()
            written.finish(true)
        }
        return await written.result(timeout: limit) {}
    }

    /// Writes everything queued, then stops the writer; later deliveries are dropped. With
    /// `patience`, a storage that still fails after it is given up on: what is left is dropped and
    /// counted, so that a shutdown never hangs on a database that is gone.
    package func close(patience: Duration? = nil) async {
        let (writer, already) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Bool) in
            if state.closing { return (nil, true) }
            state.closing = true
            state.window?.cancel()
            state.giveUpAt = patience.map { ContinuousClock.now.advanced(by: $0) }
            let writer = state.writer
            state.writer = nil
            return (writer, false)
        }
        if already { return }
        writer?.resume()
        let writerTask = task.withLock { $0 }
        if let patience {
            // A storage that does not answer at all never fails a write: stop waiting for it.
            let finished = WaitSignal()
            Task {
                await writerTask?.value
                finished.finish(true)
            }
            if await !finished.result(timeout: patience, cancel: {}) {
                state.withLock { state in
                    state.dropped += UInt64(state.pending.count + state.writing)
                    state.pending = Batch()
                    state.writing = 0
                    state.abandoned = true
                    if state.lastFailure == nil { state.lastFailure = "no answer from the storage within \(patience.components.seconds) s" }
                }
                writerTask?.cancel()
            }
        } else {
            await writerTask?.value
        }
        monitor.withLock { $0 }?.cancel()
        let flushes = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.flushes = [] }
            return state.flushes.map(\.continuation)
        }
        for continuation in flushes { continuation.resume() }
    }

    private func writeLoop(_ write: @Sendable (Batch) async throws -> Void) async {
        var failures = 0
        while true {
            let (batch, closing) = await nextBatch()
            if batch.isEmpty {
                if closing { return }
                continue
            }
            state.withLock { state in
                state.writingSince = .now
                state.writing = batch.count
            }
            do {
                try await write(batch)
                failures = 0
                let done = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    state.writingSince = nil
                    state.writing = 0
                    state.committed = batch.lastID
                    state.lastFailure = nil
                    let ready = state.flushes.filter { $0.target <= state.committed }.map(\.continuation)
                    state.flushes.removeAll { $0.target <= state.committed }
                    return ready
                }
                for continuation in done { continuation.resume() }
            } catch {
                // The batch goes back to the front of the queue; the writer retries it.
                failures += 1
                let givenUp = state.withLock { state -> Bool in
                    state.writingSince = nil
                    state.writing = 0
                    if state.abandoned { return true }  // counted when closing gave up
                    if let giveUpAt = state.giveUpAt, ContinuousClock.now >= giveUpAt {
                        state.dropped += UInt64(batch.count + state.pending.count)
                        state.pending = Batch()
                        return true
                    }
                    state.pending.insert(front: batch)
                    state.lastFailure = "\(error)"
                    return false
                }
                if givenUp { return }
                try? await Task.sleep(for: .milliseconds(min(1000, 50 * failures)))
            }
        }
    }

    private func nextBatch() async -> (batch: Batch, closing: Bool) {
        // A short window lets a batch gather: a commit per push would double what a push costs at
        // low load. Closing, a reader waiting, or a large queue skip it; a reader or closing that
        // comes during it ends it (so a reader never waits for a whole window).
        let skipWindow = state.withLock { $0.closing || !$0.flushes.isEmpty || $0.pending.count >= 1_000 }
        if !skipWindow {
            let window = Task<Void, Never> { [window] in _ = try? await Task.sleep(for: window) }
            // A reader or closing that came since the check above ends it at once.
            let ended = state.withLock { state -> Bool in
                if state.closing || !state.flushes.isEmpty { return true }
                state.window = window
                return false
            }
            if ended { window.cancel() }
            await window.value
            state.withLock { $0.window = nil }
        }
        while true {
            let taken = state.withLock { state -> (Batch, Bool)? in
                if !state.pending.isEmpty || state.closing {
                    var batch = Batch()
                    if state.pending.count <= Self.batchLimit {
                        swap(&batch, &state.pending)  // the common case: take the whole queue at once
                    } else {
                        batch = state.pending.takeFirst(Self.batchLimit)
                    }
                    return (batch, state.closing && state.pending.isEmpty)
                }
                return nil
            }
            if let taken { return taken }
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    if !state.pending.isEmpty || state.closing { return true }
                    state.writer = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }
}

/// What a ``WriteBehind`` queue keeps its deliveries in until they are written: the deliveries
/// themselves (`[Delivery]`, tests), or each one already encoded as the storage takes it (the
/// binary array rows of PostgreSQL, the rows SQLite binds), so that the writer has nothing left to
/// convert and no delivery is copied into the queue or destroyed out of it.
package protocol DeliveryBatch: Sendable {
    /// What the queue keeps for appending from one batch to the next (nothing for `[Delivery]`).
    associatedtype Carry: Sendable
    /// An empty batch.
    init()
    /// Deliveries in the batch.
    var count: Int { get }
    /// True when the batch holds no delivery.
    var isEmpty: Bool { get }
    /// The id of the last delivery (the batch is not empty).
    var lastID: UInt64 { get }
    /// Adds `delivery` at the end as the delivery `id` (its own `id` is not read).
    mutating func append(_ delivery: borrowing Delivery, id: UInt64, carry: inout Carry)
    /// Removes the first `count` deliveries and returns them as a batch of their own.
    mutating func takeFirst(_ count: Int) -> Self
    /// Puts `batch` before everything in this one (a failed batch going back to the front).
    mutating func insert(front batch: Self)
}

extension WriteBehind where Batch.Carry == Void {
    /// Creates an empty queue; nothing is written before ``start(_:)``.
    package convenience init(queueLimit: Int) {
        self.init(queueLimit: queueLimit, carry: ())
    }
}

extension Array: DeliveryBatch where Element == Delivery {
    package typealias Carry = Void

    package var lastID: UInt64 { last!.id }

    package mutating func append(_ delivery: borrowing Delivery, id: UInt64, carry: inout Void) {
        var numbered = copy delivery
        numbered.id = id
        append(numbered)
    }

    package mutating func takeFirst(_ count: Int) -> [Delivery] {
        defer { removeSubrange(..<count) }
        return Array(self[..<count])
    }

    package mutating func insert(front batch: [Delivery]) {
        insert(contentsOf: batch, at: 0)
    }
}
