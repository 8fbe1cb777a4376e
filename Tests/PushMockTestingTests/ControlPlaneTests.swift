import Foundation
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockTesting
import Testing

/// The control plane through `PushMockServer.inspect`: bodies are decoded at the API's edge into
/// Core's values, answers decode into the transfer types, and a bad body is a 400 naming the path.
@Suite("Control plane: typed bodies in, transfer types out, in-process")
struct ControlPlaneTests {
    struct ErrorBody: Decodable { var error: String }

    @Test("a fault, a device and an activity type set through the API are the server's typed values, and read back as transfer types")
    func typedRoundTrip() async throws {
        try await withPushMockServer { server in
            let added = await server.inspect(
                "PUT", "/api/v1/faults", body: #"{"match":{"service":"fcm","token":"t1"},"reject":{"reason":"UNREGISTERED"},"count":2}"#)
            #expect(added.status == 200)
            let fault = try added.decode(FaultResource.self)
            #expect(fault.reject?.status == 404, "the status comes from the FCM code")
            #expect(fault.reject?.reason == "UNREGISTERED")
            #expect(fault.id == "config-1", "named after its place")
            #expect(server.faults.rules.map(\.id) == ["config-1"])
            #expect(server.faults.rules.first?.match.service == .fcm)
            #expect(server.faults.rules.first?.count == 2)

            let set = await server.inspect("PUT", "/api/v1/devices/abcd", body: #"{"state":"unregistered","bundleId":"com.example.app"}"#)
            #expect(set.status == 200)
            let device = try set.decode(DeviceResource.self)
            #expect(device.state == "unregistered")
            #expect((device.unregisteredAt ?? 0) > 1_700_000_000_000, "since now, in milliseconds")
            let list = try await server.inspect("GET", "/api/v1/devices").decode(DeviceList.self)
            #expect(list.devices.map(\.token) == ["abcd"])

            let declared = await server.inspect(
                "PUT", "/api/v1/activity-types/ScoreAttributes", body: #"{"attributes":{"team":"String"},"contentState":{"score":"Int"}}"#)
            #expect(declared.status == 200, "\(declared.text)")
            let type = try declared.decode(ActivityTypeResource.self)
            #expect(type.name == "ScoreAttributes")
            let types = try await server.inspect("GET", "/api/v1/activity-types").decode(ActivityTypeList.self)
            #expect(types.activityTypes.contains { $0.name == "ScoreAttributes" && $0.declaredBy == "declaration" })
        }
    }

    @Test(
        "a bad body is a 400 that names the path, and changes nothing",
        arguments: [
            ("PUT", "/api/v1/faults", #"{"reject":{"reason":"BadDeviceToken"},"delayMilliseconds":5}"#, "exactly one action"),
            ("PUT", "/api/v1/faults", #"{"match":{"servce":"apns"},"resetStream":true}"#, "match.servce: unknown key"),
            ("PUT", "/api/v1/faults", #"{"reject":{"reason":"Mine"}}"#, "reject: status is required"),
            ("PUT", "/api/v1/faults", "not json", "not valid JSON"),
            ("PUT", "/api/v1/devices/abcd", #"{"state":"gone"}"#, "state: must be active, unregistered or expired"),
            ("PUT", "/api/v1/devices/abcd", #"{"attributesType":"X"}"#, "attributesType: goes with liveActivity"),
            ("PUT", "/api/v1/activity-types/ScoreAttributes", #"{"contentState":{"score":"Integer"}}"#, "contentState.score"),
            ("PUT", "/api/v1/activity-types/score", #"{"contentState":{}}"#, "Swift type names"),
        ])
    func badBodies(_ method: String, _ target: String, _ body: String, _ named: String) async throws {
        try await withPushMockServer { server in
            let reply = await server.inspect(method, target, body: body)
            #expect(reply.status == 400)
            let error = try reply.decode(ErrorBody.self).error
            #expect(error.contains(named), "\(error)")
            #expect(server.faults.rules.isEmpty)
            #expect(try await server.inspect("GET", "/api/v1/devices").decode(DeviceList.self).devices.isEmpty)
        }
    }
}
