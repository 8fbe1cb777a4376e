import PushMockCore
import PushMockInspection
import PushMockTestSupport
import Testing

@testable import PushMockServer

/// The parity ledger: counts the relay's answers by PushMock's reason and upstream, keeps them in
/// the store under keys of its own run, and sums what other runs and a fleet's instances kept.
@Suite("Parity ledger: counted per answer and upstream, kept across restarts, summed over a fleet")
struct ParityLedgerTests {
    static let sandbox = "https://api.sandbox.push.apple.com"

    static func answer(_ status: Int, _ reason: String? = nil, agrees: Bool?) -> RelayResult {
        RelayResult(upstream: sandbox, status: status, reason: reason, attempts: 1, agrees: agrees)
    }

    @Test("each answer counts once under PushMock's reason (none for a success or a push a device drops); no answer counts nothing")
    func counting() {
        let ledger = ParityLedger(archive: nil) { 1_796_300_000_000 }
        ledger.note(
            Self.answer(400, "BadDeviceToken", agrees: true), service: .apns, status: 400, reason: "BadDeviceToken", outcome: .rejected, delivery: 1)
        ledger.note(
            Self.answer(410, "Unregistered", agrees: false), service: .apns, status: 400, reason: "BadDeviceToken", outcome: .rejected, delivery: 2)
        ledger.note(Self.answer(200, agrees: true), service: .apns, status: 200, reason: "LiveActivityStale", outcome: .dropped, delivery: 3)
        ledger.note(Self.answer(200, agrees: true), service: .apns, status: 200, reason: nil, outcome: .accepted, delivery: 4)
        ledger.note(
            RelayResult(upstream: Self.sandbox, error: "connect failed", attempts: 3), service: .apns, status: 200, reason: nil, outcome: .accepted,
            delivery: 5)
        let records = ledger.records
        #expect(records.count == 2, "\(records)")
        let bad = records.first { $0.reason == "BadDeviceToken" }
        #expect(bad?.agreed == 1 && bad?.disagreed == 1 && bad?.lastDisagreement == 2 && bad?.upstreamAnswers == ["410 Unregistered": 1])
        let success = records.first { $0.reason == nil }
        #expect(success?.agreed == 2 && success?.disagreed == 0 && success?.upstream == "Apple (sandbox)")
    }

    @Test("a restart reads the earlier runs' records and, alone on the store, folds them into its own keys")
    func restart() throws {
        let archive = CountingArchive()
        let first = ParityLedger(archive: archive, run: "run1") { 0 }
        for id in 1...2 as ClosedRange<UInt64> {
            first.note(Self.answer(400, "BadTopic", agrees: true), service: .apns, status: 400, reason: "BadTopic", outcome: .rejected, delivery: id)
        }
        let second = ParityLedger(archive: archive, run: "run2") { 0 }
        try second.restore(compact: true)
        #expect(second.records.first?.agreed == 2)
        second.note(Self.answer(400, "BadTopic", agrees: true), service: .apns, status: 400, reason: "BadTopic", outcome: .rejected, delivery: 3)
        #expect(second.records.first?.agreed == 3)
        let keys = try archive.archived(prefix: StateKey.Prefix.parity).keys
        #expect(keys.allSatisfy { $0.hasPrefix("parity:run2/") } && keys.count == 1, "\(keys)")
        let third = ParityLedger(archive: archive, run: "run3") { 0 }
        try third.restore(compact: true)
        #expect(third.records.map(\.agreed) == [3])
    }

    @Test("two instances on one shared store each count under their own keys; each sees the sum; forgetting reaches both")
    func fleet() throws {
        let archive = CountingArchive()
        let a = ParityLedger(archive: archive, run: "a") { 0 }
        let b = ParityLedger(archive: archive, run: "b") { 0 }
        try a.restore(compact: false)
        try b.restore(compact: false)
        a.note(Self.answer(200, agrees: false), service: .fcm, status: 400, reason: "INVALID_ARGUMENT", outcome: .rejected, delivery: 1)
        b.note(Self.answer(200, agrees: false), service: .fcm, status: 400, reason: "INVALID_ARGUMENT", outcome: .rejected, delivery: 2)
        // What the shared store tells each of the other's saves.
        for (key, bytes) in try archive.archived(prefix: StateKey.Prefix.parity) {
            a.apply(key: key, bytes)
            b.apply(key: key, bytes)
        }
        #expect(a.records.map(\.disagreed) == [2] && b.records.map(\.disagreed) == [2])
        #expect(try archive.archived(prefix: StateKey.Prefix.parity).count == 2)
        let keys = Array(try archive.archived(prefix: StateKey.Prefix.parity).keys)
        #expect(try a.clear() == 1)
        #expect(try archive.archived(prefix: StateKey.Prefix.parity).isEmpty)
        for key in keys { b.apply(key: key, []) }
        #expect(a.records.isEmpty && b.records.isEmpty, "\(b.records)")
    }
}
