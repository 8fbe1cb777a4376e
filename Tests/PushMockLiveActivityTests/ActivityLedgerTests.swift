import Foundation
import PushMockCore
import PushMockStore
import PushMockTestSupport
import PushMockTransport
import Synchronization
import Testing

@testable import PushMockServer

/// A store keeps a Live Activity as its head and one key per timeline entry: a push writes what
/// it changed, not the activity with its whole timeline.
@Suite("Live Activities in a store that keeps state")
struct ActivityLedgerTests {
    static let t0: Int64 = 1_767_225_600_000
    static let pushToStart = String(repeating: "a1", count: 80)

    static func push(_ aps: String) -> LiveActivityPush {
        LiveActivityPush(payload: JSONValue.parse(Array(#"{"aps":{\#(aps)}}"#.utf8))!, priority: 5)!
    }

    static func activities(_ archive: CountingArchive, maxTimeline: Int = 1000, seed: UInt64 = 3) -> LiveActivities {
        var limits = LiveActivityDevice.Limits()
        limits.maxTimeline = maxTimeline
        return LiveActivities(limits: limits, devices: DeviceRegistry(), types: ActivityTypeRegistry(), seed: seed, archive: archive)
    }

    /// Starts an activity and sends it `updates` updates of about 2 KB each, recording each as
    /// delivery `n` and saving after each (as the save window would): its token.
    @discardableResult
    static func run(_ activities: LiveActivities, updates: Int, from first: Int = 1) throws -> String {
        let filler = String(repeating: "x", count: 2_000)
        var token = activities.all.first?.token
        if token == nil {
            let start = push(
                #""event":"start","timestamp":\#(t0 / 1000),"content-state":{"n":0},"attributes-type":"A","attributes":{},"input-push-token":1,"alert":{"title":"t","body":"b"}"#
            )
            let started = try #require(
                activities.receive(
                    start, token: pushToStart, bundleID: "com.example", service: .apns, now: PushInstant(millisecondsSinceEpoch: t0), payloadDrop: nil
                ))
            activities.attach(deliveryID: 1, to: [started])
            activities.saveChanged()
            token = started.issuedToken
        }
        let activityToken = try #require(token)
        for n in first..<(first + updates) {
            let update = push(#""event":"update","timestamp":\#(t0 / 1000 + Int64(n)),"content-state":{"n":\#(n),"pad":"\#(filler)"}"#)
            let outcome = try #require(
                activities.receive(
                    update, token: activityToken, bundleID: "com.example", service: .apns,
                    now: PushInstant(millisecondsSinceEpoch: t0 + Int64(n) * 1000), payloadDrop: nil))
            #expect(outcome.drop == nil)
            activities.attach(deliveryID: UInt64(n + 1), to: [outcome])
            activities.saveChanged()
        }
        return activityToken
    }

    @Test("each update writes its entry and the head: 300 updates of 2 KB write about 300 × 2 KB, not a growing timeline each time")
    func writesWhatChanged() throws {
        let archive = CountingArchive()
        let activities = Self.activities(archive)
        let token = try Self.run(activities, updates: 10)
        let before: Int = archive.written.load(ordering: .relaxed)
        try Self.run(activities, updates: 300, from: 11)
        let written: Int = archive.written.load(ordering: .relaxed) - before
        // An entry (~2.3 KB: its content-state) and a head (~2.5 KB: the current content-state) per
        // update: under 6 KB each. The whole timeline each time wrote ~100 times that.
        #expect(written < 300 * 6_000, "\(written) bytes written for 300 updates")
        let keys = try archive.archived(prefix: ActivityLedger.entryPrefix)
        #expect(keys.count == 311, "an entry per push: \(keys.count)")
        #expect(try archive.archived(prefix: ActivityLedger.headPrefix).count == 1)

        // A restart reads the head and its entries back: the same activity, timeline and deliveries.
        let restored = Self.activities(archive)
        try restored.restore(from: archive)
        let original = try #require(activities.activity(token))
        let back = try #require(restored.activity(token))
        #expect(back == original)
        #expect(
            back.timeline.map(\.deliveryID) == (1...311).map { UInt64($0) }, "each entry names its delivery (attached after it was first written)")
    }

    @Test("entries trimmed from a full timeline are deleted from the store; a forgotten activity takes its entries with it")
    func trimmedAndForgotten() throws {
        let archive = CountingArchive()
        let activities = Self.activities(archive, maxTimeline: 20)
        let token = try Self.run(activities, updates: 50)
        let activity = try #require(activities.activity(token))
        #expect(activity.timeline.count == 20 && activity.firstEntry == 31)
        let numbers = try archive.archived(prefix: ActivityLedger.entryPrefix).keys.compactMap { ActivityLedger.entry(of: $0)?.number }.sorted()
        #expect(numbers == Array(31...50), "only the kept entries are stored: \(numbers)")

        let restored = Self.activities(archive, maxTimeline: 20)
        try restored.restore(from: archive)
        #expect(restored.activity(token) == activity, "restored with its first entry's number")
        try Self.run(restored, updates: 5, from: 51)
        #expect(restored.activity(token)?.firstEntry == 36)
        #expect(try archive.archived(prefix: ActivityLedger.entryPrefix).count == 20)

        restored.removeAll()
        #expect(try archive.archived(prefix: ActivityLedger.entryPrefix).isEmpty)
        #expect(try archive.archived(prefix: ActivityLedger.headPrefix).isEmpty)
    }

    @Test("an activity an older PushMock kept whole is read at start and rewritten as a head and entries; stray entries are deleted")
    func olderLayout() throws {
        let archive = CountingArchive()
        let token = try Self.run(Self.activities(CountingArchive()), updates: 0)
        let source = Self.activities(archive)
        try Self.run(source, updates: 4)
        let whole = try #require(source.activity(token))
        // What an older version wrote: the whole activity under its key, nothing else.
        for key in try archive.archived(prefix: "activity").keys { archive.archive(key, []) }
        archive.archive("activity:" + whole.id, Array(try JSONEncoder().encode(whole)))
        archive.archive(ActivityLedger.entryKey("gone", 3), Array("{}".utf8))

        let restored = Self.activities(archive)
        try restored.restore(from: archive)
        #expect(restored.activity(token) == whole)
        #expect(try archive.archived(prefix: ActivityLedger.entryPrefix).count == 5, "rewritten as 5 entries, the stray one deleted")
        let head = try #require(try archive.archived("activity:" + whole.id))
        let decoded = try JSONDecoder().decode(ActivityLedger.Head.self, from: Data(head))
        #expect(decoded.activity.timeline.isEmpty && decoded.entries == 0..<5)
    }

    @Test("a fleet's heads and entries apply in any order: an entry before its activity, or after a gap, waits until it fits")
    func anyOrder() throws {
        let archive = CountingArchive()
        let source = Self.activities(archive)
        let token = try Self.run(source, updates: 3)
        let whole = try #require(source.activity(token))
        let saved = try archive.archived(prefix: "activity")
        let peer = Self.activities(CountingArchive(), seed: 9)
        // Entries newest first, then the head: nothing fits until the head names the activity.
        for key in saved.keys.sorted(by: >) where key.hasPrefix(ActivityLedger.entryPrefix) {
            peer.apply(key: key, saved[key]!)
            #expect(peer.activity(token) == nil)
        }
        peer.apply(key: "activity:" + whole.id, saved["activity:" + whole.id]!)
        #expect(peer.activity(token) == whole)

        // The head of the next update before its entry, then the entry.
        try Self.run(source, updates: 1, from: 4)
        let after = try archive.archived(prefix: "activity")
        peer.apply(key: "activity:" + whole.id, after["activity:" + whole.id]!)
        #expect(peer.activity(token)?.timeline.count == 4, "the head alone does not invent the entry")
        peer.apply(key: ActivityLedger.entryKey(whole.id, 4), after[ActivityLedger.entryKey(whole.id, 4)]!)
        #expect(peer.activity(token) == source.activity(token))
        // An older head (a notification applied late) does not shorten it.
        peer.apply(key: "activity:" + whole.id, saved["activity:" + whole.id]!)
        #expect(peer.activity(token)?.timeline.count == 5)
    }

    /// One update (`timestamp` seconds after the start) through `activities` inside a fleet-wide
    /// turn, as ``ActivityTurns`` takes it: the bound the turn read from, and what it would save.
    static func lateUpdate(
        _ activities: LiveActivities, token: String, key: String, n: Int, timestamp: Int64
    ) throws -> (since: [String: String], changes: [(key: String, value: [UInt8])]) {
        let since = activities.unseenEntries([key])
        activities.turn(key, taken: true)
        defer { activities.turn(key, taken: false) }
        let update = push(#""event":"update","timestamp":\#(t0 / 1000 + timestamp),"content-state":{"n":\#(n)}"#)
        let outcome = try #require(
            activities.receive(
                update, token: token, bundleID: "com.example", service: .apns, now: PushInstant(millisecondsSinceEpoch: t0 + timestamp * 1000),
                payloadDrop: nil))
        #expect(outcome.drop == nil)
        activities.attach(deliveryID: UInt64(1000 + n), to: [outcome])
        return (since, activities.changes(key))
    }

    /// Two instances' copies: `source` saves to `archive` an activity with 3 updates, and `late`
    /// has adopted what it saved. The activity's token and id.
    static func twoInstances() throws -> (archive: CountingArchive, source: LiveActivities, late: LiveActivities, token: String, id: String) {
        let archive = CountingArchive()
        let source = Self.activities(archive)
        let token = try Self.run(source, updates: 3)
        let id = try #require(source.activity(token)).id
        let late = Self.activities(CountingArchive(), seed: 9)
        for (saved, value) in try archive.archived(prefix: "activity").sorted(by: { $0.key > $1.key }) { late.apply(key: saved, value) }
        return (archive, source, late, token, id)
    }

    @Test(
        "a push that outlived its fleet turn is rebased on what another instance saved meanwhile: its entry follows, the newer content shows, both copies agree"
    )
    func lateRebase() throws {
        let (archive, source, late, token, id) = try Self.twoInstances()
        let key = "activity:" + id
        #expect(late.activity(token) == source.activity(token))

        // Nobody saved meanwhile: the changes are written as they were.
        let quiet = try Self.lateUpdate(late, token: token, key: key, n: 4, timestamp: 4)
        let unchanged = late.rebase(quiet.changes, keys: [key], since: quiet.since, on: try archive.archived(prefix: "activity"))
        #expect(unchanged.map(\.key) == quiet.changes.map(\.key))
        for (written, value) in unchanged { archive.archive(written, value) }
        for (written, value) in unchanged { source.apply(key: written, value) }
        #expect(source.activity(token) == late.activity(token))

        for (round, (lateTime, fleetTime)) in [(Int64(5), Int64(10)), (20, 15)].enumerated() {
            // The late push takes its turn, which is given up; the source saves an update of its
            // own (with the same entry number) before the late push finishes.
            let before = try #require(late.activity(token)).timeline.count
            let (since, changes) = try Self.lateUpdate(late, token: token, key: key, n: 100 + round, timestamp: lateTime)
            try Self.run(source, updates: 1, from: Int(fleetTime))
            let fleet = try archive.archived(prefix: "activity")
            let rebased = late.rebase(changes, keys: [key], since: since, on: fleet)

            let moved = ActivityLedger.entryKey(id, Int64(before + 1))
            #expect(rebased.map(\.key) == [moved, key], "the late entry follows the source's, then the head: \(rebased.map(\.key))")
            let head = try JSONDecoder().decode(ActivityLedger.Head.self, from: Data(try #require(rebased.last).value))
            #expect(head.entries == 0..<Int64(before + 2), "the head counts both entries")
            let shown = max(lateTime, fleetTime) == lateTime ? 100 + round : Int(fleetTime)
            #expect(head.activity.contentState?["n"] == .number(String(shown)), "the content with the newer timestamp shows")
            let copy = try #require(late.activity(token))
            #expect(copy.timeline.suffix(2).map { $0.contentState?["n"] } == [.number(String(fleetTime)), .number(String(100 + round))])
            #expect(copy.contentState?["n"] == .number(String(shown)))

            for (written, value) in rebased { archive.archive(written, value) }
            for (written, value) in rebased { source.apply(key: written, value) }
            #expect(source.activity(token) == late.activity(token), "the source's copy adopts the rebased entry and head")
        }
    }

    @Test(
        "what the fleet saves of an activity while a push here holds its turn waits for the turn's end: the push's own entry is never taken over, and is saved"
    )
    func fleetSavesDuringTurn() throws {
        let (archive, source, late, token, id) = try Self.twoInstances()
        let key = "activity:" + id
        let before = try #require(late.activity(token)).timeline.count

        // A push here takes the turn and appends its entry (number `before`)...
        let since = late.unseenEntries([key])
        late.turn(key, taken: true)
        let update = Self.push(#""event":"update","timestamp":\#(Self.t0 / 1000 + 20),"content-state":{"n":100}"#)
        let outcome = try #require(
            late.receive(
                update, token: token, bundleID: "com.example", service: .apns, now: PushInstant(millisecondsSinceEpoch: Self.t0 + 20_000),
                payloadDrop: nil))
        late.attach(deliveryID: 1100, to: [outcome])
        // ...while the source saves an entry under the same number (the turn was given up), and
        // its notifications come in before the push has saved.
        let saved = try archive.archived(prefix: "activity")
        try Self.run(source, updates: 1, from: 10)
        let fleet = try archive.archived(prefix: "activity")
        for (written, value) in fleet.sorted(by: { $0.key > $1.key }) where saved[written] != value { late.apply(key: written, value) }
        #expect(late.activity(token)?.timeline.last?.contentState?["n"] == .number("100"), "the push's own entry is still there")

        let changes = late.changes(key)
        let own = changes.first { $0.key == ActivityLedger.entryKey(id, Int64(before)) }
        #expect(own.map { String(decoding: $0.value, as: UTF8.self).contains("100") } == true, "the push saves its own entry: \(changes.map(\.key))")
        late.turn(key, taken: false)
        // Given up, the push is rebased on what the fleet saved: both entries, the fleet's first.
        let rebased = late.rebase(changes, keys: [key], since: since, on: fleet)
        #expect(rebased.map(\.key) == [ActivityLedger.entryKey(id, Int64(before + 1)), key])
        let copy = try #require(late.activity(token))
        #expect(copy.timeline.count == before + 2)
        #expect(copy.timeline.suffix(2).map { $0.contentState?["n"] } == [.number("10"), .number("100")])
    }

    @Test("an instance's own hold on activities: taken in any order, handed to the push waiting for it, free once given back")
    func localTurns() async {
        let turns = LocalTurns()
        await turns.take(["activity:b", "activity:a", "activity:a"])
        #expect(turns.isHeld("activity:a") && turns.isHeld("activity:b"))
        let next = Task {
            await turns.take(["activity:a"])
            return turns.isHeld("activity:a")
        }
        turns.give(["activity:a", "activity:b"])
        #expect(await next.value, "the waiting push got activity:a")
        #expect(turns.isHeld("activity:a") && !turns.isHeld("activity:b"), "activity:a passed on, activity:b free")
        turns.give(["activity:a"])
        #expect(!turns.isHeld("activity:a"))
    }

    /// A started activity, a recording fleet order, and an APNs `liveactivity` push to the
    /// activity that takes its turn: (activities, token, snapshot key, order, turns, request).
    static func fleetPush() throws -> (LiveActivities, String, String, RecordingOrder, ActivityTurns, HTTPServerRequest) {
        let activities = Self.activities(CountingArchive())
        let token = try Self.run(activities, updates: 0)
        let key = "activity:" + (try #require(activities.activity(token)).id)
        let order = RecordingOrder()
        let request = HTTPServerRequest(
            method: "POST", path: "/3/device/\(token)", headers: HTTPHeaderList([HeaderField(name: "apns-push-type", value: "liveactivity")]),
            body: [])
        return (activities, token, key, order, ActivityTurns(order: order, activities: activities), request)
    }

    @Test(
        "a push whose answer is dropped while it waits (its client left) still saves what it changed in its turn and gives its activity back here"
    )
    func droppedAnswer() async throws {
        let (activities, token, key, order, turns, request) = try Self.fleetPush()
        let update = Self.push(#""event":"update","timestamp":\#(Self.t0 / 1000 + 5),"content-state":{"n":5}"#)
        // What the transport holds of the answer, dropped at the end of this block as it is when
        // the connection is gone before the answer's second half (a debug build keeps a variable
        // until its scope ends).
        do {
            let result = turns.taking(request) { _ in
                // The push changes the activity, then waits (as a relayed push waits for its upstream).
                _ = activities.receive(
                    update, token: token, bundleID: "com.example", service: .apns, now: PushInstant(millisecondsSinceEpoch: Self.t0 + 5_000),
                    payloadDrop: nil)
                return .resumed(ResponderResumption(work: {}, respond: { _ in .response(HTTPServerResponse(status: 200)) }))
            }
            guard case .resumed(let outer)? = result else {
                Issue.record("a Live Activity push with a fleet order takes the turn")
                return
            }
            await outer.work()
            #expect(turns.local.isHeld(key), "held here from before the fleet's turn")
            let inner = outer.respond(RequestContext(connection: ConnectionInfo(id: 1, httpVersion: .http2, isTLS: true), control: .none))
            guard case .resumed = inner else {
                Issue.record("the push's own wait is still to come")
                return
            }
            #expect(order.finished.withLock { $0.isEmpty }, "nothing saved while the answer waits")
            #expect(turns.local.isHeld(key))
        }
        // The transport drops the rest of the answer unanswered: the turn still ends.
        let finished = order.finished.withLock { $0 }
        #expect(finished.count == 1)
        #expect(finished.first?.contains { $0.key == ActivityLedger.entryKey(String(key.dropFirst(9)), 1) } == true, "the update's entry is saved")
        #expect(!turns.local.isHeld(key), "the activity is free for the next push here")
    }

    @Test("a push dropped after it took the fleet's turn and before it was answered gives the turn and the activity back")
    func droppedBeforeAnswer() async throws {
        let (_, _, key, order, turns, request) = try Self.fleetPush()
        do {
            let result = turns.taking(request) { _ in
                Issue.record("a push dropped before its answer is never answered")
                return .response(HTTPServerResponse(status: 200))
            }
            guard case .resumed(let outer)? = result else {
                Issue.record("a Live Activity push with a fleet order takes the turn")
                return
            }
            await outer.work()
            #expect(turns.local.isHeld(key), "held here while the push has the fleet's turn")
            #expect(order.finished.withLock { $0.isEmpty }, "the turn is still the push's")
        }
        // The transport drops the answer before its second half (the client left while the push
        // waited for its turn): the fleet's turn ends with nothing written.
        #expect(order.finished.withLock { $0.map(\.count) } == [0])
        #expect(!turns.local.isHeld(key), "the activity is free for the next push here")
    }
}

/// A fleet order that gives every turn at once and keeps what each was finished with.
final class RecordingOrder: FleetActivityOrder {
    let finished = Mutex<[[(key: String, value: [UInt8])]]>([])

    func turn(_ keys: [String], since: [String: String]) async throws -> ActivityTurn {
        ActivityTurn(snapshots: [:]) { changes in self.finished.withLock { $0.append(changes) } }
    }
}
