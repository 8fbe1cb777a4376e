import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PushMockCore
import PushMockServer
import PushMockStore
import PushMockTestSupport
import PushMockTesting
import Testing

/// What real SDKs send and Google answers: installation-ID targets, user credentials with a quota
/// project, the metadata server, stale tokens, and a start on an unknown broadcast channel.
@Suite("What real SDKs send: FIDs, user credentials, the metadata server, stale tokens")
struct SDKFidelityTests {
    typealias F = FCMTestServer
    static let fid = "cPushMockSampleFID0001"
    static let client = OAuthUserClient.sample
    static let refreshToken = DevCertificates.sampleRefreshToken

    static func refresh(_ client: HTTPClient, port: Int, _ fields: [(String, String)]) async throws -> (Int, [String: Any]) {
        let form = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.1)" }.joined(separator: "&")
        let (response, body) = try await client.send(
            "https://localhost:\(port)/token", method: .POST, headers: [("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8)
        )
        return (Int(response.status.code), (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:])
    }

    static func errorCodes(_ json: [String: Any]) -> [String] {
        (((json["error"] as? [String: Any])?["details"] as? [[String: Any]]) ?? []).compactMap { $0["errorCode"] as? String }
    }

    @Test(
        "an update carrying input-push-channel: rejected under strict, dropped under apple, taken with a diagnostic when the setting says the device ignores it"
    )
    func inputPushOnUpdate() async throws {
        for (profile, ignore, status, outcome) in [
            (LiveActivityProfile.strict, false, 400, Delivery.Outcome.rejected), (.apple, false, 200, .dropped), (.strict, true, 200, .accepted),
        ] {
            var (configuration, clock) = LiveActivityTestServer.configuration()
            configuration.apns.options.liveActivity.profile = profile
            configuration.apns.options.liveActivity.ignoreInputPushOnUpdate = ignore
            try await withPushMockServer(configuration) { server in
                try await withHTTPClient { client in
                    let jwt = APNSTestServer.token(issuedAt: clock.nowSeconds)
                    let aps =
                        #""event":"update","timestamp":\#(clock.nowSeconds),"content-state":{"score":"1-0"},"input-push-channel":"dW5rbm93bg==""#
                    let (answered, _) = try await LiveActivityTestServer.send(
                        client, server, token: String(repeating: "ac", count: 32), jwt: jwt, aps: aps)
                    #expect(answered == status, "\(profile) ignore=\(ignore)")
                    let recorded = try await LiveActivityTestServer.newest(server)
                    #expect(recorded.outcome == outcome, "\(profile) ignore=\(ignore)")
                    if ignore {
                        #expect(recorded.diagnostics.contains { $0.contains("which the device ignores") })
                    } else {
                        #expect(recorded.reason == LiveActivityRule.inputPushOnlyOnStart.reason)
                    }
                }
            }
        }
    }

    @Test("an FID that cannot be an installation ID answers 404 UNREGISTERED, validate_only or not; the registry applies to FIDs")
    func installationIDs() async throws {
        try await withPushMockServer(F.configuration()) { server in
            let gone = "dGoneInstallationID001"
            let foreign = "eForeignInstallationID"
            server.devices.set(DeviceRecord(state: .unregistered(sinceMilliseconds: 1)), for: gone)
            server.devices.set(DeviceRecord(fcmProject: "someone-else"), for: foreign)
            try await withHTTPClient { client in
                let bearer = try await F.accessToken(client, port: server.pushPort)
                let (ok, json, _) = try await F.send(
                    client, port: server.pushPort, bearer: bearer, body: #"{"message":{"fid":"\#(Self.fid)","data":{"a":"b"}}}"#)
                #expect(ok == 200)
                #expect((json["name"] as? String)?.hasPrefix("projects/\(F.project)/messages/") == true)
                for body in [
                    #"{"message":{"fid":"not-a-fid"}}"#, #"{"validate_only":true,"message":{"fid":"not-a-fid"}}"#, #"{"message":{"fid":"\#(gone)"}}"#,
                ] {
                    let (status, error, _) = try await F.send(client, port: server.pushPort, bearer: bearer, body: body)
                    #expect(status == 404, "\(body)")
                    #expect(Self.errorCodes(error) == ["UNREGISTERED"], "\(body): \(error)")
                    #expect((error["error"] as? [String: Any])?["status"] as? String == "NOT_FOUND")
                }
                let (mismatch, error, _) = try await F.send(
                    client, port: server.pushPort, bearer: bearer, body: #"{"message":{"fid":"\#(foreign)"}}"#)
                #expect(mismatch == 403)
                #expect(Self.errorCodes(error) == ["SENDER_ID_MISMATCH"])
            }
            let recorded = try await server.deliveries(matching: DeliveryFilter(service: .fcm))
            #expect(recorded.count == 5)
            #expect(recorded.first?.deviceToken == Self.fid)
            #expect(recorded.first?.diagnostics.contains("target fid") == true)
            #expect(recorded.dropFirst().allSatisfy { $0.outcome == .rejected })
        }
    }

    @Test("the refresh-token grant of an authorized_user file: issued, and each of Google's errors")
    func refreshGrant() async throws {
        var configuration = F.configuration()
        configuration.fcm.refreshTokens = [Self.refreshToken]
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let port = server.pushPort
                let good = [
                    ("grant_type", "refresh_token"), ("client_id", Self.client.clientID), ("client_secret", Self.client.clientSecret!),
                    ("refresh_token", Self.refreshToken),
                ]
                let (status, issued) = try await Self.refresh(client, port: port, good)
                #expect(status == 200)
                #expect((issued["access_token"] as? String)?.hasPrefix("ya29.") == true)
                #expect(issued["token_type"] as? String == "Bearer")
                #expect(issued["expires_in"] as? Int == 3599)
                #expect(issued["scope"] as? String == OAuthTokenEndpoint.userDefaultScope)
                let (scoped, withScope) = try await Self.refresh(
                    client, port: port, good + [("scope", "https://www.googleapis.com/auth/firebase.messaging")])
                #expect(scoped == 200)
                #expect(withScope["scope"] as? String == "https://www.googleapis.com/auth/firebase.messaging")
                let cases: [([(String, String)], Int, String)] = [
                    (good.filter { $0.0 != "client_id" }, 400, "invalid_request"),
                    (good.filter { $0.0 != "refresh_token" }, 400, "invalid_request"),
                    (good.map { $0.0 == "client_id" ? ($0.0, "999-unknown.apps.googleusercontent.com") : $0 }, 401, "invalid_client"),
                    (good.map { $0.0 == "client_secret" ? ($0.0, "wrong") : $0 }, 401, "invalid_client"),
                    (good.map { $0.0 == "refresh_token" ? ($0.0, "not-a-refresh-token") : $0 }, 400, "invalid_grant"),
                    // Shaped like Google's, but not on the configured allow-list.
                    (good.map { $0.0 == "refresh_token" ? ($0.0, "1//0" + String(repeating: "x", count: 50)) : $0 }, 400, "invalid_grant"),
                ]
                for (fields, expected, error) in cases {
                    let (code, json) = try await Self.refresh(client, port: port, fields)
                    #expect(code == expected, "\(fields.map(\.0)): \(json)")
                    #expect(json["error"] as? String == error, "\(json)")
                }
            }
            let oauth = try await server.deliveries(matching: DeliveryFilter(service: .oauth))
            #expect(oauth.count == 8)
            #expect(oauth.first?.identity == AccessTokenStore.Grant.userPrefix + Self.client.clientID)
            #expect(
                oauth.filter { $0.outcome == .rejected }.map(\.reason) == [
                    "invalid_request", "invalid_request", "invalid_client", "invalid_client", "invalid_grant", "invalid_grant",
                ])
        }
    }

