import AsyncHTTPClient
import Foundation
import NIOHTTP1
import PushMockCore
import PushMockInspection
import PushMockPostgres
import PushMockStore
import PushMockStores
import PushMockTestSupport
import PushMockTesting
import Testing

@testable import PushMockServer

@Suite("FCM topic management: Instance ID and FCM topicSubscriptions, fan-out of topic sends")
struct TopicManagementTests {
    static let project = FCMTestServer.project
    static func token(_ n: Int) -> String { "dG9waWMtMDAw\(n):APA91b" + String(repeating: "Tp\(n)", count: 40) }

    static func iid(
        _ client: HTTPClient, port: Int, _ path: String, bearer: String, method: HTTPMethod = .POST, body: String? = nil, accessTokenAuth: Bool = true
    ) async throws -> (Int, [String: Any]) {
        var headers = [("content-type", "application/json"), ("authorization", "Bearer \(bearer)")]
        if accessTokenAuth { headers.append(("access_token_auth", "true")) }
        let (response, bytes) = try await client.send(
            "https://localhost:\(port)\(path)", method: method, headers: headers, body: body.map { Array($0.utf8) })
        return (Int(response.status.code), (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:])
    }

    static func batch(
        _ client: HTTPClient, port: Int, add: Bool = true, topic: String, tokens: [String], bearer: String
    ) async throws -> (Int, [String: Any]) {
        let list = tokens.map { "\"\($0)\"" }.joined(separator: ",")
        return try await iid(
            client, port: port, "/iid/v1:\(add ? "batchAdd" : "batchRemove")", bearer: bearer,
            body: #"{"to":"/topics/\#(topic)","registration_tokens":[\#(list)]}"#)
    }

    @Test("batchAdd answers per token in Google's shape; info lists the topics; a topic send records its fan-out; batchRemove undoes it")
    func instanceID() async throws {
        try await withPushMockServer(FCMTestServer.configuration()) { server in
            let gone = Self.token(9)
            server.devices.set(DeviceRecord(state: .expired), for: gone)
            try await withHTTPClient { client in
                let port = server.pushPort
                let bearer = try await FCMTestServer.accessToken(client, port: port)
                let (status, json) = try await Self.batch(
                    client, port: port, topic: "news", tokens: [Self.token(1), "not-a-token", gone, Self.token(2)], bearer: bearer)
                #expect(status == 200)
                let results = try #require(json["results"] as? [[String: Any]])
                #expect(results.count == 4)
                #expect(results[0].isEmpty && results[3].isEmpty)
                #expect(results[1]["error"] as? String == "INVALID_ARGUMENT")
                #expect(results[2]["error"] as? String == "NOT_FOUND")

                let (_, info) = try await Self.iid(client, port: port, "/iid/info/\(Self.token(1))?details=true", bearer: bearer, method: .GET)
                #expect(info["authorizedEntity"] as? String == Self.project)
                let topics = (info["rel"] as? [String: Any])?["topics"] as? [String: Any]
                #expect(topics?.keys.sorted() == ["news"])
                #expect(((topics?["news"] as? [String: Any])?["addDate"] as? String)?.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil)

                let (sent, _, _) = try await FCMTestServer.send(
                    client, port: port, bearer: bearer, body: #"{"message":{"topic":"news","data":{"a":"b"}}}"#)
                #expect(sent == 200)
                let (conditionSent, _, _) = try await FCMTestServer.send(
                    client, port: port, bearer: bearer,
                    body: #"{"message":{"condition":"'news' in topics && !('sports' in topics)","data":{"a":"b"}}}"#)
                #expect(conditionSent == 200)
                let (nobody, _, _) = try await FCMTestServer.send(
                    client, port: port, bearer: bearer, body: #"{"message":{"topic":"sports","data":{"a":"b"}}}"#)
                #expect(nobody == 200, "FCM answers a topic without subscribers with success")

                let (removed, removedJSON) = try await Self.batch(
                    client, port: port, add: false, topic: "news", tokens: [Self.token(1)], bearer: bearer)
                #expect(removed == 200)
                #expect((removedJSON["results"] as? [[String: Any]])?.count == 1)
                let (_, after) = try await Self.iid(client, port: port, "/iid/info/\(Self.token(1))?details=true", bearer: bearer, method: .GET)
                #expect(((after["rel"] as? [String: Any])?["topics"] as? [String: Any])?.isEmpty == true)
            }
            let sends = try await server.deliveryList("service=fcm").deliveries
            try #require(sends.count == 3)
            #expect(sends[2].recipients == [Self.token(1), Self.token(2)].sorted())
            #expect(sends[1].recipients == [Self.token(1), Self.token(2)].sorted())
            #expect(sends[0].recipients == [])
            #expect(sends[0].diagnostics.contains { $0.hasPrefix("nobody would receive it") })
            #expect(try await server.deliveryList("service=iid").total == 4)
            let device = try await server.inspected("/api/v1/devices/\(Self.token(2))", as: DeviceResource.self)
            #expect(device.topics == ["news"])
        }
    }

    @Test("every Instance ID call is recorded with the turn-down's dates; --iid turned-down answers DeprecatedApi and subscribes nothing")
    func instanceIDTurnDown() async throws {
        // Before the turn-down (the server's clock is 2026), and after it (a manual clock in 2027).
        #expect(IIDEndpoint.turnDownDiagnostic(now: PushInstant(millisecondsSinceEpoch: 1_767_225_600_000)).contains("is turned down on 2027-09-29"))
        #expect(
            IIDEndpoint.turnDownDiagnostic(now: PushInstant(millisecondsSinceEpoch: 1_822_176_000_000)).contains("was turned down on 2027-09-29"))
        var file = PushMockConfiguration()
        try file.load(contents: Array(#"{"fcm":{"instanceID":"turned-down"}}"#.utf8), path: "iid.json")
        #expect(file.fcm.instanceID == .turnedDown)
        let bad = #expect(throws: PushMockError.self) { try file.load(contents: Array(#"{"fcm":{"instanceID":"gone"}}"#.utf8), path: "bad.json") }
        #expect(bad?.message.contains("available, turned-down") == true, "\(String(describing: bad))")
        for mode in [InstanceIDMode.available, .turnedDown] {
            var configuration = FCMTestServer.configuration()
            configuration.fcm.instanceID = mode
            try await withPushMockServer(configuration) { server in
                try await withHTTPClient { client in
                    let port = server.pushPort
                    let bearer = try await FCMTestServer.accessToken(client, port: port)
                    let (status, json) = try await Self.batch(
                        client, port: port, topic: "news", tokens: [Self.token(1), Self.token(2)], bearer: bearer)
                    let (related, relatedJSON) = try await Self.iid(client, port: port, "/iid/v1/\(Self.token(3))/rel/topics/news", bearer: bearer)
                    let (info, infoJSON) = try await Self.iid(client, port: port, "/iid/info/\(Self.token(1))", bearer: bearer, method: .GET)
                    let results = json["results"] as? [[String: Any]]
                    #expect(status == 200, "the batch calls answer 200 in both modes")
                    let recorded = try await server.deliveryList("service=iid").deliveries
                    #expect(recorded.count == 3)
                    #expect(
                        recorded.allSatisfy {
                            $0.diagnostics.contains { $0.hasPrefix("Instance ID server API: Google is turned down on 2027-09-29") }
                        },
                        "\(recorded.map(\.diagnostics))")
                    #expect(recorded.allSatisfy { $0.diagnostics.contains { $0.contains("topicSubscriptions") } })
                    var subscribers: [String] = []
                    for token in [Self.token(1), Self.token(2), Self.token(3)] {
                        let reply = await server.inspect("GET", "/api/v1/devices/\(token)")
                        let device = reply.status == 200 ? try? JSONDecoder().decode(DeviceResource.self, from: Data(reply.text.utf8)) : nil
                        if device?.topics?.contains("news") == true { subscribers.append(token) }
                    }
                    switch mode {
                    case .available:
                        #expect(results?.allSatisfy(\.isEmpty) == true && related == 200 && info == 200, "\(json) \(relatedJSON) \(infoJSON)")
                        #expect(recorded.allSatisfy { $0.outcome == .accepted })
                        #expect(subscribers.count == 3)
                    case .turnedDown:
                        #expect(results?.count == 2 && results?.allSatisfy { $0["error"] as? String == "DeprecatedApi" } == true, "\(json)")
                        #expect(related == 404 && relatedJSON["error"] as? String == "DeprecatedApi")
                        #expect(info == 404 && infoJSON["error"] as? String == "DeprecatedApi")
                        #expect(recorded.allSatisfy { $0.outcome == .rejected && $0.reason == "DeprecatedApi" })
                        #expect(subscribers.isEmpty, "nothing is subscribed")
                        let (v1, _) = try await client.send(
                            "https://localhost:\(port)/v1/projects/\(Self.project)/registrations/\(Self.token(4))/topicSubscriptions?topic_name=news",
                            method: .POST, headers: [("authorization", "Bearer \(bearer)")])
                        #expect(v1.status == .ok, "FCM v1 topicSubscriptions is not Instance ID: it still serves")
                    }
                }
            }
        }
    }

    @Test("a send to a topic of 1 200 tokens (1 KB each) records 16 of them at most 16 KB, and their number in a diagnostic")
    func fanOutIsBounded() async throws {
        try await withPushMockServer(FCMTestServer.configuration()) { server in
            try await withHTTPClient { client in
                let port = server.pushPort
                let bearer = try await FCMTestServer.accessToken(client, port: port)
                let tokens = (0..<1200).map { "dG9waWMtMDAw\($0):APA91b" + String(repeating: "x", count: 1000) }
                for start in stride(from: 0, to: tokens.count, by: 50) {
                    let (status, _) = try await Self.batch(
                        client, port: port, topic: "big", tokens: Array(tokens[start..<min(start + 50, tokens.count)]), bearer: bearer)
                    #expect(status == 200)
                }
                for body in [#"{"message":{"topic":"big","data":{"a":"b"}}}"#, #"{"message":{"condition":"'big' in topics","data":{"a":"b"}}}"#] {
                    let (sent, _, _) = try await FCMTestServer.send(client, port: port, bearer: bearer, body: body)
                    #expect(sent == 200)
                }
            }
            let sends = try await server.deliveryList("service=fcm").deliveries
            #expect(sends.count == 2)
            for send in sends {
                let recipients = try #require(send.recipients)
                #expect(recipients.count == 16, "16 tokens of ~1 030 bytes fit in 16 KB")
                #expect(recipients.reduce(0) { $0 + $1.utf8.count } <= 16 * 1024)
                #expect(recipients == recipients.sorted())
                #expect(send.diagnostics.contains("fan-out: 1200 registration tokens; recipients lists the first 16"))
            }
        }
    }

    @Test("Instance ID refuses what Google refuses: no access_token_auth, no bearer, 1 001 tokens, a bad topic, a body that is not JSON")
    func instanceIDRefusals() async throws {
        var configuration = FCMTestServer.configuration()
        configuration.maxRequestBodySize = 512 * 1024  // 1 000 real-length tokens are ~140 KB
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let port = server.pushPort
                let bearer = try await FCMTestServer.accessToken(client, port: port)
                let body = #"{"to":"/topics/news","registration_tokens":["\#(Self.token(1))"]}"#
                let (noHeader, noHeaderJSON) = try await Self.iid(
                    client, port: port, "/iid/v1:batchAdd", bearer: bearer, body: body, accessTokenAuth: false)
                #expect(noHeader == 401)
                #expect(noHeaderJSON["error"] as? String == "Unauthorized")
                let (garbage, _) = try await Self.iid(client, port: port, "/iid/v1:batchAdd", bearer: "ya29.nonsense", body: body)
                #expect(garbage == 401)
                let many = (0...1000).map { Self.token($0) }
                let (tooMany, tooManyJSON) = try await Self.batch(client, port: port, topic: "news", tokens: many, bearer: bearer)
                #expect(tooMany == 400)
                #expect(tooManyJSON["error"] as? String == "INVALID_ARGUMENT")
                let (thousand, thousandJSON) = try await Self.batch(
                    client, port: port, topic: "news", tokens: Array(many.prefix(1000)), bearer: bearer)
                #expect(thousand == 200)
                #expect((thousandJSON["results"] as? [[String: Any]])?.count == 1000)
                let (badTopic, _) = try await Self.batch(client, port: port, topic: "a b", tokens: [Self.token(1)], bearer: bearer)
                #expect(badTopic == 400)
                let (notJSON, _) = try await Self.iid(client, port: port, "/iid/v1:batchAdd", bearer: bearer, body: "to=news")
                #expect(notJSON == 400)
                let (single, _) = try await Self.iid(client, port: port, "/iid/v1/\(Self.token(3))/rel/topics/weather", bearer: bearer)
                #expect(single == 200)
            }
            #expect(try await server.deliveryList("service=iid").total == 7)
            let devices = try await server.inspected("/api/v1/devices", as: DeviceList.self).devices
            let listed = devices.first { $0.token == Self.token(3) }
            #expect(listed?.topics == ["news", "weather"], "token 3 was one of the 1 000")
            #expect(listed?.state == "active")
            #expect(await server.inspect("DELETE", "/api/v1/devices/\(Self.token(3))").status == 200, "removing a device drops its subscriptions")
            #expect(await server.inspect("GET", "/api/v1/devices/\(Self.token(3))").status == 404)
        }
    }

    @Test("FCM v1 topicSubscriptions (firebase-admin-python 7): subscribe, 409 when subscribed, delete with and without allow_missing")
    func fcmTopicSubscriptions() async throws {
        try await withPushMockServer(FCMTestServer.configuration()) { server in
            try await withHTTPClient { client in
                let port = server.pushPort
                let bearer = try await FCMTestServer.accessToken(client, port: port)
                let encoded = Self.token(1).replacingOccurrences(of: ":", with: "%3A")
                let base = "/v1/projects/\(Self.project)/registrations/\(encoded)/topicSubscriptions"
                let (created, createdJSON) = try await Self.iid(
                    client, port: port, "\(base)?topic_name=news", bearer: bearer, body: "{}", accessTokenAuth: false)
                #expect(created == 200)
                #expect(createdJSON["name"] as? String == "projects/\(Self.project)/registrations/\(Self.token(1))/topicSubscriptions/news")
                let (again, againJSON) = try await Self.iid(
                    client, port: port, "\(base)?topic_name=news", bearer: bearer, body: "{}", accessTokenAuth: false)
                #expect(again == 409)
                #expect((againJSON["error"] as? [String: Any])?["status"] as? String == "ALREADY_EXISTS")
                let (otherProject, _) = try await Self.iid(
                    client, port: port, "/v1/projects/other/registrations/\(encoded)/topicSubscriptions?topic_name=news", bearer: bearer, body: "{}",
                    accessTokenAuth: false
                )
                #expect(otherProject == 403)
                let (deleted, _) = try await Self.iid(
                    client, port: port, "\(base)/news?allow_missing=true", bearer: bearer, method: .DELETE, accessTokenAuth: false)
                #expect(deleted == 200)
                let (missing, missingJSON) = try await Self.iid(
                    client, port: port, "\(base)/news", bearer: bearer, method: .DELETE, accessTokenAuth: false)
                #expect(missing == 404)
                #expect((missingJSON["error"] as? [String: Any])?["status"] as? String == "NOT_FOUND")
                let (allowed, _) = try await Self.iid(
                    client, port: port, "\(base)/news?allow_missing=true", bearer: bearer, method: .DELETE, accessTokenAuth: false)
                #expect(allowed == 200)
            }
            #expect(try await server.deliveryList("service=iid&outcome=rejected").total == 3)
        }
    }

    @Test("a subscription request a fault rejects changes nothing (batchAdd, batchRemove, rel, FCM v1); one a fault delays does")
    func faultedSubscriptionsChangeNothing() async throws {
        try await withPushMockServer(FCMTestServer.configuration()) { server in
            try await withHTTPClient { client in
                let port = server.pushPort
                let bearer = try await FCMTestServer.accessToken(client, port: port)
                func rejectNext(_ id: String) {
                    server.faults.add(FaultRule(id: id, match: .init(service: .iid), action: .reject(status: 503, reason: "UNAVAILABLE"), count: 1))
                }
                func topics(of token: String) async throws -> [String] {
                    let (_, info) = try await Self.iid(client, port: port, "/iid/info/\(token)?details=true", bearer: bearer, method: .GET)
                    return (((info["rel"] as? [String: Any])?["topics"] as? [String: Any])?.keys.sorted()) ?? []
                }
                rejectNext("batch-add")
                let (added, _) = try await Self.batch(client, port: port, topic: "news", tokens: [Self.token(1)], bearer: bearer)
                #expect(added == 503)
                #expect(try await topics(of: Self.token(1)) == [], "a rejected batchAdd subscribed the token")
                rejectNext("rel")
                let (related, _) = try await Self.iid(client, port: port, "/iid/v1/\(Self.token(1))/rel/topics/news", bearer: bearer)
                #expect(related == 503)
                #expect(try await topics(of: Self.token(1)) == [], "a rejected rel subscribed the token")
                let encoded = Self.token(1).replacingOccurrences(of: ":", with: "%3A")
                let base = "/v1/projects/\(Self.project)/registrations/\(encoded)/topicSubscriptions"
                rejectNext("v1-create")
                let (created, _) = try await Self.iid(
                    client, port: port, "\(base)?topic_name=news", bearer: bearer, body: "{}", accessTokenAuth: false)
                #expect(created == 503)
                #expect(try await topics(of: Self.token(1)) == [], "a rejected FCM v1 subscribe subscribed the token")

                server.faults.add(FaultRule(id: "slow", match: .init(service: .iid), action: .delay(milliseconds: 50), count: 1))
                let (delayed, _) = try await Self.batch(client, port: port, topic: "news", tokens: [Self.token(1)], bearer: bearer)
                #expect(delayed == 200)
                #expect(try await topics(of: Self.token(1)) == ["news"], "a delayed batchAdd subscribes")
                rejectNext("batch-remove")
                let (removed, _) = try await Self.batch(client, port: port, add: false, topic: "news", tokens: [Self.token(1)], bearer: bearer)
                #expect(removed == 503)
                #expect(try await topics(of: Self.token(1)) == ["news"], "a rejected batchRemove unsubscribed the token")
                rejectNext("v1-delete")
                let (deleted, _) = try await Self.iid(client, port: port, "\(base)/news", bearer: bearer, method: .DELETE, accessTokenAuth: false)
                #expect(deleted == 503)
                #expect(try await topics(of: Self.token(1)) == ["news"], "a rejected FCM v1 delete unsubscribed the token")
            }
            #expect(try await server.deliveryList("service=iid&outcome=rejected").total == 5)
        }
    }

    @Test("subscriptions are kept by an SQLite store across restarts, and a reset forgets them")
    func keptAcrossRestarts() async throws {
        let path = TestScratch.path("topics", extension: "sqlite")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = FCMTestServer.configuration()
        configuration.store = .sqlite(path: path)
        configuration.storeOpeners = StoreOpener.all
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                let bearer = try await FCMTestServer.accessToken(client, port: server.pushPort)
                let (status, _) = try await Self.batch(
                    client, port: server.pushPort, topic: "news", tokens: [Self.token(1), Self.token(2)], bearer: bearer)
                #expect(status == 200)
            }
        }
        try await withPushMockServer(configuration) { server in
            let device = try await server.inspected("/api/v1/devices/\(Self.token(2))", as: DeviceResource.self)
            #expect(device.topics == ["news"])
            try await withHTTPClient { client in
                let bearer = try await FCMTestServer.accessToken(client, port: server.pushPort)
                _ = try await FCMTestServer.send(
                    client, port: server.pushPort, bearer: bearer, body: #"{"message":{"topic":"news","data":{"a":"b"}}}"#)
            }
            #expect(try await server.deliveryList("service=fcm").deliveries.first?.recipients == [Self.token(1), Self.token(2)])
            #expect(await server.inspect("POST", "/api/v1/reset").status == 200)
        }
        try await withPushMockServer(configuration) { server in
            #expect(await server.inspect("GET", "/api/v1/devices/\(Self.token(2))").status == 404)
        }
    }
}

extension TopicManagementTests {
    @Test("postgres: a token subscribed through A is in the fan-out of a topic send through B; an unsubscribe through B reaches A", .postgres)
    func fleet() async throws {
        var configuration = FCMTestServer.configuration()
        configuration.store = .postgres(url: try await PostgresTestDatabase.create().description)
        configuration.storeOpeners = StoreOpener.all
        try await withPushMockServer(configuration) { a in
            try await withPushMockServer(configuration) { b in
                try await withHTTPClient { client in
                    let bearer = try await FCMTestServer.accessToken(client, port: a.pushPort)
                    #expect(try await Self.batch(client, port: a.pushPort, topic: "news", tokens: [Self.token(1)], bearer: bearer).0 == 200)
                    #expect(
                        await eventually { await b.inspect("GET", "/api/v1/devices/\(Self.token(1))").status == 200 },
                        "A's subscription reaches B")
                    #expect(
                        try await FCMTestServer.send(
                            client, port: b.pushPort, bearer: bearer, body: #"{"message":{"topic":"news","data":{"a":"b"}}}"#
                        ).0 == 200)
                    // Read back through `wait`, which waits for the send's commit: a plain read waits
                    // for it only as long as the store's patience, which a loaded machine outlasts.
                    let waited = await b.inspect("GET", "/api/v1/deliveries/wait?service=fcm&count=1&timeout=60s")
                    #expect(waited.status == 200)
                    let sent = try #require(try waited.decode(WaitResult.self).deliveries.last)
                    #expect(sent.recipients == [Self.token(1)])
                    #expect(
                        try await Self.batch(client, port: b.pushPort, add: false, topic: "news", tokens: [Self.token(1)], bearer: bearer).0 == 200)
                    #expect(
                        await eventually { await a.inspect("GET", "/api/v1/devices/\(Self.token(1))").status == 404 },
                        "B's unsubscribe reaches A")
                }
            }
        }
    }
}

