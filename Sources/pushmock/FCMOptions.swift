import ArgumentParser
import Foundation
import PushMockCore
import PushMockServer

/// FCM, OAuth and Instance ID.
struct FCMOptions: ParsableArguments {
    @Option(
        name: .customLong("fcm-service-account"),
        help: "Register an FCM service account key file (Google's JSON format). Repeatable; Certs/fcm-service-account.json is always registered.")
    var fcmServiceAccounts: [String] = []

    @Option(name: .customLong("fcm-token-path"), help: "Path of the OAuth2 token endpoint on the push port (default /token).")
    var fcmTokenPath: String?

    @Flag(
        name: .customLong("fcm-lenient-tokens"),
        help: "Accept any <id>:<token> registration token, not only real-looking ones (<id>:APA91b…, 100+ characters).")
    var fcmLenientTokens = false

    @Option(
        help:
            "An FCM registration token or installation ID whose device record has lastActiveAt older than this many days answers 404 UNREGISTERED, as FCM does for stale tokens (default 270; 0 never)."
    )
    var fcmStaleTokenDays: Int?

    @Flag(
        name: .customLong("iid-lenient-auth"),
        help:
            "Accept Instance ID (/iid/…) requests with a bearer token but without the `access_token_auth: true` header (default: 401 Unauthorized, as Instance ID reads it as a server key)."
    )
    var iidLenientAuth = false

    @Option(
        name: .customLong("fcm-user-project"),
        help:
            "A project a user's token (authorized_user credentials) may name as its quota project (x-goog-user-project), besides the service accounts' projects. Repeatable. Others get 403 PERMISSION_DENIED, or 400 for an id no project can have, as from Google."
    )
    var fcmUserProjects: [String] = []

    @Option(
        name: .customLong("iid"),
        help:
            "The Instance ID server API (/iid/…), which Google turns down on 2027-09-29: available (served, with a dated diagnostic on every call) or turned-down (every call answered DeprecatedApi, PushMock's guess at Google's answer then)."
    )
    var instanceID: InstanceIDMode?

    func check() throws {
        if let fcmTokenPath, !fcmTokenPath.hasPrefix("/") {
            throw ValidationError("--fcm-token-path must start with / (got \(fcmTokenPath))")
        }
        if let days = fcmStaleTokenDays, !(0...36500).contains(days) {
            throw ValidationError("--fcm-stale-token-days must be 0 to 36500, got \(days)")
        }
    }

    func apply(to configuration: inout PushMockConfiguration) {
        if let days = fcmStaleTokenDays { configuration.fcm.staleTokenAfter = days == 0 ? nil : .seconds(Int64(days) * 86_400) }
        configuration.fcm.serviceAccounts += fcmServiceAccounts.map { .file($0) }
        if let fcmTokenPath { configuration.fcm.tokenPath = fcmTokenPath }
        if fcmLenientTokens { configuration.fcm.strictRegistrationTokens = false }
        if iidLenientAuth { configuration.fcm.requireAccessTokenAuth = false }
        if let instanceID { configuration.fcm.instanceID = instanceID }
        configuration.fcm.userProjects += fcmUserProjects
    }
}
