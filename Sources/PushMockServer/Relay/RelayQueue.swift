/// The pushes waiting to be forwarded, first in first out, and those dropped at the bound; kept
/// in the relay's one lock, so that the push path takes it once. A hand-written queue rather
/// than an `AsyncStream`: a full queue costs the push path a count and a noted id, and nothing
/// is copied for a push that is not kept.
struct RelayQueue {
    /// Jobs from `next` on are waiting; the ones before were taken.
    private var jobs: [RelayJob?] = []
    private var next = 0
    /// The relay's loop, parked for want of a job.
    var consumer: CheckedContinuation<RelayJob?, Never>?
    /// No more jobs are taken; those queued are still forwarded.
    var closed = false
    /// Pushes dropped at the bound, not yet recorded.
    var drops = RelayDrops()
    /// A recording of `drops` is scheduled.
    var recordingDrops = false

    /// Places taken by `reserve` and not yet filled: they count as waiting.
    private var reserved = 0
    /// What the jobs waiting (and the places kept) hold, in bytes (``RelayJob/cost``).
    private(set) var bytes = 0

    /// What `submit` does after the lock.
    enum Step {
        /// A place is kept for the job: make it (outside the lock) and `fill` it.
        case reserved
        /// Not kept; `record`: schedule the recording of the drops.
        case dropped(record: Bool)
    }

    /// Jobs waiting.
    var count: Int { jobs.count - next + reserved }

    /// Keeps a place for a job of `cost` bytes.
    mutating func reserve(cost: Int) -> Step {
        reserved += 1
        bytes += cost
        return .reserved
    }

    /// Puts `job` in the place kept for it, or hands it to the parked loop (returned: resume it
    /// with the job, after the lock).
    mutating func fill(with job: RelayJob) -> CheckedContinuation<RelayJob?, Never>? {
        reserved -= 1
        if let consumer {
            // Handed over at once: it never waits.
            bytes -= job.cost
            self.consumer = nil
            return consumer
        }
        jobs.append(job)
        return nil
    }

    /// The oldest job waiting, if any.
    mutating func pop() -> RelayJob? {
        guard next < jobs.count else { return nil }
        let job = jobs[next].take()
        bytes -= job?.cost ?? 0
        next += 1
        if next == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            next = 0
        } else if next >= 1024 && next * 2 >= jobs.count {
            jobs.removeFirst(next)
            next = 0
        }
        return job
    }
}

/// Pushes dropped at the relay's queue bound and not yet recorded as such: runs of consecutive
/// delivery ids per upstream, so that a burst of a million drops takes a few entries and the
/// push path only extends a run. The relay's own thread records them (`queue full`) later.
struct RelayDrops {
    private(set) var runs: [(upstream: String, ids: ClosedRange<UInt64>)] = []

    /// Runs kept at most; a drop past them is counted in `/metrics` but not recorded.
    static let maxRuns = 100_000

    /// Keeps `id` (dropped on its way to `upstream`); false when it cannot be kept.
    mutating func add(_ id: UInt64, upstream: String) -> Bool {
        if let last = runs.last, last.ids.upperBound &+ 1 == id, last.upstream == upstream {
            runs[runs.count - 1].ids = last.ids.lowerBound...id
            return true
        }
        guard runs.count < Self.maxRuns else { return false }
        runs.append((upstream, id...id))
        return true
    }

    /// The runs kept so far, which are forgotten.
    mutating func take() -> [(upstream: String, ids: ClosedRange<UInt64>)] {
        defer { runs = [] }
        return runs
    }
}
