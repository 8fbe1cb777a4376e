import PushMockTesting
import Testing

@Suite("A test target with PushMockTesting alone")
struct TestingOnlyTests {
    @Test("starts an in-process PushMock with the memory store, and refuses a store it does not link")
    func inProcess() async throws {
        try await withPushMockServer { server in
            let recorded = try await server.deliveries()
            #expect(server.pushPort > 0)
            #expect(recorded.isEmpty)
        }
        var configuration = PushMockConfiguration.testing()
        configuration.store = .sqlite(path: "/tmp/never-opened.sqlite")
        await #expect(throws: PushMockError.self) { try await withPushMockServer(configuration) { _ in } }
    }
}
