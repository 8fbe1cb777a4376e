import Foundation
import PushMockInspection
import PushMockServer

/// An inspection answer read in a test.
struct InspectionReply {
    let response: InspectionResponse
    var status: Int { response.status }
    var text: String { String(decoding: response.body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:] }
    func header(_ name: String) -> String? { response.header(name) }
}

extension PushMockServer {
    /// Calls the inspection port's route table in-process, without a socket (as Hummingbird's
    /// `.router` test mode does); the few end-to-end tests use the real port.
    func inspect(_ method: String = "GET", _ target: String, body: String? = nil, headers: [(String, String)] = [("x-pushmock-client", "tests")]) async -> InspectionReply {
        let request = InspectionRequest(method: method, target: target, headers: headers.map { ($0.0, $0.1) }, body: body.map { Array($0.utf8) } ?? [])
        return InspectionReply(response: await inspection.respond(to: request).head)
    }
}
