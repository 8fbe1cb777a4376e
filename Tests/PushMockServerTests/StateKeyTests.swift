import PushMockTestSupport
import Testing

@testable import PushMockServer

/// The keys a store that keeps state holds: every kind reads back as itself, and the text is what
/// stores written by earlier versions hold.
@Suite("State keys: one spelling per kind, read back as written")
struct StateKeyTests {
    @Test(
        "each kind's key as stored, and read back",
        arguments: [
            (StateKey.devices, "devices"),
            (.faults, "faults"),
            (.tokenGeneration, "oauth-generation"),
            (.channels, "channels"),
            (.faultSpent(fleetKey: "f1#abc"), "fault-spent:f1#abc"),
            (.activity(id: "A1"), "activity:A1"),
            (.activityEntry(id: "A1", number: 42), "activity-entry:A1/0000000000000000042"),
            (.activityType(name: "ScoreAttributes"), "activity-type:ScoreAttributes"),
            (.topic("demo/news/tok"), "topic:demo/news/tok"),
            (.parity(run: "r1", record: "apns/Apple (sandbox)/BadDeviceToken"), "parity:r1/apns/Apple (sandbox)/BadDeviceToken"),
        ])
    func roundTrip(_ kind: StateKey, _ text: String) {
        #expect(kind.key == text)
        #expect(StateKey(text) == kind)
    }

    @Test("keys of no known kind, and entry keys without a number, are nil")
    func unknown() {
        #expect(StateKey("something-else") == nil)
        #expect(StateKey("activity-entry:A1") == nil)
        #expect(StateKey("activity-entry:A1/x") == nil)
        #expect(StateKey("parity:no-record") == nil)
        #expect(StateKey("") == nil)
    }

    @Test("an activity's entry keys sort by number, under its entries prefix")
    func entryOrder() {
        let keys = [10, 9, 100].map { StateKey.activityEntry(id: "A", number: Int64($0)).key }
        #expect(keys.sorted() == [9, 10, 100].map { StateKey.activityEntry(id: "A", number: Int64($0)).key })
        #expect(keys.allSatisfy { $0.hasPrefix(StateKey.entriesPrefix("A")) })
    }
}
