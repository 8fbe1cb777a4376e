public import PushMockServer

/// Runs `body` with a PushMock server started in-process on free ports, and always shuts it down,
/// even when `body` throws. The default configuration needs no files (``PushMockConfiguration/testing(clock:)``).
///
/// ```swift
/// try await withPushMockServer { server in
///     let jwt = try server.credentials.apnsToken()
///     // POST https://localhost:\(server.pushPort)/3/device/<token> trusting server.credentials.caCertificatePEM
///     let arrived = try await server.waitForDeliveries(matching: DeliveryFilter(service: .apns), count: 1)
/// }
/// ```
public func withPushMockServer<Result: Sendable>(
    _ configuration: PushMockConfiguration = .testing(),
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
