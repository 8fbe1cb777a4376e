import Foundation
import PushMockCore

/// How a store keeps Live Activities, and what this instance knows the store holds.
///
/// Each activity is kept as its head, `activity:<id>` (the activity without its timeline, and
/// the numbers of its timeline's entries), and each entry of its timeline under its number,
/// `activity-entry:<id>/<number>` (19 digits, so that the keys sort by number). A push then
/// writes its entry and the head, never the timeline; the entries trimmed from the front are
/// deleted. A store of an older version kept the whole activity under `activity:<id>`: it is
/// read as such and rewritten in this layout at start.
///
/// A fleet's instances save heads and entries in any order (a batch is written as one
/// transaction, its keys unordered). An entry that comes before its activity, or before the entry
/// it follows, waits in ``early`` until it fits.
struct ActivityLedger {
    static let headPrefix = StateKey.Prefix.activity
    static let entryPrefix = StateKey.Prefix.activityEntry
    /// Entries kept waiting for their activity at most (the oldest activity's go first).
    static let maxEarly = 10_000

    /// The head as stored: the activity with an empty timeline, and its entries' numbers.
    struct Head: Codable {
        var activity: SimulatedActivity
        var entries: Range<Int64>
    }

    /// What the store holds of one activity's timeline: the numbers of its entries, and those
    /// written before their delivery was recorded (written again once it is).
    struct Stored {
        var entries: Range<Int64>
        var unattached: Set<Int64>
    }

    private(set) var stored: [String: Stored] = [:]
    /// Entries saved by another instance that do not fit yet, by activity id and number.
    private var early: [String: [Int64: SimulatedActivity.TimelineEntry]] = [:]
    private var earlyOrder: [String] = []
    private var earlyCount = 0
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()

    static func headKey(_ id: String) -> String { StateKey.activity(id: id).key }

    static func entriesPrefix(_ id: String) -> String { StateKey.entriesPrefix(id) }

    static func entryKey(_ id: String, _ number: Int64) -> String { StateKey.activityEntry(id: id, number: number).key }

    /// The activity id and entry number of an entry key.
    static func entry(of key: String) -> (id: String, number: Int64)? {
        guard case .activityEntry(let id, let number) = StateKey(key) else { return nil }
        return (id, number)
    }

    /// A stored head: the activity (its timeline empty) and its entries' numbers, or an older
    /// version's whole activity (`entries` nil).
    func decodeHead(_ bytes: [UInt8]) -> (activity: SimulatedActivity, entries: Range<Int64>?)? {
        if let head = try? decoder.decode(Head.self, from: Data(bytes)) { return (head.activity, head.entries) }
        return (try? decoder.decode(SimulatedActivity.self, from: Data(bytes))).map { ($0, nil) }
    }

    /// A stored entry.
    func decodeEntry(_ bytes: [UInt8]) -> SimulatedActivity.TimelineEntry? {
        try? decoder.decode(SimulatedActivity.TimelineEntry.self, from: Data(bytes))
    }

    /// The keys to write so that the store holds `activity` as it is now, in order: the entries
    /// trimmed since the last save deleted, the new entries (and those whose delivery was recorded
    /// since) written, then the head.
    mutating func changes(for activity: SimulatedActivity) -> [(key: String, value: [UInt8])] {
        let id = activity.id
        let now = activity.entries
        let old = stored[id] ?? Stored(entries: now.lowerBound..<now.lowerBound, unattached: [])
        var changes: [(key: String, value: [UInt8])] = []
        for number in old.entries where !now.contains(number) {
            changes.append((Self.entryKey(id, number), []))
        }
        var unattached = Set<Int64>()
        for (offset, entry) in activity.timeline.enumerated() {
            let number = now.lowerBound + Int64(offset)
            if !old.entries.contains(number) || (old.unattached.contains(number) && entry.deliveryID != nil),
                let bytes = try? encoder.encode(entry)
            {
                changes.append((Self.entryKey(id, number), Array(bytes)))
            }
            if entry.deliveryID == nil { unattached.insert(number) }
        }
        var head = activity
        head.timeline = []
        if let bytes = try? encoder.encode(Head(activity: head, entries: now)) {
            changes.append((Self.headKey(id), Array(bytes)))
        }
        stored[id] = Stored(entries: now, unattached: unattached)
        return changes
    }

