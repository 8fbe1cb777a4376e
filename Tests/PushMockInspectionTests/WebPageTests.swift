import Foundation
import PushMockInspection
import PushMockServer
import PushMockTestSupport
import PushMockTesting
import Testing

@Suite("The web page: served from resources with content types, validators and a CSP")
struct WebPageTests {
    @Test("/ and /ui/* are served with their content types, an ETag that answers 304, and the page with a Content-Security-Policy")
    func assets() async throws {
        try await withPushMockServer(.testing()) { server in
            let page = await server.inspect("GET", "/", headers: [])
            #expect(page.status == 200)
            #expect(page.header("content-type") == "text/html; charset=utf-8")
            #expect(page.text.contains(#"<script type="module" src="/ui/app.js">"#))
            #expect(page.text.contains(#"content="not-required""#))
            let policy = try #require(page.header("content-security-policy"))
            #expect(policy.contains("script-src 'self'") && policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"))
            #expect(!policy.contains("unsafe-inline"))
            for (file, type) in [
                ("app.js", "text/javascript; charset=utf-8"), ("style.css", "text/css; charset=utf-8"), ("icon.svg", "image/svg+xml"),
            ] {
                let reply = await server.inspect("GET", "/ui/\(file)", headers: [])
                #expect(reply.status == 200, "\(file)")
                #expect(reply.header("content-type") == type, "\(file)")
                #expect(reply.header("x-content-type-options") == "nosniff")
                let etag = try #require(reply.header("etag"))
                let again = await server.inspect("GET", "/ui/\(file)", headers: [("if-none-match", etag)])
                #expect(again.status == 304 && again.response.body.isEmpty, "\(file) revalidates")
                #expect(await server.inspect("GET", "/ui/\(file)", headers: [("if-none-match", "\"other\"")]).status == 200)
            }
            // Every module the page imports is served.
            let app = await server.inspect("GET", "/ui/app.js", headers: []).text
            for module in app.matches(of: /from '\.\/([a-z]+\.js)'/).map({ String($0.1) }) {
                #expect(await server.inspect("GET", "/ui/\(module)", headers: []).status == 200, "\(module)")
            }
            #expect(await server.inspect("GET", "/ui/nothing.js", headers: []).status == 404)
            #expect(await server.inspect("GET", "/ui/..%2Fopenapi.yaml", headers: []).status == 404)
            #expect(await server.inspect("POST", "/", headers: [("x-pushmock-client", "t")]).status == 405)
        }
    }

    @Test("with an inspection token the page is served without it and says the API wants it; the API still refuses without it")
    func token() async throws {
        var configuration = PushMockConfiguration.testing()
        configuration.inspectionToken = "secret"
        try await withPushMockServer(configuration) { server in
            let page = await server.inspect("GET", "/", headers: [])
            #expect(page.status == 200)
            #expect(page.text.contains(#"content="required""#))
            let plain = await server.inspect("GET", "/ui/app.js", headers: [])
            #expect(plain.status == 200)
            let unmodified = await server.inspect("GET", "/ui/index.html", headers: [])
            #expect(page.header("etag") != nil && page.header("etag") != unmodified.header("etag"), "the variant has its own ETag")
            #expect(await server.inspect("GET", "/api/v1/rejections", headers: []).status == 401)
            #expect(await server.inspect("GET", "/api/v1/rejections", headers: [("authorization", "Bearer secret")]).status == 200)
        }
    }

    @Test("the page is refused to a foreign Host like the API (DNS rebinding)")
    func foreignHost() async throws {
        try await withPushMockServer(.testing()) { server in
            let request = InspectionRequest(method: "GET", target: "/", authority: "evil.example:2198")
            #expect(await server.inspection.respond(to: request).head.status == 421)
        }
    }
}
