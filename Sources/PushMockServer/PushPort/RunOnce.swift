import Synchronization

/// An action run once: when ``run()`` is called, or else when the last reference goes (an answer
/// the transport dropped, its client gone, still ends what it began).
final class RunOnce: Sendable {
    private let action: Mutex<(@Sendable () -> Void)?>

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = Mutex(action)
    }

    /// Runs the action, unless it ran already.
    func run() {
        let action = action.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit {
        run()
    }
}
