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
