import PushMockCore

/// Every answer PushMock can give that is not a plain success, with a request that produces it:
/// the one list behind the web page's catalogue and `pushmock rejections`.
public enum RejectionCatalogue {
    /// The entries, APNs first, then Live Activity rules, FCM, and Web Push.
    public static let entries: [RejectionEntry] = apns + liveActivity + fcm + webPush

    /// The entry `id`.
    public static func entry(_ id: String) -> RejectionEntry? {
        entries.first { $0.id == id }
    }

    typealias Step = RejectionEntry.Step

    private static func header(_ name: String, _ value: String) -> HeaderField { HeaderField(name: name, value: value) }

    /// An alert push to `{device}` with the given headers replaced or added (a nil value removes one).
    static func alert(
        path: String = "/3/device/{device}", method: String = "POST", body: String = #"{"aps":{"alert":{"title":"PushMock","body":"catalogue"}}}"#,
        auth: Step.Auth = .apns(age: 0), _ changes: [(String, String?)] = []
    ) -> Step {
        var headers: [HeaderField] = [header("apns-topic", "{topic}"), header("apns-push-type", "alert"), header("apns-priority", "10")]
        for (name, value) in changes {
            if let index = headers.firstIndex(where: { $0.name == name }) {
                if let value { headers[index].value = value } else { headers.remove(at: index) }
            } else if let value {
                headers.append(header(name, value))
            }
        }
        return Step(method: method, path: path, headers: headers, body: body, auth: auth)
    }

    static func apnsEntry(
        _ id: String, _ reason: APNSRejectionReason, trigger: String, reference: String, path: String? = nil,
        device: RejectionEntry.DeviceSetup? = nil,
        viaFault: String? = nil, _ steps: [Step]
    ) -> RejectionEntry {
        RejectionEntry(
            "apns-\(id)", "apns", reason.status, reason.reason, trigger: trigger, reference: reference, path: path, device: device,
            viaFault: viaFault, steps: steps)
    }