@Suite("Topic subscriptions and conditions, without a server")
struct TopicSubscriptionsTests {
    @Test("conditions evaluate with &&, || and ! as FCM's grammar reads them")
    func conditions() throws {
        #expect(try FCMCondition.matches("'a' in topics && 'b' in topics", subscribed: ["a", "b"]))
        #expect(try FCMCondition.matches("'a' in topics && 'b' in topics", subscribed: ["a"]) == false)
        #expect(try FCMCondition.matches("'a' in topics && ('b' in topics || 'c' in topics)", subscribed: ["a", "c"]))
        #expect(try FCMCondition.matches("!('a' in topics) || 'z' in topics", subscribed: ["z", "a"]))
        #expect(try FCMCondition.matches("!('a' in topics)", subscribed: ["a"]) == false)
        #expect(throws: FCMCondition.Problem.self) { try FCMCondition.matches("'a' in topics &&", subscribed: []) }
    }

    @Test("a token has at most 2 000 topics: the next one is TOO_MANY_TOPICS; unsubscribing what was never subscribed succeeds")
    func limits() throws {
        let subscriptions = TopicSubscriptions()
        for n in 0..<TopicSubscriptions.maxTopicsPerToken {
            #expect(subscriptions.subscribe(["t"], to: "topic\(n)", project: "p", now: 0).results == [.done])
        }
        #expect(subscriptions.subscribe(["t"], to: "one-more", project: "p", now: 0).results == [.tooManyTopics])
        #expect(
            subscriptions.subscribe(["t"], to: "one-more", project: "other", now: 0).results == [.done], "the limit is per project's app instance")
        #expect(subscriptions.unsubscribe(["u"], from: "topic1", project: "p").results == [.done])
        #expect(subscriptions.subscribers(of: "topic1", project: "p") == ["t"])
        #expect(try subscriptions.fanOut(condition: "'one-more' in topics", project: "other") == ["t"])
    }
}
