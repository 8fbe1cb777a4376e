import PushMockCore
import PushMockStore
import PushMockTestSupport
import PushMockTransport
import Synchronization
import Testing

@testable import PushMockServer

/// A fleet's `count` fault: each push that may match it claims a fire from the fleet's counter
/// first, and settles it once answered (used, or given back).
@Suite("A fleet's count fault claims and settles its fires")
struct FleetFaultClaimTests {
    static let path = "/3/device/abc"
    static let rule = FaultRule(
        id: "once", match: FaultRule.Match(service: .apns), action: .reject(status: 500, reason: "InternalServerError"), count: 1)

    /// A recorder counting faults with `counter`, with one `count: 1` fault on every APNs push.
    static func recorder(_ counter: RecordingCounter) -> PushRecorder {
        let faults = FaultPlan(rules: [rule])
        let activities = LiveActivities(
            limits: LiveActivityDevice.Limits(), devices: DeviceRegistry(), types: ActivityTypeRegistry(), seed: 1, archive: nil)
        return PushRecorder(
            store: InMemoryDeliveryStore(), capabilities: StoreCapabilities(faultCounter: counter), metrics: ServerMetrics(), faults: faults,
            activities: activities)
    }

    @Test("a push answered settles its fire as used; a push whose answer is dropped after its claim (its client left) gives the fire back")
    func settled() async throws {
        let counter = RecordingCounter()
        let recorder = Self.recorder(counter)
        var settled = counter.settled.makeAsyncIterator()
        // A settlement that never comes fails the test at the bound on a wait, not never.
        let bound = Task {
            try? await Task.sleep(for: TestDeadline.hang)
            counter.stop()
        }
        defer { bound.cancel() }

        let answered = recorder.claimingFaults(.apns, path: Self.path) { _, claims in
            let rule = recorder.fault(.apns, path: Self.path, claims: claims)
            #expect(rule?.id == "once", "the fire won is this push's")
            return .response(HTTPServerResponse(status: 500))
        }
        guard case .resumed(let first)? = answered else {
            Issue.record("a push that may match a fleet's count fault claims a fire first")
            return
        }
        await first.work()
        _ = first.respond(RequestContext(connection: ConnectionInfo(id: 1, httpVersion: .http2, isTLS: true), control: .none))
        let used = try #require(await settled.next())
        #expect(used.key == Self.rule.fleetKey && used.used, "used: the fault fired for it")

        do {
            let dropped = recorder.claimingFaults(.apns, path: Self.path) { _, _ in
                Issue.record("a push whose answer is dropped is never answered")
                return .response(HTTPServerResponse(status: 200))
            }
            guard case .resumed(let second)? = dropped else {
                Issue.record("a push that may match a fleet's count fault claims a fire first")
                return
            }
            await second.work()
        }
        // The transport drops the answer before its second half: the fire goes back to the fleet.
        let givenBack = try #require(await settled.next())
        #expect(givenBack.key == Self.rule.fleetKey && !givenBack.used, "given back, for the next push on any instance")
        #expect(counter.claims.load(ordering: .relaxed) == 2)
    }
}

/// A fleet's counter that grants every claim and reports each settlement.
final class RecordingCounter: FleetFaultCounter {
    let claims = Atomic(0)
    let settled: AsyncStream<(key: String, used: Bool)>
    private let settling: AsyncStream<(key: String, used: Bool)>.Continuation

    init() {
        (settled, settling) = AsyncStream.makeStream()
    }

    func claimFire(_ key: String, count: Int) async throws -> FleetFire {
        claims.add(1, ordering: .relaxed)
        return .won(remaining: 0)
    }

    func settleFire(_ key: String, used: Bool) async throws -> Bool {
        settling.yield((key, used))
        return false
    }

    func forgetFires() async throws {}

    /// Ends ``settled``: no settlement is still to come.
    func stop() {
        settling.finish()
    }
}
