import ArgumentParser
import Foundation
import NIOSSL
import PushMockCore
import PushMockServer

/// `pushmock send apns|fcm`: sends one push to a running PushMock (or any APNs/FCM-compatible
/// URL) with credentials minted from `Certs/`, prints the answer and, from the inspection API, how
/// PushMock recorded it.
///
/// ```sh
/// pushmock send apns --alert "Hello"
/// pushmock send apns --device $ACT --live-activity update --content-state '{"score":"1-0"}'
/// pushmock send apns --payload push.apns        # a payload file, as `xcrun simctl push` takes
/// pushmock send fcm --title Hello --body World
/// pushmock send webpush --title Hello --body World   # mints a subscription, encrypts, signs VAPID
/// ```
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send a push to a running PushMock and print the answer and how it was recorded.",
        subcommands: [APNS.self, FCM.self, WebPush.self]
    )

    /// Where to send and how to trust it.
    struct Target: ParsableArguments {
        @Option(help: "The push port's base URL (default: the server's, from its inspection API; else https://localhost:2197).")
        var url: String?

        @Option(help: "The CA to trust for the push port, PEM (default: the server's, from its inspection API; else the local data directory's).")
        var ca: String?

        @Option(
            help:
                "The inspection API's base URL: where the server's CA and sample credentials come from, and how the push was recorded (default $PUSHMOCK_URL, else a running server's locator file, else http://127.0.0.1:2198); none: use neither."
        )
        var inspectionURL: String?

        @Option(help: "The inspection token, if the server wants one (default $PUSHMOCK_TOKEN or $PUSHMOCK_INSPECTION_TOKEN).")
        var inspectionToken: String?

        @Flag(help: "Exit 0 whatever the answer (by default an answer other than 2xx exits 1).")
        var allowRejection = false

        /// The inspection API to use, nil for `--inspection-url none`.
        var endpoint: InspectionEndpoint? {
            inspectionURL == "none" ? nil : InspectionEndpoint.resolve(url: inspectionURL, token: inspectionToken)
        }
    }

    struct APNS: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "apns", abstract: "Send an APNs push (token authentication).")

        @OptionGroup var target: Target

        @Option(help: "The device (or activity push) token.")
        var device = String(repeating: "ab", count: 32)

        @Option(help: "apns-topic (default: the bundle id, with .push-type.liveactivity for --live-activity).")
        var topic: String?

        @Option(help: "The app's bundle id.")
        var bundle = "com.example.app"

        @Option(help: "apns-push-type (default alert, or liveactivity for --live-activity).")
        var pushType: String?

        @Option(help: "apns-priority.")
        var priority: Int?

        @Option(help: "A payload file ({\"aps\": …}); a \"Simulator Target Bundle\" key is used as the bundle and removed.")
        var payload: String?

        @Option(help: "An alert with this body (and --title).")
        var alert: String?

        @Option(help: "The alert title.")
        var title: String?

        @Option(help: "A Live Activity event: start, update or end (aps.timestamp is now).")
        var liveActivity: String?

        @Option(help: "The Live Activity content-state (JSON object).")
        var contentState: String?

        @Option(help: "A start's attributes-type.")
        var attributesType: String?

        @Option(help: "A start's attributes (JSON object).")
        var attributes: String?

        @OptionGroup var keyOptions: APNSKeyOptions

        func run() async throws {
            let now = Int64(Date().timeIntervalSince1970)
            var bundleID = bundle
            let body = try SendPayload.apns(
                file: payload, alert: alert, title: title, liveActivity: liveActivity, contentState: contentState,
                attributesType: attributesType, attributes: attributes, now: now, bundle: &bundleID
            )
            let type = pushType ?? (liveActivity == nil ? "alert" : "liveactivity")
            try await SendClient.run(target) { client in
                let jwt = try keyOptions.token(issuedAt: now, server: client.server)
                var headers = [
                    ("authorization", "bearer \(jwt)"),
                    ("apns-topic", topic ?? (type == "liveactivity" ? "\(bundleID).push-type.liveactivity" : bundleID)),
                    ("apns-push-type", type),
                ]
                if let priority { headers.append(("apns-priority", String(priority))) }
                let answer = try await client.post("\(client.pushURL)/3/device/\(device)", headers: headers, body: body)
                print("\(answer.status)\(answer.headers.first { $0.0 == "apns-id" }.map { " apns-id: \($0.1)" } ?? "")")
                if !answer.body.isEmpty { print(answer.body) }
                await client.printRecorded(filter: "service=apns&token=\(device)")
                try client.finish(status: answer.status)
            }
        }
    }

    struct FCM: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "fcm", abstract: "Send an FCM HTTP v1 message (OAuth with the service account).")

        @OptionGroup var target: Target

        @Option(help: "The registration token.")
        var token = "dGVzdC1pbnN0YW5jZS0wMDAx:APA91b" + String(repeating: "Fk3", count: 40)

        @Option(help: "A topic instead of a token.")
        var topic: String?

        @Option(help: "A Firebase installation ID instead of a token (22 characters, the first c, d, e or f; e.g. \(Self.sampleFID)).")
        var fid: String?

        /// A real-shaped installation ID for examples.
        static let sampleFID = "cPushMockSampleFID0001"

        func validate() throws {
            if topic != nil, fid != nil { throw ValidationError("give --topic or --fid, not both") }
            if androidV2 == .backgroundSync, title != nil || body != nil {
                throw ValidationError("--android-v2 background-sync sends no notification: leave out --title and --body")
            }
            if androidV2 != nil, message != nil { throw ValidationError("give --android-v2 or --message, not both") }
        }

        @Option(
            name: .customLong("android-v2"),
            help: """
                Send as AndroidConfigV2 (message.android_v2, preview): remote-notification (title and body in its notification) \
                or background-sync (a data message).
                """)
        var androidV2: SendPayload.AndroidV2?

        @Option(help: "The notification title.")
        var title: String?

        @Option(help: "The notification body.")
        var body: String?

        @Option(help: "A message file ({\"message\": …}); its target is kept.")
        var message: String?

        @OptionGroup var serviceAccount: ServiceAccountOptions

        func run() async throws {
            let payload = try SendPayload.fcm(
                file: message, token: topic == nil && fid == nil ? token : nil, topic: topic, fid: fid, title: title, body: body,
                androidV2: androidV2)
            try await SendClient.run(target) { client in
                let account = try serviceAccount.load(server: client.server).account
                let assertion = try serviceAccount.jwt(audience: "\(client.pushURL)/token", server: client.server)
                let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
                let issued = try await client.post(
                    "\(client.pushURL)/token", headers: [("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
                guard issued.status == 200, case .string(let accessToken)? = JSONValue.parse(Array(issued.body.utf8))?["access_token"] else {
                    throw ValidationError("the token endpoint answered \(issued.status): \(issued.body)")
                }
                let answer = try await client.post(
                    "\(client.pushURL)/v1/projects/\(account.projectID)/messages:send",
                    headers: [("authorization", "Bearer \(accessToken)"), ("content-type", "application/json")], body: payload
                )
                print(answer.status)
                print(answer.body)
                await client.printRecorded(filter: "service=fcm&project=\(account.projectID)")
                try client.finish(status: answer.status)
            }
        }
    }
}

/// The payloads `pushmock send` builds.
enum SendPayload {
    /// An APNs payload from a file or from the common fields.
    static func apns(
        file: String?, alert: String?, title: String?, liveActivity: String?, contentState: String?, attributesType: String?,
        attributes: String?, now: Int64, bundle: inout String
    ) throws -> [UInt8] {
        if let file {
            guard let data = FileManager.default.contents(atPath: file), case .object(var members)? = JSONValue.parse(Array(data)) else {
                throw ValidationError("\(file) is not a JSON object payload")
            }
            if case .string(let target)? = JSONValue.object(members)["Simulator Target Bundle"] {
                bundle = target
                members.removeAll { $0.key == "Simulator Target Bundle" }
            }
            return try encode(.object(members))
        }
        var aps: [(key: String, value: JSONValue)] = []
        if let alert {
            aps.append(("alert", title.map { .object([("title", .string($0)), ("body", .string(alert))]) } ?? .string(alert)))
        }
        if let event = liveActivity {
            guard ["start", "update", "end"].contains(event) else { throw ValidationError("--live-activity is start, update or end, got \(event)") }
            aps.append(("event", .string(event)))
            aps.append(("timestamp", .number(String(now))))
            if let contentState {
                guard case .object? = JSONValue.parse(Array(contentState.utf8)) else {
                    throw ValidationError("--content-state must be a JSON object")
                }
                aps.append(("content-state", JSONValue.parse(Array(contentState.utf8))!))
            }
            if event == "start" {
                aps.append(("attributes-type", .string(attributesType ?? "ActivityAttributes")))
                let parsed = attributes.flatMap { JSONValue.parse(Array($0.utf8)) } ?? .object([])
                guard case .object = parsed else { throw ValidationError("--attributes must be a JSON object") }
                aps.append(("attributes", parsed))
                if alert == nil { aps.append(("alert", .object([("title", .string(title ?? "Started")), ("body", .string("Live Activity"))]))) }
            }
        }
        guard !aps.isEmpty else { throw ValidationError("give --payload, --alert or --live-activity") }
        return try encode(.object([("aps", .object(aps))]))
    }

    /// `--android-v2`: which member of AndroidConfigV2's union.
    enum AndroidV2: String, CaseIterable, ExpressibleByArgument {
        case remoteNotification = "remote-notification"
        case backgroundSync = "background-sync"
    }

    /// An FCM message from a file or from the common fields.
    static func fcm(
        file: String?, token: String?, topic: String?, fid: String? = nil, title: String?, body: String?, androidV2: AndroidV2? = nil
    ) throws -> [UInt8] {
        if let file {
            guard let data = FileManager.default.contents(atPath: file), case .object? = JSONValue.parse(Array(data))?["message"] else {
                throw ValidationError("\(file) is not an FCM request body ({\"message\": …})")
            }
            return Array(data)
        }
        var message: [(key: String, value: JSONValue)] = []
        if let topic {
            message.append(("topic", .string(topic)))
        } else if let fid {
            message.append(("fid", .string(fid)))
        } else if let token {
            message.append(("token", .string(token)))
        }
        let notification = JSONValue.object([("title", .string(title ?? "PushMock")), ("body", .string(body ?? "Hello"))])
        switch androidV2 {
        case nil:
            message.append(("notification", notification))
        case .remoteNotification:
            message.append(("android_v2", .object([("remote_notification", .object([("notification", notification)]))])))
        case .backgroundSync:
            message.append(("data", .object([("pushmock", .string("background-sync"))])))
            message.append(("android_v2", .object([("background_sync", .object([]))])))
        }
        return try encode(.object([("message", .object(message))]))
    }

    /// `value` as JSON, its members in the order given.
    static func encode(_ value: JSONValue) throws -> [UInt8] {
        value.compactText
    }
}
