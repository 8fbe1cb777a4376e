import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One thread that runs the relay's tasks, so that forwarding never takes the threads of the
/// global pool from the inspection API.
///
/// It keeps the normal priority. The CPU a forward costs (TLS and HTTP/2) is spent on the HTTP
/// client's own event loop, which runs at the lowest priority (``lowerPriority()``, from
/// the relay's `OutboundClient`), so a busy PushMock answers its senders about as fast with a relay as
/// without one, and what the relay cannot keep up with waits in its bounded queue (and past it
/// is recorded as `queue full`). This thread is not lowered because a thread inherits the
/// priority of the thread that creates it, for good: AsyncHTTPClient starts a task per request,
/// and one that started a worker of the global pool from here would leave that worker, and the
/// inspection work it later runs, at the lowest priority.
final class RelayExecutor: TaskExecutor, @unchecked Sendable {
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var stopped = false
    private let condition = NSCondition()

    init() {
        let thread = Thread { [self] in run() }
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

    /// The lowest priority for the calling thread. On Linux that is the `SCHED_IDLE` policy
    /// (sched(7)): such a thread runs only when the core would otherwise be idle, and a push
    /// thread that wakes takes the core from it at once (a nice-19 thread still gets a share of
    /// a busy core, and is preempted only after a delay). Where `SCHED_IDLE` is refused, nice 19.
    /// Both are the calling thread's own; pid 0 and `who` 0 name the calling thread.
    static func lowerPriority() {
        #if os(Linux)
        var parameters = sched_param()
        parameters.sched_priority = 0
        // SCHED_IDLE is 5 in <linux/sched.h>; Glibc's Swift module does not export the macro.
        if sched_setscheduler(0, 5, &parameters) != 0 {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        }
        #endif
    }
}
