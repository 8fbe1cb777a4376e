import Foundation
import PushMockBytes
import PushMockCore
import Testing

/// Table-driven FCM message validation over `Fixtures/fcm/*.json`: each file has the request body
/// (taken byte for byte from the file, or `"RAW:<text>"`) and the expected status, Google message,
/// FcmError code and BadRequest field.
@Suite("FCM message validation, fixture by fixture")
struct FCMFixtureTests {
    static let fixtures: [String] = {
        let directory = Bundle.module.url(forResource: "Fixtures/fcm", withExtension: nil)!
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }()

    @Test("every fixture gets its expected answer", arguments: fixtures)
    func fixture(_ name: String) throws {
        let url = Bundle.module.url(forResource: "Fixtures/fcm/\(name)", withExtension: "json")!
        let file = Array(try Data(contentsOf: url))
        let fixture = try #require(try JSONSerialization.jsonObject(with: Data(file)) as? [String: Any])
        // The body exactly as written in the file (key order and duplicates matter).
        let body: [UInt8] = file.withByteView { bytes in
            let scanner = JSONScanner(bytes)
            let value = scanner.member("body", in: scanner.root!)!
            if value.kind == .string, let text = scanner.string(at: value), text.hasPrefix("RAW:") {
                return Array(text.dropFirst(4).utf8)
            }
            return Array(bytes[value.range])
        }
        let options = fixture["options"] as? [String: Any] ?? [:]
        let validator = FCMMessageValidator(strictRegistrationTokens: !(options["lenient"] as? Bool ?? false))
        let expect = try #require(fixture["expect"] as? [String: Any])
        do {
            let result = try validator.validate(body, now: PushInstant(secondsSinceEpoch: 1_767_225_600))
            #expect(expect["status"] as? Int == 200, "\(name) was accepted")
            if let target = expect["target"] as? String { #expect(result.target?.kind == target) }
            if let validateOnly = expect["validateOnly"] as? Bool { #expect(result.validateOnly == validateOnly) }
            if let live = expect["liveActivity"] as? Bool { #expect(result.isLiveActivity == live) }
            #expect(result.androidV2Kind?.rawValue == expect["androidV2"] as? String, "\(name): android_v2's kind")
        } catch {
            #expect(error.code == expect["status"] as? Int, "\(name): \(error.message)")
            #expect(error.message == expect["message"] as? String)
            #expect(error.fcmErrorCode?.rawValue == expect["errorCode"] as? String)
            let fields = error.details.compactMap { detail -> String? in
                if case .badRequest(let violations) = detail { return violations.first?.field }
                return nil
            }
            if let field = expect["field"] as? String {
                #expect(fields == [field])
            }
            // The envelope is valid JSON in Google's shape.
            let envelope = try JSONSerialization.jsonObject(with: Data(error.json.utf8)) as? [String: Any]
            let inner = envelope?["error"] as? [String: Any]
            #expect(inner?["code"] as? Int == error.code)
            #expect(inner?["status"] as? String == error.status)
            #expect(error.json.hasSuffix("}\n"))
        }
    }
}

@Suite("FCM errors and conditions")
struct FCMErrorTests {
    @Test("the envelope is pretty-printed as Google does")
    func envelope() {
        let error = GoogleError.fcm(.unregistered)
        #expect(
            error.json == """
                {
                  "error": {
                    "code": 404,
                    "message": "Requested entity was not found.",
                    "status": "NOT_FOUND",
                    "details": [
                      {
                        "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                        "errorCode": "UNREGISTERED"
                      }
                    ]
                  }
                }

                """)
    }

    @Test(
        "conditions list their topics",
        arguments: [
            ("'a' in topics", ["a"]),
            ("'a' in topics && !('b' in topics || \"c\" in topics)", ["a", "b", "c"]),
        ])
    func conditions(_ condition: String, _ topics: [String]) throws {
        #expect(try FCMCondition.topics(in: condition) == topics)
    }

    @Test("broken conditions are refused", arguments: ["a in topics", "'a' in", "'a' in topics &&", "('a' in topics", "'a b' in topics"])
    func brokenConditions(_ condition: String) {
        #expect(throws: FCMCondition.Problem.self) { try FCMCondition.topics(in: condition) }
    }
}
