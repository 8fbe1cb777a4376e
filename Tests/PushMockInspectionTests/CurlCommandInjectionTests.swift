import Foundation
import PushMockCore
import PushMockServer
import PushMockStore
import PushMockTestSupport
import PushMockTesting
import Testing

/// "Copy as curl" must never run what a sender put in its request: every method, path, header and
/// body byte is quoted, so pasting the command runs curl and nothing else.
@Suite("Copy as curl quotes every part of a hostile request")
struct CurlCommandInjectionTests {
    static let hostile = [
        "`touch CANARY`", "$(touch CANARY)", "POST|touch CANARY", "POST&touch CANARY&", "POST;touch CANARY", "'; touch CANARY; '",
        "PO\nST\ntouch CANARY", "\\'$(touch CANARY)\\'",
    ]

    @Test("hostile methods, paths, header names and values and bodies: bash -n accepts the command, and running it runs only curl")
    func hostileRequests() async throws {
        let folder = URL(fileURLWithPath: TestScratch.path("curl"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A stand-in curl that writes its arguments, one per line (NUL-separated), and does nothing else.
        let fakeCurl = folder.appendingPathComponent("curl")
        try "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$ARGS_FILE\"\n".write(to: fakeCurl, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fakeCurl.path)
        try await withPushMockServer(.testing()) { server in
            for (index, evil) in Self.hostile.enumerated() {
                let canary = folder.appendingPathComponent("canary-\(index)").path
                let text = evil.replacingOccurrences(of: "CANARY", with: canary)
                let delivery = Delivery(
                    receivedAt: 1, connectionID: 1, httpVersion: "HTTP/2", service: .apns, environment: "sandbox",
                    method: text, path: "/3/device/\(text)",
                    headers: [HeaderField(name: "x-\(index)", value: text), HeaderField(name: text, value: "v")],
                    body: Array(text.utf8), outcome: .rejected, status: 405, reason: "MethodNotAllowed"
                )
                let id = server.store.record(delivery)
                var reply = await server.inspect("GET", "/api/v1/deliveries/\(id)/curl")
                _ = await eventually {
                    reply = await server.inspect("GET", "/api/v1/deliveries/\(id)/curl")
                    return reply.status == 200
                }
                #expect(reply.status == 200)
                let command = reply.text
                let script = folder.appendingPathComponent("command-\(index).sh")
                try command.write(to: script, atomically: true, encoding: .utf8)
                #expect(try await Self.run(["bash", "-n", script.path], folder: folder).status == 0, "bash -n: \(command)")
                let argsFile = folder.appendingPathComponent("args-\(index)").path
                let run = try await Self.run(
                    ["bash", script.path], folder: folder, environment: ["PATH": "\(folder.path):/usr/bin:/bin", "ARGS_FILE": argsFile])
                #expect(run.status == 0, "\(command)\n\(run.output)")
                #expect(!FileManager.default.fileExists(atPath: canary), "the command ran something besides curl: \(command)")
                let arguments =
                    (try? String(contentsOfFile: argsFile, encoding: .utf8))?.split(separator: "\0", omittingEmptySubsequences: false).map(
                        String.init) ?? []
                let method = arguments.firstIndex(of: "-X").map { arguments[$0 + 1] }
                #expect(method == text, "curl got the method as one argument, unchanged")
                #expect(arguments.contains("\(text): v") || !text.contains(":"), "the header name is one argument")
                #expect(
                    arguments.contains("--data-binary") && arguments[arguments.firstIndex(of: "--data-binary")! + 1] == text,
                    "the body is one argument, unchanged")
            }
        }
    }

    static func run(_ command: [String], folder: URL, environment: [String: String]? = nil) async throws -> (status: Int32, output: String) {
        try await offThePool { try runBlocking(command, folder: folder, environment: environment) }
    }

    static func runBlocking(_ command: [String], folder: URL, environment: [String: String]?) throws -> (status: Int32, output: String) {
        // In `folder`: a shell changes to it, then runs the command through env (found on PATH).
        try ChildProcess.run(["/bin/sh", "-c", #"cd "$0" && exec /usr/bin/env "$@""#, folder.path] + command, environment: environment)
    }
}
