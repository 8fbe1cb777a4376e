import NIOCore
import Synchronization

/// Work a responder leaves for after its answer (``ConnectionControl/afterAnswer(_:)``): run on
/// the connection's event loop once the answer is written and flushed, in the order it was left.
public protocol AfterAnswerWork: AnyObject {
    /// Does the work. Called once per time it was left, or once for a run of the same object left
    /// one after another (it does all it holds).
    func runAfterAnswer()
}

/// What a listener's connections left for after their answers, counted per event loop, so that a
/// reader on any thread can wait until every answer already written has had its work done
/// (``settled()``): a client that has read an answer then reads what that answer's work made.
///
/// ```swift
/// let lanes = AnswerLanes()
/// let listener = try await HTTPListener.bind(configuration: configuration, responder: responder, lanes: lanes)
/// // … a client reads an answer, then asks another port:
/// await lanes.settled()   // the work that answer left is done
/// ```
public final class AnswerLanes: Sendable {
    private let lanes = Mutex<[AnswerLane]>([])

    /// Lanes with nothing in them yet.
    public init() {}

    /// The lane of `loop`, made on first use (once per connection, not per request).
    func lane(for loop: any EventLoop) -> AnswerLane {
        lanes.withLock { lanes in
            if let lane = lanes.first(where: { $0.loop === loop }) { return lane }
            let lane = AnswerLane(loop: loop)
            lanes.append(lane)
            return lane
        }
    }

    /// Returns once every piece of work left before the call has run: a lane whose loop is behind
    /// is waited for by running an empty task on that loop (work left while answering runs before
    /// the loop takes another task). A lane with nothing outstanding costs two atomic loads.
    public func settled() async {
        for lane in lanes.withLock({ $0 }) {
            let queued = lane.queued.load(ordering: .acquiring)
            while lane.ran.load(ordering: .acquiring) < queued {
                // A loop that has shut down runs nothing more: its connections are gone, and
                // their teardown ran what they held.
                guard (try? await lane.loop.submit({}).get()) != nil else { break }
            }
        }
    }
}

/// One event loop's count of work left for after answers and of work done.
final class AnswerLane: Sendable {
    let loop: any EventLoop
    let queued = Atomic<Int>(0)
    let ran = Atomic<Int>(0)

    init(loop: any EventLoop) {
        self.loop = loop
    }
}

/// A connection's work left for after its answers. Only the connection's event loop touches it,
/// never with overlapping accesses (work it runs may queue more), so its fields skip the runtime's
/// exclusivity checks.
final class AfterAnswerQueue {
    @exclusivity(unchecked) private var work: [any AfterAnswerWork] = []
    /// What is being run, kept between runs for its capacity.
    @exclusivity(unchecked) private var running: [any AfterAnswerWork] = []
    /// The object queued last, which is not queued again while it is last (a connection's state
    /// holding a batch of records is run once for the batch).
    @exclusivity(unchecked) private var last: ObjectIdentifier?
    @exclusivity(unchecked) private var isRunning = false
    private let lane: AnswerLane?

    init(lane: AnswerLane?) {
        self.lane = lane
    }

    func append(_ item: any AfterAnswerWork) {
        let id = ObjectIdentifier(item)
        if id == last { return }
        last = id
        work.append(item)
        lane?.queued.wrappingAdd(1, ordering: .releasing)
    }

    /// Runs everything queued, in order, including what running it queues (a call made while it
    /// runs returns at once: the run under way takes what is queued).
    func run() {
        guard !isRunning else { return }
        isRunning = true
        defer { isRunning = false }
        while !work.isEmpty {
            swap(&work, &running)
            last = nil
            for item in running { item.runAfterAnswer() }
            lane?.ran.wrappingAdd(running.count, ordering: .releasing)
            running.removeAll(keepingCapacity: true)
        }
    }
}
