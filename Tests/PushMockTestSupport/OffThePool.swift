import Foundation

/// Runs blocking work (a child process, reading its pipe to the end) on a thread of its own and
/// awaits it. The cooperative pool that every test's tasks share has one thread per core (two in
/// CI): a test that waited on a process there stalled every other test for seconds, and their
/// timeouts failed.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try work() })
        }
        thread.start()
    }
}
