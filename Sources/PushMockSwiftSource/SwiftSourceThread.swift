import Foundation
import PushMockCore
import Synchronization

/// The bounds on reading Swift source. Each is far past what an app's `ActivityAttributes` types
/// need, and each is there because input past it would take the process down: a stack overflow,
/// memory, or minutes of CPU.
public enum SwiftSourceLimits {
    /// How deeply brackets, parentheses, braces (string interpolations among them), `#if` blocks,
    /// and `<` on one line may nest: checked on the text before it is parsed.
    public static let maximumNesting = 200
    /// How deeply one type may nest, its `?` and `!` suffixes counted (`Int???…` has no brackets).
    public static let maximumTreeDepth = 4_000
    /// Type references followed in one read (each field's type, each alias, each generic argument).
    public static let maximumSteps = 200_000
    /// Warnings kept from one read; the rest are counted.
    public static let maximumWarnings = 200
}

/// Where Swift source is read: a new thread with a large stack for each read, one read at a time,
/// so that a costly read never holds a thread other work needs (the server's request threads, the
/// cooperative pool), and deeply nested types have room.
public enum SwiftSourceThread {
    /// The stack of a reading thread. Only what is used is committed.
    public static let stackSize = 512 << 20
    /// Reads waiting for their turn beyond the one running; past it a read is refused at once.
    public static let maximumWaiting = 4

    private static let turn = DispatchSemaphore(value: 1)
    private static let queued = Atomic<Int>(0)

    /// Runs `body` on a reading thread and waits for it without blocking the caller's thread.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws(SwiftSourceError) -> T) async throws -> T {
        guard queued.add(1, ordering: .relaxed).newValue <= maximumWaiting + 1 else {
            queued.subtract(1, ordering: .relaxed)
            throw SwiftSourceReaderBusy(
                "\(maximumWaiting) Swift source reads are already waiting for the one running; try again when they are done")
        }
        let result: Result<T, SwiftSourceError> = await withCheckedContinuation { continuation in
            start {
                continuation.resume(returning: Result { () throws(SwiftSourceError) in try body() })
            }
        }
        return try result.get()
    }

    /// Runs `body` on a reading thread and blocks the calling thread until it is done (the command
    /// line).
    public static func runBlocking<T>(_ body: @escaping () throws(SwiftSourceError) -> T) throws(SwiftSourceError) -> T {
        queued.add(1, ordering: .relaxed)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<T, SwiftSourceError>?
        nonisolated(unsafe) let body = body
        start {
            result = Result { () throws(SwiftSourceError) in try body() }
            done.signal()
        }
        done.wait()
        return try result!.get()
    }

    /// Starts a thread that waits for its turn, runs `work`, and gives the turn on.
    private static func start(_ work: @escaping @Sendable () -> Void) {
        let thread = Thread {
            turn.wait()
            work()
            queued.subtract(1, ordering: .relaxed)
            turn.signal()
        }
        thread.name = "pushmock-swift-source"
        thread.stackSize = stackSize
        thread.start()
    }
}
