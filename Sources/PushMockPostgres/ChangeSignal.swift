import PushMockStore
import Synchronization

/// A generation counter that waits can sleep on: every commit (this instance's or, by
/// notification, another's) bumps it and wakes whoever waits for it to move.
final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [Int: WaitSignal] = [:]
        var nextKey = 0
    }

    private let state = Mutex(State())

    /// The current generation: read it before looking, then wait past it.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Something changed.
    func signal() {
        let woken = state.withLock { state -> [WaitSignal] in
            state.generation += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.finish(true) }
    }

    /// Returns once the generation is past `seen`, after `timeout`, or when the task is cancelled.
    func wait(past seen: UInt64, timeout: Duration) async {
        let waiter = WaitSignal()
        let key = state.withLock { state -> Int? in
            guard state.generation == seen else { return nil }
            state.nextKey += 1
            state.waiters[state.nextKey] = waiter
            return state.nextKey
        }
        guard let key else { return }
        _ = await waiter.result(timeout: timeout) { [weak self] in
            _ = self?.state.withLock { $0.waiters.removeValue(forKey: key) }
        }
    }
}
