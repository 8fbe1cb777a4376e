public import PushMockServer

/// Runs `body` with a PushMock server started in-process on free ports, and always shuts it down,
/// even when `body` throws.
///
/// ```swift
/// try await withPushMockServer(configuration) { server in
///     // send to https://127.0.0.1:\(server.pushPort)
/// }
/// ```
public func withPushMockServer<Result: Sendable>(
    _ configuration: PushMockConfiguration,
    _ body: (PushMockServer) async throws -> Result
) async throws -> Result {
    var configuration = configuration
    configuration.pushPort = 0
    if configuration.cleartextPort != nil {
        configuration.cleartextPort = 0
    }
    if configuration.inspectionPort != nil {
        configuration.inspectionPort = 0
    }
    let server = try await PushMockServer.start(configuration: configuration)
    do {
        let result = try await body(server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}
