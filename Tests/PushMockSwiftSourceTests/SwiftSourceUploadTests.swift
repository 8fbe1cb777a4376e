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
    ) async -> InspectionReply {
        let headers = (contentType.map { [("content-type", $0)] } ?? []) + (client ? [("x-pushmock-client", "tests")] : [])
        return InspectionReply(
            response: await server.inspection.respond(to: InspectionRequest(method: method, target: target, headers: headers, body: body)).head)
    }

    static func push(_ aps: String) -> LiveActivityPush {
        LiveActivityPush(payload: JSONValue.parse(Array(#"{"aps":{\#(aps)}}"#.utf8))!, priority: 10)!
    }

    @Test("a widget's source is read and declared, with its origin; its pushes are then checked")
    func upload() async throws {
        var configuration = PushMockConfiguration.testing()
        configuration.swiftSourceReader = SwiftActivityTypes.reader
        try await withPushMockServer(configuration) { server in
            let read = await Self.call(
                server, "PUT", "/api/v1/activity-types?file=OrderWidget.swift", contentType: "text/x-swift; charset=utf-8",
                body: Array(Self.widget.utf8))
            #expect(read.status == 200, "\(read.text)")
            let reading = try read.decode(ActivityTypeReading.self)
            #expect(reading.activityTypes.map(\.name) == ["OrderAttributes"])
            #expect(reading.activityTypes.first?.declaredBy == "source")
            #expect(reading.activityTypes.first?.origin == "OrderWidget.swift:4")
            #expect(reading.warnings == [])

            let shown = await Self.call(server, "GET", "/api/v1/activity-types/OrderAttributes", contentType: nil, body: [])
            #expect(shown.status == 200, "\(shown.text)")
            #expect(try shown.decode(ActivityTypeResource.self).origin == "OrderWidget.swift:4")
            let s0 = Int64(Date().timeIntervalSince1970)
            let start =
                #""event":"start","timestamp":\#(s0),"attributes-type":"OrderAttributes","attributes":{"orderID":"A1"},"content-state":{"stage":"cooking","etaMinutes":5},"alert":{"title":"t","body":"b"}"#
            let finding = server.activityTypes.check(Self.push(start), token: nil, now: PushInstant(millisecondsSinceEpoch: s0 * 1000))
            #expect(finding.violation?.explanation.hasPrefix("content-state.stage") == true, "\(String(describing: finding.violation))")

            // What the reader cannot check is answered as warnings, with the file and line.
            let partial = "struct TripAttributes: ActivityAttributes {\n  struct ContentState: Codable, Hashable { var leg: Leg }\n}\n"
            let partialReply = await Self.call(server, "PUT", "/api/v1/activity-types", contentType: "text/x-swift", body: Array(partial.utf8))
            #expect(partialReply.status == 200)
            let warnings = try partialReply.decode(ActivityTypeReading.self).warnings
            #expect(warnings.count == 1 && warnings[0].hasPrefix("request body:2: ") && warnings[0].contains("Leg"), "\(warnings)")
        }
    }

    @Test("no ActivityAttributes type, another content type, text that is not UTF-8, and a server without the reader each get a clear error")
    func refusals() async throws {
        var configuration = PushMockConfiguration.testing()
        configuration.swiftSourceReader = SwiftActivityTypes.reader
        try await withPushMockServer(configuration) { server in
            let none = await Self.call(server, "PUT", "/api/v1/activity-types", contentType: "text/x-swift", body: Array("struct A {}".utf8))
            #expect(
                none.status == 400 && none.errorMessage?.contains("no type in the body conforms to ActivityAttributes") == true, "\(none.text)")
            let json = await Self.call(
                server, "PUT", "/api/v1/activity-types", contentType: "application/json", body: Array(#"{"contentState":{}}"#.utf8))
            #expect(json.status == 415 && json.errorMessage?.contains("PUT /api/v1/activity-types/{name}") == true, "\(json.text)")
            let missing = await Self.call(server, "PUT", "/api/v1/activity-types", contentType: nil, body: Array(Self.widget.utf8), client: true)
            #expect(missing.status == 415)
            let binary = await Self.call(server, "PUT", "/api/v1/activity-types", contentType: "text/x-swift", body: [0xFF, 0xFE, 0x00])
            #expect(binary.status == 400 && binary.errorMessage?.contains("UTF-8") == true)
        }
        try await withPushMockServer(.testing()) { server in
            let reply = await Self.call(server, "PUT", "/api/v1/activity-types", contentType: "text/x-swift", body: Array(Self.widget.utf8))
            #expect(reply.status == 501 && reply.errorMessage?.contains("does not read Swift source") == true, "\(reply.text)")
        }
    }
}