    /// What a push wrote of the activity `id` (`changes`, as ``changes(for:)`` made them from the
    /// snapshots its fleet-wide turn read, with `bound` the number of the first entry that turn
    /// read), rebased on what the fleet saved after that turn was given up: `fleet`, the head and
    /// every entry, as they are now.
    ///
    /// - An entry the fleet holds as it is (under any number) is not written again; one whose
    ///   delivery was recorded since the fleet saved it is written in its place.
    /// - Another entry from `bound` on is the push's: it follows the fleet's last one (its number
    ///   may have been taken meanwhile). Before `bound`, it is the fleet's, as this instance had it:
    ///   never written over what the fleet holds under its number.
    /// - Entries trimmed by the push are deleted only where the fleet's head no longer counts them.
    /// - The head counts every entry and shows the content with the newer `timestamp`, as a device
    ///   shows it.
    ///
    /// Nil without a head in `fleet` (never saved, or removed since) or in `changes`: `changes`
    /// are then written as they are.
    func rebase(
        _ changes: [(key: String, value: [UInt8])], id: String, from bound: Int64, on fleet: [String: [UInt8]]
    ) -> [(key: String, value: [UInt8])]? {
        let headKey = Self.headKey(id)
        guard let late = changes.last(where: { $0.key == headKey }).flatMap({ decodeHead($0.value) }), late.entries != nil,
            let saved = fleet[headKey].flatMap({ decodeHead($0) }), let savedEntries = saved.entries
        else { return nil }
        var rebased: [(key: String, value: [UInt8])] = []
        var next = savedEntries.upperBound
        let held = Set(fleet.compactMap { Self.entry(of: $0.key)?.id == id ? $0.value : nil })
        let entries = changes.compactMap { change in Self.entry(of: change.key).map { (number: $0.number, value: change.value) } }
        for (number, value) in entries.sorted(by: { $0.number < $1.number }) where !held.contains(value) {
            let key = Self.entryKey(id, number)
            if value.isEmpty {
                if number < savedEntries.lowerBound { rebased.append((key, [])) }
            } else if let theirs = fleet[key].flatMap(decodeEntry), let ours = decodeEntry(value), Self.attaches(ours, to: theirs) {
                rebased.append((key, value))
            } else if number >= bound {
                rebased.append((Self.entryKey(id, next), value))
                next += 1
            }
        }
        var head = (late.activity.lastTimestamp ?? .min) > (saved.activity.lastTimestamp ?? .min) ? late.activity : saved.activity
        head.timeline = []
        head.firstEntry = savedEntries.lowerBound
        guard let bytes = try? encoder.encode(Head(activity: head, entries: savedEntries.lowerBound..<next)) else { return nil }
        rebased.append((headKey, Array(bytes)))
        return rebased
    }

    /// Whether `ours` is `theirs` with the delivery that carried it recorded since.
    private static func attaches(_ ours: SimulatedActivity.TimelineEntry, to theirs: SimulatedActivity.TimelineEntry) -> Bool {
        guard ours.deliveryID != nil, theirs.deliveryID == nil else { return false }
        var bare = ours
        bare.deliveryID = nil
        return bare == theirs
    }

    /// The activity `id` as the store holds it after a rebase (`saved`: every entry of it, by key;
    /// `head`, its head), followed by the entries of `local` (this instance's copy) that are not
    /// saved yet. Nil when `head` cannot be read.
    mutating func rebuild(_ id: String, local: SimulatedActivity?, saved: [String: [UInt8]], head: [UInt8]) -> SimulatedActivity? {
        guard let (activity, range) = decodeHead(head), let range else { return nil }
        var entries: [Int64: SimulatedActivity.TimelineEntry] = [:]
        for (key, value) in saved {
            if let number = Self.entry(of: key)?.number, let entry = decodeEntry(value) { entries[number] = entry }
        }
        var rebuilt = activity
        if let local, (local.lastTimestamp ?? .min) > (activity.lastTimestamp ?? .min) { rebuilt = local }
        rebuilt.firstEntry = range.lowerBound
        rebuilt.timeline = []
        var unattached = Set<Int64>()
        while rebuilt.entries.upperBound < range.upperBound, let entry = entries[rebuilt.entries.upperBound] {
            if entry.deliveryID == nil { unattached.insert(rebuilt.entries.upperBound) }
            rebuilt.timeline.append(entry)
        }
        let savedRange = rebuilt.entries
        if let local, let known = stored[id] {
            rebuilt.timeline += local.timeline.dropFirst(max(0, Int(known.entries.upperBound - local.firstEntry)))
        }
        stored[id] = Stored(entries: savedRange, unattached: unattached)
        return rebuilt
    }

