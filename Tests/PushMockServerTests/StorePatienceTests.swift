import Foundation
import PushMockCore
import PushMockTestSupport
import Synchronization
import Testing

@testable import PushMockInspection

/// A delivery store that stops answering (a PostgreSQL outage) must not hang the inspection API:
/// the routes that wait on it answer 503 with the reason within their limit.
@Suite("Inspection routes that wait on the delivery store answer within a limit")
struct StorePatienceTests {
    @Test("each store route has its limit: 10 s, a wait its timeout and 2 s (at most 300 s and 2 s); streams, resends and the rest have none")
    func limits() {
        func limit(_ method: String, _ target: String) -> Duration? {
            InspectionRouter.storeLimit(InspectionRequest(method: method, target: target))
        }
        #expect(limit("GET", "/api/v1/deliveries") == InspectionRouter.storePatience)
        #expect(limit("DELETE", "/api/v1/deliveries") == InspectionRouter.storePatience)
        #expect(limit("GET", "/api/v1/deliveries/12") == InspectionRouter.storePatience)
        #expect(limit("GET", "/api/v1/deliveries/12/curl") == InspectionRouter.storePatience)
        #expect(limit("POST", "/api/v1/reset") == InspectionRouter.storePatience)
        #expect(limit("GET", "/api/v1/deliveries/wait?timeout=250ms") == .milliseconds(2_250))
        #expect(limit("GET", "/api/v1/deliveries/wait") == .milliseconds(7_000), "the default timeout is 5 s")
        #expect(limit("GET", "/api/v1/deliveries/wait?timeout=900s") == .seconds(302), "clamped to the longest wait")
        #expect(limit("GET", "/api/v1/events") == nil)
        #expect(limit("POST", "/api/v1/deliveries/12/resend") == nil)
        #expect(limit("GET", "/livez") == nil)
        #expect(limit("GET", "/api/v1/devices") == nil)
    }

    @Test("a store call that never returns is answered 503 with the reason once its limit passes, and is cancelled")
    func hungStore() async throws {
        let cancelled = Flag()
        let started = ContinuousClock.now
        let answer = await InspectionRouter.answer(within: .milliseconds(300)) {
            // A store call with no answer: it ends only when cancelled.
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
            cancelled.value.store(true, ordering: .relaxed)
            return .response(InspectionResponse(status: 200, contentType: "text/plain", headers: [], body: []))
        }
        let took = ContinuousClock.now - started
        #expect(answer.head.status == 503)
        #expect(
            String(decoding: answer.head.body, as: UTF8.self).contains("did not answer within 0.3 s"),
            "\(String(decoding: answer.head.body, as: UTF8.self))")
        // The call never ends on its own: any answer at all came from the limit, and not before it.
        #expect(took >= .milliseconds(300), "answered after \(took), before the limit")
        let wasCancelled = await eventually { cancelled.value.load(ordering: .relaxed) }
        #expect(wasCancelled, "the store call was cancelled")

        // A store that answers in time: its answer, untouched.
        let quick = await InspectionRouter.answer(within: TestDeadline.hang) {
            .response(InspectionResponse(status: 204, contentType: "text/plain", headers: [], body: []))
        }
        #expect(quick.head.status == 204)
    }
}

final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}
