import Foundation
import PushMockInspection
import PushMockServer
import PushMockStore
import PushMockStores
import PushMockTestSupport
import PushMockTesting
import Testing

@Suite("--store: where deliveries are kept")
struct StoreConfigurationTests {
    @Test("sqlite:PATH keeps deliveries, devices and faults across restarts of the server; ids continue; a reset is kept")
    func sqliteAcrossRestarts() async throws {
        let path = TestScratch.path("server", extension: "sqlite")
        var configuration = PushMockConfiguration.testing()
        configuration.store = .sqlite(path: path)
        configuration.storeOpeners = StoreOpener.all
        let first = try await withPushMockServer(configuration) { server in
            for entry in ["apns-bad-priority", "fcm-invalid-argument"] {
                #expect(await server.inspect("POST", "/api/v1/rejections/\(entry)/send").status == 200)
            }
            #expect(
                await server.inspect(
                    "PUT", "/api/v1/devices/\(String(repeating: "0f", count: 32))", body: #"{"state":"unregistered","unregisteredAt":1767225600000}"#
                ).status == 200)
            #expect(
                await server.inspect(
                    "PUT", "/api/v1/faults", body: #"{"id":"kept","match":{"token":"abab"},"reject":{"reason":"Shutdown"},"count":2}"#
                ).status == 200)
            return try await server.store.newestID()
        }
        #expect(first >= 3, "two catalogue sends (the FCM one gets an access token first)")
        try await withPushMockServer(configuration) { server in
            let list = await server.inspect("GET", "/api/v1/deliveries?limit=10")
            let deliveries = try list.decode(DeliveryList.self)
            #expect(deliveries.total == Int(first), "everything from before: \(list.text)")
            let reasons = deliveries.deliveries.compactMap(\.reason)
            #expect(reasons.contains("BadPriority") && reasons.contains("INVALID_ARGUMENT"))
            #expect(await server.inspect("POST", "/api/v1/rejections/apns-bad-priority/send").status == 200)
            let newest = try await server.store.newestID()
            #expect(newest == first + 1, "ids continue after the restart")
            let ready = await server.inspect("GET", "/readyz", headers: [])
            #expect(ready.status == 200)
            let health = try ready.decode(HealthStatus.self)
            #expect(health.status == "ready" && health.store == "ok" && health.dropped == 0, "\(ready.text)")
            let metrics = await server.inspect("GET", "/metrics").text
            #expect(metrics.contains("pushmock_store_dropped_total 0"))
            #expect(metrics.contains("pushmock_store_deliveries \(first + 1)"))
            let device = await server.inspect("GET", "/api/v1/devices/\(String(repeating: "0f", count: 32))")
            #expect(try device.decode(DeviceResource.self).state == "unregistered", "devices set through the API are kept: \(device.text)")
            let faults = try await server.inspect("GET", "/api/v1/faults").decode(FaultList.self).faults
            #expect(faults.first?.id == "kept", "faults are kept: \(faults)")
            #expect(faults.first?.count == 2)
            #expect(await server.inspect("POST", "/api/v1/reset").status == 200)
        }
        try await withPushMockServer(configuration) { server in
            #expect(try await server.inspect("GET", "/api/v1/deliveries?limit=1").decode(DeliveryList.self).total == 0, "a reset is kept too")
            #expect(try await server.inspect("GET", "/api/v1/faults").decode(FaultList.self).faults.isEmpty)
            #expect(await server.inspect("GET", "/api/v1/devices/\(String(repeating: "0f", count: 32))").status == 404)
            let newest = try await server.store.newestID()
            #expect(newest == first + 1, "ids still continue after a reset")
        }
    }

    @Test("a store that cannot be used is refused at start with the reason; bad --store values are named")
    func refusals() async throws {
        let path = TestScratch.path("notes", extension: "txt")
        try Data("notes".utf8).write(to: URL(fileURLWithPath: path))
        var configuration = PushMockConfiguration.testing()
        configuration.store = .sqlite(path: path)
        configuration.storeOpeners = StoreOpener.all
        await #expect(throws: PushMockError.self) { try await withPushMockServer(configuration) { _ in } }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "notes")
        #expect(try StoreLocation(parsing: "memory") == StoreLocation.memory)
        #expect(try StoreLocation(parsing: "sqlite:/tmp/a.sqlite") == .sqlite(path: "/tmp/a.sqlite"))
        #expect(throws: PushMockError.self) { try StoreLocation(parsing: "sqlite:") }
        #expect(throws: PushMockError.self) { try StoreLocation(parsing: "redis://x") }
        #expect(PushMockConfiguration.duration("24h") == .seconds(86_400))
        #expect(PushMockConfiguration.duration("90m") == .seconds(5_400))
        #expect(PushMockConfiguration.duration("0h") == nil)
        #expect(PushMockConfiguration.duration("soon") == nil)
        var fromFile = PushMockConfiguration()
        try fromFile.load(contents: Array(#"{"store":"sqlite:data/pushmock.sqlite","retentionAge":"12h"}"#.utf8), path: "/etc/pushmock/pushmock.json")
        #expect(fromFile.store == .sqlite(path: "data/pushmock.sqlite"))
        #expect(fromFile.retentionAge == .seconds(43_200))
        var wrong = PushMockConfiguration()
        #expect(throws: PushMockError.self) { try wrong.load(contents: Array(#"{"store":"sqlite"}"#.utf8), path: "p.json") }
        #expect(throws: PushMockError.self) { try wrong.load(contents: Array(#"{"retentionAge":"forever"}"#.utf8), path: "p.json") }
    }
}