    /// The keys to delete for the activity `id`, gone: its entries, then its head.
    mutating func removal(of id: String) -> [(key: String, value: [UInt8])] {
        forgetEarly(id)
        let entries = stored.removeValue(forKey: id)?.entries ?? 0..<0
        return entries.map { (Self.entryKey(id, $0), []) } + [(Self.headKey(id), [])]
    }

    /// Forgets the activity `id` (another instance deleted it).
    mutating func forget(_ id: String) {
        forgetEarly(id)
        stored[id] = nil
    }

    /// The activity as another instance (or the store, at start) saved its head, with the
    /// entries `local` has and those that came early: from the head's first entry (or the first
    /// one after it there is), as many as follow one another. Entries past a gap wait.
    mutating func merge(head: SimulatedActivity, entries: Range<Int64>, local: SimulatedActivity?) -> SimulatedActivity {
        let id = head.id
        var pool = takeEarly(id)
        if let local {
            for (offset, entry) in local.timeline.enumerated() where pool[local.firstEntry + Int64(offset)] == nil {
                pool[local.firstEntry + Int64(offset)] = entry
            }
        }
        var number = entries.lowerBound
        if pool[number] == nil, let first = pool.keys.filter({ $0 > number }).min() { number = first }
        var merged = head
        merged.timeline = []
        merged.firstEntry = number
        var unattached = Set<Int64>()
        while let entry = pool.removeValue(forKey: number) {
            merged.timeline.append(entry)
            if entry.deliveryID == nil { unattached.insert(number) }
            number += 1
        }
        for (later, entry) in pool where later > number { wait(id, later, entry) }
        stored[id] = Stored(entries: min(entries.lowerBound, merged.firstEntry)..<max(entries.upperBound, number), unattached: unattached)
        return merged
    }

    /// An entry another instance saved for the activity `id`, into `local` (this instance's copy)
    /// when it fits there: the activity then (nil: it waits, or it is older than `local`'s).
    mutating func place(_ entry: SimulatedActivity.TimelineEntry, id: String, number: Int64, in local: SimulatedActivity?) -> SimulatedActivity? {
        guard var activity = local else {
            wait(id, number, entry)
            return nil
        }
        if activity.entries.contains(number) {
            activity.timeline[Int(number - activity.firstEntry)] = entry
        } else if number == activity.entries.upperBound {
            activity.timeline.append(entry)
            var pool = takeEarly(id)
            while let next = pool.removeValue(forKey: activity.entries.upperBound) { activity.timeline.append(next) }
            for (later, waiting) in pool { wait(id, later, waiting) }
        } else {
            if number > activity.entries.upperBound { wait(id, number, entry) }
            return nil
        }
        var known = stored[id] ?? Stored(entries: activity.entries, unattached: [])
        known.entries = min(known.entries.lowerBound, activity.firstEntry)..<max(known.entries.upperBound, activity.entries.upperBound)
        for (offset, entry) in activity.timeline.enumerated() {
            let number = activity.firstEntry + Int64(offset)
            if entry.deliveryID == nil { known.unattached.insert(number) } else { known.unattached.remove(number) }
        }
        stored[id] = known
        return activity
    }

    private mutating func wait(_ id: String, _ number: Int64, _ entry: SimulatedActivity.TimelineEntry) {
        if early[id] == nil { earlyOrder.append(id) }
        if early[id, default: [:]].updateValue(entry, forKey: number) == nil { earlyCount += 1 }
        while earlyCount > Self.maxEarly, let oldest = earlyOrder.first {
            forgetEarly(oldest)
        }
    }

    private mutating func takeEarly(_ id: String) -> [Int64: SimulatedActivity.TimelineEntry] {
        let pool = early.removeValue(forKey: id) ?? [:]
        earlyCount -= pool.count
        if !pool.isEmpty { earlyOrder.removeAll { $0 == id } }
        return pool
    }

    /// Forgets the entries of `id` still waiting (at start: cut off from their activity).
    mutating func forgetWaiting(_ id: String) {
        forgetEarly(id)
    }

    private mutating func forgetEarly(_ id: String) {
        _ = takeEarly(id)
        earlyOrder.removeAll { $0 == id }
    }
}