    @Test("any real-shaped refresh token is live by default; a user token sends only with a quota project it may use")
    func userTokenNeedsQuotaProject() async throws {
        try await withPushMockServer(F.configuration()) { server in
            try await withHTTPClient { client in
                let shaped = "1//0" + String(repeating: "Ab_-", count: 12)
                let (status, issued) = try await Self.refresh(
                    client, port: server.pushPort,
                    [
                        ("grant_type", "refresh_token"), ("client_id", OAuthUserClient.googleCloudSDK.clientID),
                        ("client_secret", OAuthUserClient.googleCloudSDK.clientSecret!), ("refresh_token", shaped),
                    ]
                )
                #expect(status == 200)
                let bearer = try #require(issued["access_token"] as? String)
                let url = "https://localhost:\(server.pushPort)/v1/projects/\(F.project)/messages:send"
                let body = Array(#"{"message":{"token":"\#(F.token)","data":{"a":"b"}}}"#.utf8)
                let (refused, refusedBody) = try await client.send(
                    url, method: .POST, headers: [("authorization", "Bearer \(bearer)"), ("content-type", "application/json")], body: body)
                #expect(refused.status.code == 403)
                let error = try #require((try JSONSerialization.jsonObject(with: Data(refusedBody)) as? [String: Any])?["error"] as? [String: Any])
                #expect(error["status"] as? String == "PERMISSION_DENIED")
                #expect((error["message"] as? String)?.contains("requires a quota project") == true)
                let details = error["details"] as? [[String: Any]] ?? []
                #expect(!details.contains { ($0["@type"] as? String)?.hasSuffix("FcmError") == true }, "no FcmError detail, as Google answers")
                #expect(details.first?["reason"] as? String == "SERVICE_DISABLED")
                let (sent, _) = try await client.send(
                    url, method: .POST,
                    headers: [("authorization", "Bearer \(bearer)"), ("content-type", "application/json"), ("x-goog-user-project", F.project)],
                    body: body
                )
                #expect(sent.status.code == 200)
                // A project the caller has no rights in, and one that cannot exist, as Google answers them.
                func withQuotaProject(_ project: String) async throws -> (UInt, [String: Any]) {
                    let (response, bytes) = try await client.send(
                        url, method: .POST,
                        headers: [("authorization", "Bearer \(bearer)"), ("content-type", "application/json"), ("x-goog-user-project", project)],
                        body: body)
                    let json = (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])?["error"] as? [String: Any] ?? [:]
                    return (response.status.code, json)
                }
                let (denied, deniedError) = try await withQuotaProject("someone-elses-project")
                #expect(denied == 403 && deniedError["status"] as? String == "PERMISSION_DENIED", "\(deniedError)")
                #expect(
                    (deniedError["message"] as? String)?.hasPrefix(
                        "Caller does not have required permission to use project someone-elses-project. Grant the caller the roles/serviceusage.serviceUsageConsumer role"
                    ) == true)
                let deniedDetails = deniedError["details"] as? [[String: Any]] ?? []
                #expect(deniedDetails.contains { $0["reason"] as? String == "USER_PROJECT_DENIED" })
                #expect(
                    deniedDetails.contains {
                        (($0["links"] as? [[String: Any]])?.first?["url"] as? String)?.hasSuffix("?project=someone-elses-project") == true
                    }, "\(deniedDetails)")
                let (invalid, invalidError) = try await withQuotaProject("No Such Project!")
                #expect(invalid == 400 && invalidError["status"] as? String == "INVALID_ARGUMENT", "\(invalidError)")
                #expect(invalidError["message"] as? String == "User project specified in the request is invalid.")
            }
            let fcm = try await server.deliveries(matching: DeliveryFilter(service: .fcm))
            #expect(fcm.map(\.status) == [403, 200, 403, 400])
            #expect(fcm[1].identity == AccessTokenStore.Grant.userPrefix + OAuthUserClient.googleCloudSDK.clientID)
        }
        // A project the configuration lets users use is taken; the file's key is read.
        var configuration = F.configuration()
        try configuration.load(contents: Array(#"{"fcm":{"userCredentials":{"projects":["team-shared-project"]}}}"#.utf8), path: "users.json")
        #expect(configuration.fcm.userProjects == ["team-shared-project"])
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let (_, issued) = try await Self.refresh(
                    client, port: server.pushPort,
                    [
                        ("grant_type", "refresh_token"), ("client_id", OAuthUserClient.googleCloudSDK.clientID),
                        ("client_secret", OAuthUserClient.googleCloudSDK.clientSecret!),
                        ("refresh_token", "1//0" + String(repeating: "Cd_-", count: 12)),
                    ]
                )
                let bearer = try #require(issued["access_token"] as? String)
                let (sent, _) = try await client.send(
                    "https://localhost:\(server.pushPort)/v1/projects/\(F.project)/messages:send", method: .POST,
                    headers: [
                        ("authorization", "Bearer \(bearer)"), ("content-type", "application/json"), ("x-goog-user-project", "team-shared-project"),
                    ],
                    body: Array(#"{"message":{"token":"\#(F.token)","data":{"a":"b"}}}"#.utf8))
                #expect(sent.status.code == 200)
            }
        }
    }

    @Test("a token inactive past the stale limit answers 404 UNREGISTERED; the limit is a setting")
    func staleTokens() async throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let day: Int64 = 86_400_000
        let stale = "c3RhbGUtdG9rZW4:APA91b" + String(repeating: "S", count: 100)
        let fresh = "ZnJlc2gtdG9rZW4:APA91b" + String(repeating: "R", count: 100)
        for limit in [Duration?.some(.seconds(270 * 86_400)), nil] {
            var configuration = F.configuration()
            configuration.fcm.staleTokenAfter = limit
            try await withPushMockServer(configuration) { server in
                server.devices.set(DeviceRecord(lastActiveMilliseconds: now - 271 * day), for: stale)
                server.devices.set(DeviceRecord(lastActiveMilliseconds: now - 269 * day), for: Self.fid)
                server.devices.set(DeviceRecord(lastActiveMilliseconds: now - 269 * day), for: fresh)
                try await withHTTPClient { client in
                    let bearer = try await F.accessToken(client, port: server.pushPort)
                    let (staleStatus, staleJSON, _) = try await F.send(
                        client, port: server.pushPort, bearer: bearer, body: #"{"message":{"token":"\#(stale)"}}"#)
                    #expect(staleStatus == (limit == nil ? 200 : 404))
                    if limit != nil { #expect(Self.errorCodes(staleJSON) == ["UNREGISTERED"]) }
                    for body in [#"{"message":{"token":"\#(fresh)"}}"#, #"{"message":{"fid":"\#(Self.fid)"}}"#] {
                        #expect(try await F.send(client, port: server.pushPort, bearer: bearer, body: body).0 == 200)
                    }
                }
            }
        }
        var file = PushMockConfiguration()
        try file.load(
            contents: Array(#"{"devices":{"\#(stale)":{"lastActiveAt":1700000000000}},"fcm":{"staleTokenDays":30}}"#.utf8), path: "stale.json")
        #expect(file.apns.devices[stale]?.lastActiveMilliseconds == 1_700_000_000_000)
        #expect(file.fcm.staleTokenAfter == .seconds(30 * 86_400))
        try file.load(contents: Array(#"{"fcm":{"staleTokenDays":0}}"#.utf8), path: "off.json")
        #expect(file.fcm.staleTokenAfter == nil)
        let error = #expect(throws: PushMockError.self) { try file.load(contents: Array(#"{"fcm":{"staleTokenDays":-1}}"#.utf8), path: "bad.json") }
        #expect(error?.message.contains("staleTokenDays") == true)
        let users = #expect(throws: PushMockError.self) {
            try file.load(contents: Array(#"{"fcm":{"userCredentials":{"clients":[{"clientSecret":"s"}]}}}"#.utf8), path: "users.json")
        }
        #expect(users?.message.contains("clientId") == true)
        try file.load(
            contents: Array(
                #"{"fcm":{"userCredentials":{"clients":[{"clientId":"1-a.apps.googleusercontent.com"}],"refreshTokens":["1//x"]}}}"#.utf8),
            path: "users.json")
        #expect(file.fcm.userClients == [OAuthUserClient(clientID: "1-a.apps.googleusercontent.com", clientSecret: nil)])
        #expect(file.fcm.refreshTokens == ["1//x"])
    }

    @Test("the metadata server: detection, the flavor header, a token that sends, the project; every request recorded")
    func metadataServer() async throws {
        var configuration = F.configuration()
        configuration.metadataPort = 0
        try await withPushMockServer(configuration) { server in
            let port = try #require(server.metadataPort)
            let base = "http://127.0.0.1:\(port)"
            try await withHTTPClient { client in
                let (ping, _) = try await client.send(base + "/", headers: [("metadata-flavor", "Google")])
                #expect(ping.status == .ok)
                #expect(ping.headers.first(name: "metadata-flavor") == "Google")
                let (noFlavor, _) = try await client.send(base + "/computeMetadata/v1/instance/service-accounts/default/token")
                #expect(noFlavor.status == .forbidden)
                let (project, projectBody) = try await client.send(
                    base + "/computeMetadata/v1/project/project-id", headers: [("metadata-flavor", "Google")])
                #expect(project.status == .ok)
                #expect(String(decoding: projectBody, as: UTF8.self) == F.project)
                let (info, infoBody) = try await client.send(
                    base + "/computeMetadata/v1/instance/service-accounts/default/?recursive=true", headers: [("metadata-flavor", "Google")])
                #expect(info.status == .ok)
                #expect((try JSONSerialization.jsonObject(with: Data(infoBody)) as? [String: Any])?["email"] as? String == F.account["client_email"])
                let (token, tokenBody) = try await client.send(
                    base
                        + "/computeMetadata/v1/instance/service-accounts/default/token?scopes=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Ffirebase.messaging",
                    headers: [("metadata-flavor", "Google")]
                )
                #expect(token.status == .ok)
                let json = try #require(try JSONSerialization.jsonObject(with: Data(tokenBody)) as? [String: Any])
                #expect(json["token_type"] as? String == "Bearer")
                let bearer = try #require(json["access_token"] as? String)
                let (sent, _, _) = try await F.send(client, port: server.pushPort, bearer: bearer, body: #"{"message":{"token":"\#(F.token)"}}"#)
                #expect(sent == 200)
                let (unknown, _) = try await client.send(base + "/computeMetadata/v1/instance/zone", headers: [("metadata-flavor", "Google")])
                #expect(unknown.status == .notFound)
                // A DNS-rebinding page sends its own name as Host; Google's names and loopback pass.
                let tokenPath = "/computeMetadata/v1/instance/service-accounts/default/token"
                let (rebound, reboundBody) = try await client.send(
                    base + tokenPath, headers: [("metadata-flavor", "Google"), ("host", "attacker.example:\(port)")])
                #expect(rebound.status.code == 421)
                #expect(String(decoding: reboundBody, as: UTF8.self).contains("attacker.example:\(port) is not one (DNS-rebinding guard)"))
                let (google, _) = try await client.send(
                    base + tokenPath, headers: [("metadata-flavor", "Google"), ("host", "metadata.google.internal")])
                #expect(google.status == .ok)
                let longScopes = String(repeating: "s", count: OAuthTokenEndpoint.maxScopeBytes + 1)
                let (tooLong, tooLongBody) = try await client.send(
                    base + tokenPath + "?scopes=" + longScopes, headers: [("metadata-flavor", "Google")])
                #expect(tooLong.status == .badRequest)
                #expect(String(decoding: tooLongBody, as: UTF8.self).contains("at most \(OAuthTokenEndpoint.maxScopeBytes) bytes of scopes"))
            }
            let oauth = try await server.deliveries(matching: DeliveryFilter(service: .oauth))
            #expect(oauth.count == 9)
            #expect(oauth.map(\.status) == [200, 403, 200, 200, 200, 404, 421, 200, 400])
            #expect(oauth[1].reason == "MissingMetadataFlavor")
            #expect(oauth[6].reason == "MisdirectedRequest")
            #expect(oauth[8].reason == "InvalidScopes")
        }
    }

    @Test(
        "a start whose input-push-channel names no channel is answered 200 and recorded as a start the device fails, in both profiles",
        arguments: LiveActivityProfile.allCases)
    func unknownInputPushChannel(profile: LiveActivityProfile) async throws {
        var (configuration, clock) = LiveActivityTestServer.configuration()
        configuration.apns.options.liveActivity.profile = profile
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let jwt = APNSTestServer.token(issuedAt: clock.nowSeconds)
                let now = clock.nowSeconds
                let (status, _) = try await LiveActivityTestServer.send(
                    client, server, token: LiveActivityTestServer.pushToStart, jwt: jwt,
                    aps: LiveActivityTestServer.start(now, channel: "dW5rbm93bg=="))
                #expect(status == 200)
                let failed = try await LiveActivityTestServer.newest(server)
                #expect(failed.outcome == .dropped)
                #expect(failed.reason == LiveActivityDeviceRule.unknownInputPushChannel.reason)
                #expect(server.liveActivities.isEmpty, "no activity started")
                let channel = try await LiveActivityTestServer.createChannel(client, server, jwt: jwt)
                let (joined, _) = try await LiveActivityTestServer.send(
                    client, server, token: LiveActivityTestServer.pushToStart, jwt: jwt,
                    aps: LiveActivityTestServer.start(now, channel: channel))
                #expect(joined == 200)
                let started = try await LiveActivityTestServer.newest(server)
                #expect(started.outcome == .accepted)
                #expect(server.liveActivities.count == 1)
            }
        }
    }
}
