import AsyncHTTPClient
import Foundation
import PushMockCore
import PushMockServer
import PushMockStore
import PushMockTesting
import Testing

/// The app's own ActivityAttributes, as it would be written (ActivityKit's protocol is not on
/// Linux; `PushMockActivityAttributes` has the same shape).
struct DeliveryAttributes: PushMockActivityAttributes {
    enum Stage: String, Codable { case preparing, onTheWay, delivered }

    struct ContentState: Codable {
        var stage: Stage
        var eta: Date
        var driver: String?
    }

    var orderID: String
}

/// Registering the app's real `Decodable` type makes PushMock decode every push with that very
/// type and `JSONDecoder`, as ActivityKit does on the device.
@Suite("PushMockTesting: Live Activities decoded with the app's own types")
struct ActivityTypeExampleTests {
    @Test("a start and updates are decoded with DeliveryAttributes: a bad enum value and an ISO date are caught with their path")
    func decodesWithTheRealType() async throws {
        try await withPushMockServer { server in
            server.activityTypes.register(DeliveryAttributes.self)
            try await PushMockTestingExampleTests.withClient(server) { client in
                let now = Int(Date().timeIntervalSince1970)
                let eta = Date(timeIntervalSince1970: TimeInterval(now + 900)).timeIntervalSinceReferenceDate
                let headers = [
                    ("authorization", "bearer \(try server.credentials.apnsToken())"),
                    ("apns-topic", "com.example.app.push-type.liveactivity"),
                    ("apns-push-type", "liveactivity"),
                ]
                let pushToStart = String(repeating: "7a", count: 80)
                let start =
                    #"{"aps":{"event":"start","timestamp":\#(now),"attributes-type":"DeliveryAttributes","attributes":{"orderID":"A1"},"content-state":{"stage":"preparing","eta":\#(eta)},"alert":{"title":"Order","body":"Preparing"},"input-push-token":1}}"#
                let started = try await PushMockTestingExampleTests.post(
                    client, "\(server.pushURL)/3/device/\(pushToStart)", headers: headers, body: start)
                #expect(started.status == 200, "\(started.body)")
                let token = try #require(
                    try await server.waitForDeliveries(matching: DeliveryFilter(pushType: "liveactivity")).last?.issuedActivityToken)

                let badStage = #"{"aps":{"event":"update","timestamp":\#(now + 1),"content-state":{"stage":"shipped","eta":\#(eta)}}}"#
                let refused = try await PushMockTestingExampleTests.post(
                    client, "\(server.pushURL)/3/device/\(token)", headers: headers, body: badStage)
                #expect(refused.status == 400)
                #expect(refused.body.contains("LiveActivityContentStateUndecodable"), "\(refused.body)")
                #expect(refused.body.contains("content-state.stage"), "\(refused.body)")

                let isoDate = #"{"aps":{"event":"update","timestamp":\#(now + 2),"content-state":{"stage":"onTheWay","eta":"2026-11-23T10:00:00Z"}}}"#
                let refusedDate = try await PushMockTestingExampleTests.post(
                    client, "\(server.pushURL)/3/device/\(token)", headers: headers, body: isoDate)
                #expect(refusedDate.status == 400)
                #expect(refusedDate.body.contains("content-state.eta"), "\(refusedDate.body)")

                let good = #"{"aps":{"event":"update","timestamp":\#(now + 3),"content-state":{"stage":"onTheWay","eta":\#(eta),"driver":"Ana"}}}"#
                #expect(
                    try await PushMockTestingExampleTests.post(client, "\(server.pushURL)/3/device/\(token)", headers: headers, body: good).status
                        == 200)
                let activity = try #require(server.activity(token))
                #expect(activity.attributesType == "DeliveryAttributes")
                #expect(activity.contentState?["stage"] == .string("onTheWay"))
                let applied = activity.timeline.map(\.applied)
                #expect(applied == [true, true], "the refused updates never reached the device: \(applied)")
            }
        }
    }

    @Test("a type declared from Swift in the declaration form checks the same way, and a bad declaration throws")
    func declaredFromSwift() async throws {
        try await withPushMockServer { server in
            try server.activityTypes.declare("ScoreAttributes", #"{"contentState": {"home": "UInt8", "away": "UInt8"}}"#)
            #expect(throws: ActivityTypeDeclaration.Problem.self) { try server.activityTypes.declare("Broken", #"{"contentState": {"x": "Money"}}"#) }
            try await PushMockTestingExampleTests.withClient(server) { client in
                let now = Int(Date().timeIntervalSince1970)
                let headers = [
                    ("authorization", "bearer \(try server.credentials.apnsToken())"),
                    ("apns-topic", "com.example.app.push-type.liveactivity"),
                    ("apns-push-type", "liveactivity"),
                ]
                let start =
                    #"{"aps":{"event":"start","timestamp":\#(now),"attributes-type":"ScoreAttributes","attributes":{},"content-state":{"home":0,"away":256},"alert":{"title":"Kick-off","body":"A v B"}}}"#
                let answer = try await PushMockTestingExampleTests.post(
                    client, "\(server.pushURL)/3/device/\(String(repeating: "7b", count: 80))", headers: headers, body: start)
                #expect(answer.status == 400)
                #expect(answer.body.contains("content-state.away: the number 256 does not fit in UInt8"), "\(answer.body)")
            }
        }
    }
}
