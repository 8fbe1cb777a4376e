import NIOCore
import NIOEmbedded
import PushMockTestSupport
import Synchronization
import Testing

@testable import PushMockTransport

@Suite("A listener's shutdown always ends")
struct ShutdownTests {
    @Test("a closed registry refuses connections, so the list it returned on closing is final")
    func closedRegistry() async throws {
        let registry = ConnectionRegistry()
        let first = EmbeddedChannel()
        let second = EmbeddedChannel()
        #expect(registry.register(first, limit: 2) == .admitted)
        #expect(registry.register(second, limit: 1) == .overCap)
        let open = registry.close()
        #expect(open.count == 1 && open[0] === first)
        // An accepted socket that NIO initializes after the close: refused, never tracked.
        #expect(registry.register(second) == .closed)
        try #require(registry.count == 1)
        first.close(promise: nil)
        first.embeddedEventLoop.run()
        try #require(registry.count == 0)
        // Returns at once (it would wait for ever if the closed channel were still counted).
        await registry.waitUntilEmpty()
    }

    @Test("shutdown returns while clients keep connecting through it (idle connections closed at the grace period)")
    func shutdownWhileConnecting() async throws {
        for round in 0..<5 {
            let listener = try await HTTPListener.bind(
                configuration: ListenerConfiguration(host: "127.0.0.1", port: 0, tls: nil, shutdownGracePeriod: .milliseconds(100)),
                responder: EchoResponder()
            )
            let clients = Mutex<[RawClient]>([])
            let connecting = Task {
                while !Task.isCancelled {
                    guard let client = try? await RawClient.connect(port: listener.port) else { continue }
                    clients.withLock { $0.append(client) }
                }
            }
            // Shut down once the first clients are in.
            _ = await eventually { clients.withLock { $0.count } >= 3 }
            // Unstructured, so that a shutdown that never returns fails this test instead of hanging it.
            let done = Atomic<Bool>(false)
            Task {
                await listener.shutdown()
                done.store(true, ordering: .sequentiallyConsistent)
            }
            _ = await eventually { done.load(ordering: .sequentiallyConsistent) }
            let finished = done.load(ordering: .sequentiallyConsistent)
            connecting.cancel()
            _ = await connecting.value
            let opened = clients.withLock { $0 }
            for client in opened { try? await client.channel.close() }
            #expect(finished, "round \(round): shutdown did not return within 20 s with \(opened.count) clients connecting")
            #expect(!opened.isEmpty, "round \(round): no client connected before the shutdown")
        }
    }
}
