import Synchronization

/// This instance's own order of pushes to each Live Activity, kept beside the fleet's turn: a
/// push holds its activities here from before it asks the fleet for their turn until what it
/// changed is written, rebase and all. The fleet's turn can be given up while a push is still
/// unfinished (``ActivityTurns``); without this a second push here could then read and change the
/// activity while the first one's changes are not yet written, and the instance's copy would
/// hold both unsaved. Pushes take keys in sorted order, so two never wait for each other.
final class LocalTurns: Sendable {
    /// Each held key, with the pushes waiting for it in arrival order.
    private let held = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    /// Waits until this instance holds every one of `keys`.
    func take(_ keys: [String]) async {
        for key in Set(keys).sorted() {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let free = held.withLock { held -> Bool in
                    guard held[key] != nil else {
                        held[key] = []
                        return true
                    }
                    held[key]!.append(waiter)
                    return false
                }
                if free { waiter.resume() }
            }
        }
    }

    /// Gives `keys` back: each goes to the push waiting longest for it, if any.
    func give(_ keys: [String]) {
        for key in Set(keys) {
            let next = held.withLock { held -> CheckedContinuation<Void, Never>? in
                guard var waiting = held[key], !waiting.isEmpty else {
                    held[key] = nil
                    return nil
                }
                let first = waiting.removeFirst()
                held[key] = waiting
                return first
            }
            next?.resume()
        }
    }

    /// Whether some push holds `key` (for tests).
    func isHeld(_ key: String) -> Bool {
        held.withLock { $0[key] != nil }
    }
}
