import Foundation
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockTestSupport
import PushMockTesting
import Testing

@Suite("The rejections catalogue: each entry really produces its answer through the push port")
struct RejectionCatalogueTests {
    @Test("every entry, sent through the push port, is recorded with its status and reason; one-shot faults and devices are removed after")
    func everyEntryProducesItsAnswer() async throws {
        try await withPushMockServer(.testing()) { server in
            #expect(RejectionCatalogue.entries.count >= 60)
            #expect(Set(RejectionCatalogue.entries.map(\.id)).count == RejectionCatalogue.entries.count, "ids are unique")
            let listed = await server.inspect("GET", "/api/v1/rejections")
            #expect(try listed.decode(RejectionList.self).entries.map(\.id) == RejectionCatalogue.entries.map(\.id))
            for entry in RejectionCatalogue.entries {
                let reply = await server.inspect("POST", "/api/v1/rejections/\(entry.id)/send")
                #expect(reply.status == 200, "\(entry.id): \(reply.text)")
                let result = try reply.decode(SendResult.self)
                #expect(
                    result.produced,
                    "\(entry.id) wanted \(entry.status) \(entry.reason), got \(result.status) \(result.reason ?? "-"): \(result.body)")
                #expect(result.status == entry.status, "\(entry.id): status \(result.status)")
                // A Web Push the service answered 201 but the browser drops (it does not open, say).
                #expect(result.outcome == (entry.status < 300 ? .dropped : .rejected), "\(entry.id)")
                let id = try #require(result.deliveryId, "\(entry.id) was recorded")
                let recorded = try await server.inspect("GET", "/api/v1/deliveries/\(id)").decode(DeliveryResource.self)
                #expect(recorded.reason == entry.reason)
                #expect((result.fault != nil) == entry.viaFault, "\(entry.id): a fault only where the entry says so")
                if let fault = result.fault {
                    #expect(recorded.fault == fault)
                }
            }
            let faults = try await server.inspect("GET", "/api/v1/faults").decode(FaultList.self).faults
            #expect(faults.isEmpty, "one-shot faults are gone: \(faults)")
            let devices = try await server.inspect("GET", "/api/v1/devices").decode(DeviceList.self).devices
            #expect(devices.allSatisfy { $0.state == "active" && $0.bundleId == nil }, "\(devices)")
            #expect(Set(RejectionCatalogue.entries.map(\.service)) == ["apns", "liveactivity", "fcm", "webpush"])
            let subscriptions = try await server.inspected("/api/v1/web-push/subscriptions", as: WebPushSubscriptionList.self).subscriptions
            #expect(subscriptions.isEmpty, "the subscriptions minted for Web Push entries are removed after: \(subscriptions.map(\.id))")
            #expect(await server.inspect("POST", "/api/v1/rejections/no-such-entry/send").status == 404)
        }
    }

    @Test("a delivery sent again goes through the push port and is recorded anew with the same answer")
    func sendAgain() async throws {
        try await withPushMockServer(.testing()) { server in
            let first = try JSONDecoder().decode(
                SendResult.self, from: Data(await server.inspect("POST", "/api/v1/rejections/apns-bad-priority/send").response.body))
            let id = try #require(first.deliveryId)
            let reply = await server.inspect("POST", "/api/v1/deliveries/\(id)/resend")
            #expect(reply.status == 200, "\(reply.text)")
            let again = try JSONDecoder().decode(SendResult.self, from: Data(reply.response.body))
            let newID = try #require(again.deliveryId)
            #expect(newID > id)
            #expect(again.status == 400)
            #expect(again.reason == "BadPriority")
            // A stream reset is an answer too: status 0, and the delivery is recorded with its fault.
            #expect(
                await server.inspect("PUT", "/api/v1/faults", body: #"{"id":"reset-once","match":{"service":"apns"},"resetStream":true,"count":1}"#)
                    .status == 200)
            let reset = await server.inspect("POST", "/api/v1/deliveries/\(id)/resend")
            #expect(reset.status == 200, "\(reset.text)")
            let resetResult = try reset.decode(SendResult.self)
            #expect(resetResult.status == 0 && resetResult.body.contains("no HTTP response"), "\(resetResult)")
            #expect(resetResult.deliveryId != nil && resetResult.fault == nil)
            let recorded = try await server.inspect("GET", "/api/v1/deliveries/\(resetResult.deliveryId ?? 0)").decode(DeliveryResource.self)
            #expect(recorded.fault == "reset-once")
            #expect(await server.inspect("POST", "/api/v1/deliveries/999999/resend").status == 404)
            #expect(await server.inspect("POST", "/api/v1/deliveries/\(id)/resend", headers: []).status == 403, "a state-changing route: guarded")
        }
    }
}
