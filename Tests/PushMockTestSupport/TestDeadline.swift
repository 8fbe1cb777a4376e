/// How long a test waits for an event before it calls it a hang.
///
/// Tests wait for the event itself (a frame, a close, a delivery, a state change); the deadline
/// only bounds a hang, so it is generous: the whole suite runs in parallel on two cores that
/// another process may keep busy, and an event that comes late there has still come.
package enum TestDeadline {
    /// The bound on any one wait.
    package static let hang: Duration = .seconds(60)
}

/// Polls `condition` until it holds or `limit` has passed; whether it held. For state a test can
/// only read, not be told of (a store's statistics, a list that fills); a test that can be told
/// (a stream, a continuation) waits for that instead.
package func eventually(within limit: Duration = TestDeadline.hang, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(20))
    }
}
