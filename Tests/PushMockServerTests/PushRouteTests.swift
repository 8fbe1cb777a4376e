import Foundation
import PushMockCore
import PushMockTransport
import Testing

@testable import PushMockServer

@Suite("The push port's route table")
struct PushRouteTests {
    /// A documented path with its placeholders filled in.
    static func example(_ pattern: String, tokenPath: String) -> String {
        pattern.replacingOccurrences(of: "{token-path}", with: tokenPath)
            .replacingOccurrences(of: "{token}", with: "abc123")
            .replacingOccurrences(of: "{topic}", with: "news")
            .replacingOccurrences(of: "{project}", with: "demo-project")
            .replacingOccurrences(of: "{bundleId}", with: "com.example.app")
            .replacingOccurrences(of: "{id}", with: "QGuQyavXutnMmjZ1k3Jd8Hn2fRt6vS0pWq4yLbE7cAz9")
    }

    @Test("every path a route documents is routed to that route, on its real host and on localhost")
    func documentedPathsRouteHome() throws {
        let tokenPath = "/oauth2/v4/token"
        var seen = Set<String>()
        for route in PushRoute.table {
            for pattern in route.paths {
                let path = Self.example(pattern, tokenPath: tokenPath)
                // Instance ID's info is read with GET; topic relations are removed with DELETE.
                let method = pattern.hasPrefix("/iid/info") ? "GET" : pattern.hasSuffix("/{topic}") && pattern.hasPrefix("/v1/") ? "DELETE" : "POST"
                let request = HTTPServerRequest(method: method, path: path)
                // `/token` is the token path only on oauth2.googleapis.com.
                let local = PushRoute.find(request, host: nil, tokenPath: tokenPath)
                if pattern == "/token" {
                    #expect(local.map(\.service) == nil, "/token on localhost is not the token path \(tokenPath)")
                } else {
                    #expect(
                        local?.service == route.service, "\(method) \(path): \(String(describing: local?.service)), not \(route.service)")
                }
                let home = try #require(local?.home ?? (pattern == "/token" ? .oauth2 : nil))
                let onHome = try #require(PushRoute.find(request, host: home, tokenPath: tokenPath), "\(path) on \(home)")
                #expect(onHome.service == route.service, "\(method) \(path) on \(home.rawValue)")
                seen.insert(route.service.rawValue)
            }
        }
        #expect(seen == ["apns", "broadcast", "fcm", "iid", "oauth", "webpush"])
    }

    @Test(
        "paths no route serves are routed nowhere",
        arguments: [
            "/", "/livez", "/v1/projects/p/messages:sendAll", "/v1/projects/p/messages:send/x", "/iid/v1", "/token", "/fcm/send", "/batch",
            "/wpush/v2/", "/fcm/send/a/b", "/shorter-than-forty-characters", "/QGuQyavXutnMmjZ1k3Jd8Hn2fRt6vS0pWq4yLbE7cAz9.json",
            // Sharing a route's first bytes, or shorter than its prefix:
            "", "/3", "/1/a", "/1/apps", "/4/b", "/4/broadcasts", "/v1/", "/v1/projects/", "/v2/projects/p/messages:send",
        ])
    func unrouted(_ path: String) {
        let found = PushRoute.find(HTTPServerRequest(method: "POST", path: path), host: nil, tokenPath: "/oauth2/v4/token")
        #expect(found.map(\.service) == nil, "\(path) went to \(String(describing: found?.service))")
    }

    @Test("a route's prefix word is laid out as a path's head word: the first byte lowest")
    func prefixWords() {
        #expect(PushRoute.word("/", "v", "1", "/") == 0x2F31_762F)
        #expect(PushRoute.word("/", "1", "/", "a") == 0x612F_312F)
        #expect(PushRoute.word("/", "3", "/", "\0") == 0x002F_332F)
    }

    @Test("only APNs' routes keep a token connection at one stream, and only pushes that can reach a Live Activity take turns")
    func properties() {
        let byService = Dictionary(uniqueKeysWithValues: PushRoute.table.map { ($0.service, $0) })
        #expect(byService[.apns]?.isAPNs == true && byService[.broadcast]?.isAPNs == true)
        #expect(byService[.fcm]?.isAPNs == false && byService[.iid]?.isAPNs == false && byService[.oauth]?.isAPNs == false)
        #expect(PushRoute.table.filter(\.takesTurns).map(\.service) == [.apns, .broadcast, .fcm])
    }
}
