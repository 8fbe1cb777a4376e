import PushMockCore
import Testing

/// `message.apns.headers` as FCM reads them: each of the five APNs headers it knows, by its name in
/// any case; any other name ignored. And `android.ttl`, checked against its four weeks on every
/// message of a connection, whatever the message before it carried.
@Suite("FCM: the APNs headers of a message, and its Android TTL")
struct FCMAPNSHeadersTests {
    static let token = "dGVzdC1pbnN0YW5jZS0wMDAx:APA91b" + String(repeating: "Fk3-_z", count: 25)

    static func message(apnsHeaders: String = "{}", android: String = "{}") -> [UInt8] {
        Array(#"{"message":{"token":"\#(token)","android":\#(android),"apns":{"headers":\#(apnsHeaders)}}}"#.utf8)
    }

    @Test("each known header by its name in any case; others ignored")
    func knownHeaders() throws {
        let headers = #"""
            {"APNS-Push-Type":"background","apns-topic":"com.example.app","Apns-Priority":"5","APNS-EXPIRATION":"0",
             "apns-collapse-id":"c1","apns-topics":"no","x-apns-priority":"no","apns-push-typ":"no"}
            """#
        let result = try FCMMessageValidator(strictRegistrationTokens: true).validate(Self.message(apnsHeaders: headers))
        #expect(result.apnsPushType == "background")
        #expect(result.apnsTopic == "com.example.app")
        #expect(result.apnsPriority == "5")
        #expect(result.apnsExpiration == "0")
        #expect(result.apnsCollapseID == "c1")
    }

    @Test(
        "apns-priority is kept as decoded: each of FCM's three values, escaped or not",
        arguments: [(#""10""#, "10"), (#""5""#, "5"), (#""1""#, "1"), (#""1\u0030""#, "10"), (#""\u0035""#, "5")])
    func priorityValues(written: String, kept: String) throws {
        let result = try FCMMessageValidator(strictRegistrationTokens: true).validate(Self.message(apnsHeaders: #"{"apns-priority":\#(written)}"#))
        #expect(result.apnsPriority == kept)
    }

    @Test("an escaped bad apns-priority is named as decoded")
    func escapedBadPriority() {
        do {
            _ = try FCMMessageValidator(strictRegistrationTokens: true).validate(Self.message(apnsHeaders: #"{"apns-priority":"\u0037"}"#))
            Issue.record("apns-priority 7 was accepted")
        } catch {
            #expect(error.message == "Invalid apns-priority: 7; expected 10, 5 or 1")
        }
    }

    @Test(
        "a bad value is refused under its header's name in any case",
        arguments: [
            (#"{"APNS-PRIORITY":"7"}"#, "Invalid apns-priority: 7; expected 10, 5 or 1"),
            (#"{"Apns-Expiration":"soon"}"#, "Invalid apns-expiration: soon; expected UNIX seconds"),
            (#"{"apns-push-type":"bogus"}"#, "Invalid apns-push-type: bogus"),
            (#"{"APNS-COLLAPSE-ID":"\#(String(repeating: "c", count: 65))"}"#, "The length of [apns-collapse-id] header must not exceed [64] bytes."),
        ])
    func badValues(headers: String, expected: String) {
        #expect(throws: GoogleError.self) { try FCMMessageValidator(strictRegistrationTokens: true).validate(Self.message(apnsHeaders: headers)) }
        do {
            _ = try FCMMessageValidator(strictRegistrationTokens: true).validate(Self.message(apnsHeaders: headers))
        } catch {
            #expect(error.message == expected)
        }
    }

    @Test("the TTL's four weeks are checked on each message of a connection")
    func ttlPerMessage() {
        let validator = FCMMessageValidator(strictRegistrationTokens: true)
        let scratch = FCMMessageValidator.Scratch()
        let tooLong = "The TTL must be between 0 and 2419200 seconds (4 weeks), got 2419201s"
        // The same places in each body: only the TTL's value changes.
        let sequence: [(ttl: String, refusal: String?)] = [
            ("3600s", nil), ("2419201s", tooLong), ("2419200s", nil), ("2419201s", tooLong), ("2419201s", tooLong), ("0s", nil),
        ]
        for (index, step) in sequence.enumerated() {
            let body = Self.message(android: #"{"ttl":"\#(step.ttl)"}"#)
            do {
                _ = try validator.validate(body, scratch: scratch)
                #expect(step.refusal == nil, "message \(index + 1) (\(step.ttl)) was accepted")
            } catch {
                #expect(error.message == step.refusal, "message \(index + 1) (\(step.ttl))")
            }
        }
    }
}