    static let apns: [RejectionEntry] = [
        apnsEntry(
            "bad-collapse-id", .badCollapseID, trigger: "apns-collapse-id longer than 64 bytes",
            reference: "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns",
            path: "header:apns-collapse-id",
            [alert([("apns-collapse-id", String(repeating: "c", count: 65))])]),
        apnsEntry(
            "bad-device-token", .badDeviceToken, trigger: "a device token that is not 64 hexadecimal digits",
            reference: "https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns", path: "header::path",
            [alert(path: "/3/device/not-a-device-token")]),
        apnsEntry(
            "bad-expiration-date", .badExpirationDate, trigger: "apns-expiration that is not a number of seconds",
            reference: "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns",
            path: "header:apns-expiration",
            [alert([("apns-expiration", "tomorrow")])]),
        apnsEntry(
            "bad-message-id", .badMessageID, trigger: "apns-id that is not a UUID",
            reference: "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns", path: "header:apns-id",
            [alert([("apns-id", "not-a-uuid")])]),
        apnsEntry(
            "bad-priority", .badPriority, trigger: "apns-priority other than 1, 5 or 10",
            reference: "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns",
            path: "header:apns-priority",
            [alert([("apns-priority", "7")])]),
        apnsEntry(
            "bad-topic", .badTopic, trigger: "a liveactivity push whose topic lacks .push-type.liveactivity",
            reference: "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns", path: "header:apns-topic",
            [alert(body: #"{"aps":{"event":"update","timestamp":{now},"content-state":{"score":"1-0"}}}"#, [("apns-push-type", "liveactivity")])]),
        apnsEntry(
            "bad-topic-widgets", .badTopic, trigger: "a WidgetKit (widgets) push whose topic lacks .push-type.widgets",
            reference: "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns", path: "header:apns-topic",
            [alert(body: #"{"aps":{"content-changed":true}}"#, [("apns-push-type", "widgets"), ("apns-priority", "5")])]),
        apnsEntry(
            "device-token-not-for-topic", .deviceTokenNotForTopic, trigger: "a registered device of another app",
            reference: "https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns",
            path: "header:apns-topic",
            device: .record(DeviceRecord(bundleID: "com.example.another-app")), [alert()]),
        apnsEntry(
            "duplicate-headers", .duplicateHeaders, trigger: "apns-topic sent twice",
            reference: "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns", path: "header:apns-topic",
            [alert([("apns-topic", "{topic}")]).appending(header("apns-topic", "{topic}"))]),
        apnsEntry(
            "idle-timeout", .idleTimeout, trigger: "a connection idle for longer than the idle timeout is closed with GOAWAY",
            reference: "https://developer.apple.com/documentation/usernotifications/setting-up-a-remote-notification-server",
            viaFault: "a connection-level answer (GOAWAY on an idle connection); shown through a one-shot fault", [alert()]),
        apnsEntry(
            "invalid-push-type", .invalidPushType, trigger: "apns-push-type that APNs does not know",
            reference: "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns",
            path: "header:apns-push-type",
            [alert([("apns-push-type", "banner")])]),
        apnsEntry(
            "missing-device-token", .missingDeviceToken, trigger: "a path without a device token",
            reference: "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns", path: "header::path",
            [alert(path: "/3/device/")]),
        apnsEntry(
            "missing-topic", .missingTopic, trigger: "no apns-topic with token authentication",
            reference: "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns", path: "header:apns-topic",
            [alert([("apns-topic", nil)])]),
        apnsEntry(
            "payload-empty", .payloadEmpty, trigger: "an empty body",
            reference:
                "https://developer.apple.com/documentation/activitykit/starting-and-updating-live-activities-with-activitykit-push-notifications",
            [alert(body: "")]),
        apnsEntry(
            "topic-disallowed", .topicDisallowed, trigger: "a topic the provider token's team does not own",
            reference: "https://developer.apple.com/documentation/usernotifications/establishing-a-token-based-connection-to-apns",
            path: "header:apns-topic",
            viaFault: "needs bundle ids registered to teams (--apns-bundle); a sample server accepts any topic of its team", [alert()]),
        apnsEntry(
            "bad-payload", .badPayload, trigger: "a body that is not a JSON object (PushMock's choice where Apple is silent)",
            reference: "docs/apns.md#choices-where-apple-is-silent-all-configurable",
            [alert(body: "[1,2,3]")]),
        apnsEntry(
            "bad-certificate", .badCertificate, trigger: "a client certificate APNs does not trust",
            reference: "https://developer.apple.com/documentation/usernotifications/establishing-a-certificate-based-connection-to-apns",
            viaFault: "needs a certificate connection; shown through a one-shot fault", [alert()]),
        apnsEntry(
            "bad-certificate-environment", .badCertificateEnvironment, trigger: "a certificate for the other environment",
            reference: "https://developer.apple.com/documentation/usernotifications/establishing-a-certificate-based-connection-to-apns",
            viaFault: "needs a certificate connection; shown through a one-shot fault", [alert()]),
        apnsEntry(
            "expired-provider-token", .expiredProviderToken, trigger: "a provider token issued more than an hour ago",
            reference: "https://developer.apple.com/documentation/usernotifications/establishing-a-token-based-connection-to-apns",
            path: "header:authorization",
            [alert(auth: .apns(age: 3700))]),
        apnsEntry(
            "forbidden", .forbidden, trigger: "APNs refuses the request for a reason it does not name",
            reference: "https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns",
            viaFault: "Apple does not document a trigger; shown through a one-shot fault", [alert()]),
        apnsEntry(
            "invalid-provider-token", .invalidProviderToken, trigger: "a provider token whose signature does not verify",
            reference: "https://developer.apple.com/documentation/usernotifications/establishing-a-token-based-connection-to-apns",
            path: "header:authorization",
            [alert(auth: .apnsTampered)]),
        apnsEntry(
            "missing-provider-token", .missingProviderToken, trigger: "no authorization header on a connection without a client certificate",
            reference: "https://developer.apple.com/documentation/usernotifications/establishing-a-token-based-connection-to-apns",
            path: "header:authorization",
            [alert(auth: .none)]),
        apnsEntry(
            "unrelated-key-id-in-token", .unrelatedKeyIDInToken,
            trigger: "a token signed by another key of the team on a connection bound to the first",
            reference: "https://developer.apple.com/documentation/usernotifications/establishing-a-token-based-connection-to-apns",
            viaFault: "needs two keys of one team (--apns-key twice); shown through a one-shot fault", [alert()]),
        apnsEntry(
            "bad-environment-key-in-token", .badEnvironmentKeyInToken, trigger: "a key for one environment used in the other",
            reference: "https://developer.apple.com/documentation/usernotifications/establishing-a-token-based-connection-to-apns",
            viaFault: "needs a key scoped to one environment (--apns-key …:production); shown through a one-shot fault", [alert()]),
        apnsEntry(
            "bad-path", .badPath, trigger: "a path other than /3/device/<token>",
            reference: "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns", path: "header::path",
            [alert(path: "/3/devices/{device}")]),
        apnsEntry(
            "method-not-allowed", .methodNotAllowed, trigger: "a method other than POST",
            reference: "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns", path: "header::method",
            [alert(method: "PUT")]),
        apnsEntry(
            "expired-token", .expiredToken, trigger: "a device token that has expired",
            reference: "https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns",
            device: .record(DeviceRecord(state: .expired)), [alert()]),
        apnsEntry(
            "unregistered", .unregistered, trigger: "a device whose app was removed (410 with a timestamp)",
            reference: "https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns",
            device: .unregistered, [alert()]),
        apnsEntry(
            "payload-too-large", .payloadTooLarge, trigger: "a payload over 4096 bytes",
            reference:
                "https://developer.apple.com/documentation/activitykit/starting-and-updating-live-activities-with-activitykit-push-notifications",
            [alert(body: #"{"aps":{"alert":"{big}"}}"#)]),
        apnsEntry(
            "too-many-provider-token-updates", .tooManyProviderTokenUpdates,
            trigger: "a new provider token less than 20 minutes after the last on one connection",
            reference: "https://developer.apple.com/documentation/usernotifications/establishing-a-token-based-connection-to-apns",
            path: "header:authorization",
            [alert(auth: .apns(age: 0)), alert(auth: .apns(age: 1))]),
        apnsEntry(
            "too-many-requests", .tooManyRequests, trigger: "too many pushes to one device",
            reference: "https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns",
            viaFault: "Apple's rate is unpublished; shown through a one-shot fault", [alert()]),
        apnsEntry(
            "internal-server-error", .internalServerError, trigger: "an error inside APNs",
            reference: "https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns",
            viaFault: "a server-side failure", [alert()]),
        apnsEntry(
            "service-unavailable", .serviceUnavailable, trigger: "APNs is unavailable",
            reference: "https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns",
            viaFault: "a server-side failure", [alert()]),
        apnsEntry(
            "shutdown", .shutdown, trigger: "the APNs server is shutting down",
            reference: "https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns",
            viaFault: "a server-side failure", [alert()]),
    ]

    static func liveActivityEntry(_ rule: LiveActivityRule, trigger: String, path: String, aps: String) -> RejectionEntry {
        // LiveActivityTimestampInMilliseconds → timestamp-in-milliseconds, LiveActivityMissingAPS → missing-aps.
        var slug = ""
        var previous: Character?
        for character in rule.reason.dropFirst("LiveActivity".count) {
            if character.isUppercase, let previous, previous.isLowercase { slug += "-" }
            slug += character.lowercased()
            previous = character
        }
        let body = aps.isEmpty ? #"{"alert":"no aps"}"# : #"{"aps":{\#(aps)}}"#
        return RejectionEntry(
            "liveactivity-\(slug)", "liveactivity", rule.status, rule.reason, trigger: trigger,
            reference:
                "https://developer.apple.com/documentation/activitykit/starting-and-updating-live-activities-with-activitykit-push-notifications",
            path: path,
            steps: [alert(body: body, [("apns-topic", "{topic}.push-type.liveactivity"), ("apns-push-type", "liveactivity")])]
        )
    }

    private static let state = #""content-state":{"score":"1-0"}"#

    static let liveActivity: [RejectionEntry] = [
        liveActivityEntry(.missingAPS, trigger: "a Live Activity payload without aps", path: "aps", aps: ""),
        liveActivityEntry(.missingEvent, trigger: "no aps.event", path: "aps", aps: #""timestamp":{now},\#(state)"#),
        liveActivityEntry(
            .invalidEvent, trigger: "aps.event other than start, update or end", path: "aps.event",
            aps: #""event":"refresh","timestamp":{now},\#(state)"#),
        liveActivityEntry(.missingTimestamp, trigger: "no aps.timestamp", path: "aps", aps: #""event":"update",\#(state)"#),
        liveActivityEntry(
            .timestampNotInteger, trigger: "aps.timestamp as a string or fraction", path: "aps.timestamp",
            aps: #""event":"update","timestamp":"{now}",\#(state)"#),
        liveActivityEntry(
            .timestampInMilliseconds, trigger: "aps.timestamp in milliseconds", path: "aps.timestamp",
            aps: #""event":"update","timestamp":{nowMs},\#(state)"#),
        liveActivityEntry(
            .timestampStale, trigger: "aps.timestamp two hours ago", path: "aps.timestamp", aps: #""event":"update","timestamp":{stale},\#(state)"#),
        liveActivityEntry(
            .timestampInFuture, trigger: "aps.timestamp two hours ahead", path: "aps.timestamp",
            aps: #""event":"update","timestamp":{future},\#(state)"#),
        liveActivityEntry(
            .missingContentState, trigger: "an update without aps.content-state", path: "aps", aps: #""event":"update","timestamp":{now}"#),
        liveActivityEntry(
            .contentStateNotObject, trigger: "aps.content-state that is not an object", path: "aps.content-state",
            aps: #""event":"update","timestamp":{now},"content-state":"1-0""#),
        liveActivityEntry(
            .missingAttributesType, trigger: "a start without aps.attributes-type", path: "aps",
            aps: #""event":"start","timestamp":{now},\#(state),"attributes":{"home":"A"},"alert":{"title":"Kick-off","body":"A v B"}"#),
        liveActivityEntry(
            .missingAttributes, trigger: "a start without aps.attributes", path: "aps",
            aps: #""event":"start","timestamp":{now},\#(state),"attributes-type":"MatchAttributes","alert":{"title":"Kick-off","body":"A v B"}"#),
        liveActivityEntry(
            .missingAlert, trigger: "a start without aps.alert", path: "aps",
            aps: #""event":"start","timestamp":{now},\#(state),"attributes-type":"MatchAttributes","attributes":{"home":"A"}"#),
        liveActivityEntry(
            .soundOutsideAlert, trigger: "aps.sound beside aps.alert", path: "aps.sound",
            aps: #""event":"update","timestamp":{now},\#(state),"sound":"default""#),
        liveActivityEntry(
            .inputPushOnlyOnStart, trigger: "input-push-token on an update", path: "aps.input-push-token",
            aps: #""event":"update","timestamp":{now},\#(state),"input-push-token":1"#),
        liveActivityEntry(
            .invalidInputPushToken, trigger: "input-push-token other than 1", path: "aps.input-push-token",
            aps:
                #""event":"start","timestamp":{now},\#(state),"attributes-type":"MatchAttributes","attributes":{"home":"A"},"alert":{"title":"Kick-off","body":"A v B"},"input-push-token":2"#
        ),
        liveActivityEntry(
            .invalidDismissalDate, trigger: "aps.dismissal-date that is not whole seconds", path: "aps.dismissal-date",
            aps: #""event":"end","timestamp":{now},\#(state),"dismissal-date":"soon""#),
        liveActivityEntry(
            .invalidStaleDate, trigger: "aps.stale-date that is not whole seconds", path: "aps.stale-date",
            aps: #""event":"update","timestamp":{now},\#(state),"stale-date":"later""#),
        liveActivityEntry(
            .invalidRelevanceScore, trigger: "aps.relevance-score that is not a number", path: "aps.relevance-score",
            aps: #""event":"update","timestamp":{now},\#(state),"relevance-score":"high""#),
    ]

    static func message(
        _ message: String = #"{"token":"{fcmToken}","notification":{"title":"PushMock","body":"catalogue"}}"#, auth: Step.Auth = .fcm
    ) -> Step {
        Step(
            method: "POST", path: "/v1/projects/{project}/messages:send", headers: [header("content-type", "application/json")],
            body: #"{"message":\#(message)}"#, auth: auth)
    }

    static func fcmEntry(
        _ code: FCMErrorCode, _ trigger: String, path: String? = nil, device: RejectionEntry.DeviceSetup? = nil, viaFault: String? = nil,
        _ step: Step = message()
    ) -> RejectionEntry {
        RejectionEntry(
            "fcm-\(code.rawValue.lowercased().replacing("_", with: "-"))", "fcm", code.httpStatus, code.rawValue, trigger: trigger,
            reference: "https://firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode",
            path: path, device: device, viaFault: viaFault, steps: [step])
    }

    static let fcm: [RejectionEntry] = [
        fcmEntry(
            .invalidArgument, "a field FCM's schema refuses (here android.ttl without its unit)", path: "message.android.ttl",
            message(#"{"token":"{fcmToken}","android":{"ttl":"3600"}}"#)),
        fcmEntry(.unregistered, "a registration token whose app instance is gone", device: .unregisteredInSendingProject),
        fcmEntry(.senderIDMismatch, "a registration token of another project", device: .record(DeviceRecord(fcmProject: "another-project"))),
        fcmEntry(
            .quotaExceeded, "too many messages for the project or device",
            viaFault: "FCM's quotas are not emulated by default; shown through a one-shot fault"),
        fcmEntry(.unavailable, "FCM is overloaded", viaFault: "a server-side failure"),
        fcmEntry(.internal, "an error inside FCM", viaFault: "a server-side failure"),
        fcmEntry(
            .thirdPartyAuthError, "APNs or Web Push refused FCM's credentials",
            viaFault: "needs the app's APNs credentials in Firebase to be wrong; shown through a one-shot fault"),
        RejectionEntry(
            "fcm-credentials-missing", "fcm", 401, "CREDENTIALS_MISSING", trigger: "messages:send without an access token",
            reference: "https://developers.google.com/identity/protocols/oauth2/service-account",
            path: "header:authorization", steps: [message(auth: .none)]),
        RejectionEntry(
            "fcm-access-token-type-unsupported", "fcm", 401, "ACCESS_TOKEN_TYPE_UNSUPPORTED",
            trigger: "a bearer that is not an access token PushMock issued",
            reference: "https://developers.google.com/identity/protocols/oauth2/service-account",
            path: "header:authorization", steps: [message(auth: .literal("Bearer ya29.not-issued-by-pushmock"))]),
    ]
}

extension RejectionEntry.Step {
    func appending(_ field: HeaderField) -> Self {
        var copy = self
        copy.headers.append(field)
        return copy
    }
}
