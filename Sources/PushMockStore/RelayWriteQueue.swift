import Foundation
package import PushMockCore
import Synchronization

/// Relay answers waiting to be written by a lasting store: `add` never blocks; one task at a time
/// writes what has gathered, in one batch, and keeps going while more arrives. A batch that fails
/// is reported and dropped (the deliveries themselves are unaffected), never retried forever.
package final class RelayWriteQueue: Sendable {
    private struct State {
        var pending: [(id: UInt64, result: RelayResult)] = []
        var writing = false
    }

    private let state = Mutex(State())
    package typealias Writer = @Sendable ([(id: UInt64, result: RelayResult)]) async throws -> Void
    /// Set by ``start(_:)``: answers added before it wait. (In a struct: a closure kept in a
    /// `Mutex` and read back gains a reabstraction thunk on every read with Swift 6.3.)
    private struct Start: Sendable {
        let write: Writer
    }

    private let writer = Mutex<Start?>(nil)
    private let report: @Sendable (String) -> Void
    /// What is waiting is bounded: past it the oldest answers are dropped.
    private let limit: Int

    package init(limit: Int = 100_000, report: @escaping @Sendable (String) -> Void) {
        self.limit = limit
        self.report = report
    }

    /// Starts writing with `write` (a store sets it once it can write).
    package func start(_ write: @escaping Writer) {
        writer.withLock { $0 = Start(write: write) }
        let start = state.withLock { state -> Bool in
            guard !state.writing, !state.pending.isEmpty else { return false }
            state.writing = true
            return true
        }
        if start { Task { await drain() } }
    }

    package func add(_ result: RelayResult, forDelivery id: UInt64) {
        let start = state.withLock { state -> Bool in
            state.pending.append((id, result))
            if state.pending.count > limit { state.pending.removeFirst(state.pending.count - limit) }
            guard !state.writing, writer.withLock({ $0 != nil }) else { return false }
            state.writing = true
            return true
        }
        guard start else { return }
        Task { await drain() }
    }

    /// Waits until nothing is pending, or `limit` passes (a close; readers that want the answers).
    package func flush(within limit: Duration = .seconds(10)) async {
        let deadline = ContinuousClock.now + limit
        while state.withLock({ $0.writing || !$0.pending.isEmpty }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state -> [(id: UInt64, result: RelayResult)] in
                defer { state.pending = [] }
                if state.pending.isEmpty { state.writing = false }
                return state.pending
            }
            guard !batch.isEmpty else { return }
            guard let start = writer.withLock({ $0 }) else { return }
            do {
                try await start.write(batch)
            } catch {
                report("\(batch.count) relay answer(s) could not be written: \(error)")
            }
        }
    }
}

/// A relay answer as lasting stores keep it: its JSON.
package enum RelayResultCoding {
    package static func encode(_ result: RelayResult) throws -> [UInt8] {
        Array(try JSONEncoder().encode(result))
    }

    /// Nil for bytes that are not a relay answer (a damaged row): the delivery is shown without it.
    package static func decode(_ bytes: [UInt8]) -> RelayResult? {
        try? JSONDecoder().decode(RelayResult.self, from: Data(bytes))
    }
}
