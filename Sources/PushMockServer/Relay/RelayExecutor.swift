import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One thread at the lowest scheduling priority (nice 19) that runs the relay's tasks: forwarding
/// uses the CPU the push port leaves idle, so a busy PushMock answers its senders as fast with a
/// relay as without one, and what the relay cannot keep up with waits in its bounded queue (and
/// past it is recorded as `queue full`) instead of slowing every sender.
final class RelayExecutor: TaskExecutor, @unchecked Sendable {
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var stopped = false
    private let condition = NSCondition()

    init() {
        let thread = Thread { [self] in
            Self.lowerPriority()
            run()
        }
        thread.name = "pushmock-relay"
        thread.start()
    }

    func enqueue(_ job: UnownedJob) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs enqueued so far have run.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            let batch = jobs
            jobs = []
            let done = stopped && batch.isEmpty
            condition.unlock()
            if done { return }
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }

    /// Nice 19 for the calling thread: on Linux the nice value is a thread's own, and `who` 0 is
    /// the calling thread (setpriority(2), "Bugs").
    static func lowerPriority() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #endif
    }
}
