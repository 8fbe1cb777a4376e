import Logging
import NIOCore
import NIOPosix
import PushMockCore
import PushMockStore
import PushMockTestSupport
import Synchronization
import Testing

@testable import PushMockServer

/// Closing a relay whose forwards are still waiting on an upstream.
@Suite("Relay: closing with forwards under way, and the fields it forwards")
struct RelayShutdownTests {
    /// An upstream that accepts connections and never says a word (a TLS handshake to it hangs).
    final class SilentServer: Sendable {
        let channel: any Channel
        let accepted = WaitSignal()
        var port: Int { channel.localAddress!.port! }

        init() async throws {
            let accepted = accepted
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { child in
                    accepted.finish(true)
                    return child.eventLoop.makeSucceededVoidFuture()
                }
                .bind(host: "127.0.0.1", port: 0).get()
        }

        func close() async { try? await channel.close() }
    }

    @Test(
        "closing with forwards in flight: they are cancelled and end before the client's event loop does, each is recorded with its error, and a forward after the close is refused"
    )
    func closeWithForwardsInFlight() async throws {
        let upstream = try await SilentServer()
        var configuration = try RelayTests.relaying(to: upstream.port)
        configuration.concurrency = 3
        // The default: the client's shutdown waits for a connection still being opened.
        configuration.connectTimeout = .seconds(5)
        configuration.backoff = .seconds(30)
        let store = InMemoryDeliveryStore()
        let relay = try Relay(configuration, store: store, metrics: ServerMetrics(), logger: Logger(label: "test"))
        var ids: [UInt64] = []
        for index in 1...5 {
            let delivery = SampleDelivery.make(index)
            let id = store.record(delivery)
            ids.append(id)
            relay.submit(delivery.with(id: id), id: id)
        }
        // A forward has reached the upstream: the client is waiting on it.
        #expect(await upstream.accepted.result(timeout: TestDeadline.hang, cancel: {}), "the relay never connected to its upstream")
        await relay.close(patience: .milliseconds(50))
        for id in ids {
            let delivery = try await store.delivery(id: id)
            let result = try #require(delivery?.relay, "delivery \(id) has no relay result after the close")
            #expect(result.status == nil && result.error != nil, "delivery \(id): \(result)")
        }
        let late = SampleDelivery.make(9)
        let lateID = store.record(late)
        let answer = await relay.exchange(RelayJob(deliveryID: lateID, delivery: late.with(id: lateID), upstream: relay.upstream(for: late)))
        #expect(answer == nil)
        #expect(try await store.delivery(id: lateID)?.relay?.error?.contains("shutting down") == true)
        await upstream.close()
    }

    @Test("only the header fields each API defines are forwarded: never the sender's credentials, cookies or connection fields")
    func forwardedFields() {
        for name in ["apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id", "apns-id", "content-type"] {
            #expect(Relay.forwards(name, to: .apns), "\(name)")
        }
        for name in ["content-type", "x-goog-api-client", "x-firebase-client", "user-agent"] {
            #expect(Relay.forwards(name, to: .fcm), "\(name)")
        }
        for name in [
            "authorization", "proxy-authorization", "cookie", "x-goog-user-project", "host", "connection", "te", "accept-encoding",
            "x-forwarded-for",
        ] {
            #expect(!Relay.forwards(name, to: .apns) && !Relay.forwards(name, to: .fcm), "\(name)")
        }
        #expect(!Relay.forwards("x-goog-api-client", to: .apns), "Google's fields go to Google only")
        #expect(!Relay.forwards("apns-topic", to: .fcm), "APNs' fields go to APNs only")
    }
}
