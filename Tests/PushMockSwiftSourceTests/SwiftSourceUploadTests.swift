import Foundation
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockSwiftSource
import PushMockTesting
import Testing

@Suite("PUT /api/v1/activity-types with text/x-swift declares every ActivityAttributes type in the body")
struct SwiftSourceUploadTests {
    static let widget = """
        import ActivityKit
        import SwiftUI

        struct OrderAttributes: ActivityAttributes {
            public struct ContentState: Codable, Hashable {
                var stage: Stage
                var etaMinutes: Int
            }
            enum Stage: String, Codable { case preparing, ready }
            var orderID: String
        }

        struct OrderView: View {
            var body: some View { Text("order") }
        }
        """

    /// One inspection call, in-process.
    static func call(
        _ server: PushMockServer, _ method: String, _ target: String, contentType: String?, body: [UInt8], client: Bool = false
    ) async -> (status: Int, json: [String: Any]) {
        let headers = (contentType.map { [("content-type", $0)] } ?? []) + (client ? [("x-pushmock-client", "tests")] : [])
        let response = await server.inspection.respond(to: InspectionRequest(method: method, target: target, headers: headers, body: body)).head
        return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:])
    }

    static func push(_ aps: String) -> LiveActivityPush {
        LiveActivityPush(payload: JSONValue.parse(Array(#"{"aps":{\#(aps)}}"#.utf8))!, priority: 10)!
    }

    @Test("a widget's source is read and declared, with its origin; its pushes are then checked")
    func upload() async throws {
        var configuration = PushMockConfiguration.testing()
        configuration.swiftSourceReader = SwiftActivityTypes.reader
        try await withPushMockServer(configuration) { server in
            let (status, json) = await Self.call(
                server, "PUT", "/api/v1/activity-types?file=OrderWidget.swift", contentType: "text/x-swift; charset=utf-8",
                body: Array(Self.widget.utf8))
            #expect(status == 200, "\(json)")
            let types = try #require(json["activityTypes"] as? [[String: Any]])
            #expect(types.map { $0["name"] as? String } == ["OrderAttributes"])
            #expect(types.first?["declaredBy"] as? String == "source")
            #expect(types.first?["origin"] as? String == "OrderWidget.swift:4")
            #expect((json["warnings"] as? [String]) == [])

            let (shown, listed) = await Self.call(server, "GET", "/api/v1/activity-types/OrderAttributes", contentType: nil, body: [])
            #expect(shown == 200 && listed["origin"] as? String == "OrderWidget.swift:4", "\(listed)")
            let s0 = Int64(Date().timeIntervalSince1970)
            let start =
                #""event":"start","timestamp":\#(s0),"attributes-type":"OrderAttributes","attributes":{"orderID":"A1"},"content-state":{"stage":"cooking","etaMinutes":5},"alert":{"title":"t","body":"b"}"#
            let finding = server.activityTypes.check(Self.push(start), token: nil, now: PushInstant(millisecondsSinceEpoch: s0 * 1000))
            #expect(finding.violation?.explanation.hasPrefix("content-state.stage") == true, "\(String(describing: finding.violation))")

            // What the reader cannot check is answered as warnings, with the file and line.
            let partial = "struct TripAttributes: ActivityAttributes {\n  struct ContentState: Codable, Hashable { var leg: Leg }\n}\n"
            let (partialStatus, partialJSON) = await Self.call(
                server, "PUT", "/api/v1/activity-types", contentType: "text/x-swift", body: Array(partial.utf8))
            #expect(partialStatus == 200)
            let warnings = try #require(partialJSON["warnings"] as? [String])
            #expect(warnings.count == 1 && warnings[0].hasPrefix("request body:2: ") && warnings[0].contains("Leg"), "\(warnings)")
        }
    }

    @Test("no ActivityAttributes type, another content type, text that is not UTF-8, and a server without the reader each get a clear error")
    func refusals() async throws {
        var configuration = PushMockConfiguration.testing()
        configuration.swiftSourceReader = SwiftActivityTypes.reader
        try await withPushMockServer(configuration) { server in
            let (none, noneJSON) = await Self.call(
                server, "PUT", "/api/v1/activity-types", contentType: "text/x-swift", body: Array("struct A {}".utf8))
            #expect(
                none == 400 && (noneJSON["error"] as? String)?.contains("no type in the body conforms to ActivityAttributes") == true, "\(noneJSON)")
            let (json, jsonError) = await Self.call(
                server, "PUT", "/api/v1/activity-types", contentType: "application/json", body: Array(#"{"contentState":{}}"#.utf8))
            #expect(json == 415 && (jsonError["error"] as? String)?.contains("PUT /api/v1/activity-types/{name}") == true, "\(jsonError)")
            let (missing, _) = await Self.call(server, "PUT", "/api/v1/activity-types", contentType: nil, body: Array(Self.widget.utf8), client: true)
            #expect(missing == 415)
            let (binary, binaryJSON) = await Self.call(
                server, "PUT", "/api/v1/activity-types", contentType: "text/x-swift", body: [0xFF, 0xFE, 0x00])
            #expect(binary == 400 && (binaryJSON["error"] as? String)?.contains("UTF-8") == true)
        }
        try await withPushMockServer(.testing()) { server in
            let (status, json) = await Self.call(server, "PUT", "/api/v1/activity-types", contentType: "text/x-swift", body: Array(Self.widget.utf8))
            #expect(status == 501 && (json["error"] as? String)?.contains("does not read Swift source") == true, "\(json)")
        }
    }
}
