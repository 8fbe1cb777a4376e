import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SwiftASN1
import X509

/// A TLS handshake and nothing more, for what an HTTP client hides: whether the certificate a
/// server presents is valid for a name. NIOSSL (and so AsyncHTTPClient) also accepts a
/// certificate whose IP address matches the socket's, whatever the name, so a server on 127.0.0.1
/// passes for any name; here the presented certificate is checked as a client that reached it by
/// that name alone would check it (RFC 5280 and RFC 6125, by swift-certificates).
package enum TLSHandshake {
    /// nil when the certificate served on 127.0.0.1:`port` chains to `caFile` and names
    /// `serverName`; else why not.
    package static func failure(port: Int, serverName: String, caFile: String) async -> String? {
        do {
            let ca = try Certificate(pemEncoded: String(contentsOfFile: caFile, encoding: .utf8))
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
            let context = try NIOSSLContext(configuration: configuration)
            // The certificate the server presented, taken on the event loop as the handshake
            // completes (the channel may close right after, taking its handlers with it).
            let done = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: [UInt8].self)
            let channel: any Channel
            do {
                channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connectTimeout(.seconds(60))
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                            try channel.pipeline.syncOperations.addHandler(Watcher(done: done))
                        }
                    }
                    .connect(host: "127.0.0.1", port: port)
                    .get()
            } catch {
                done.fail(error)  // (a promise left unfulfilled traps in a debug build)
                throw error
            }
            defer { channel.close(promise: nil) }
            let served = try await done.futureResult.get()
            guard !served.isEmpty else { return "no certificate presented" }
            let leaf = try Certificate(derEncoded: served)
            var verifier = Verifier(rootCertificates: CertificateStore([ca])) {
                RFC5280Policy()
                ServerIdentityPolicy(serverHostname: serverName, serverIP: nil)
            }
            switch await verifier.validate(leaf: leaf, intermediates: CertificateStore()) {
            case .validCertificate: return nil
            case .couldNotValidate(let failures): return "the certificate does not pass for hostname \(serverName): \(failures)"
            }
        } catch {
            return "\(error)"
        }
    }

    private final class Watcher: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let done: EventLoopPromise<[UInt8]>
        var finished = false

        init(done: EventLoopPromise<[UInt8]>) { self.done = done }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
                let served = try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate?.toDERBytes()
                finish(.success(served ?? []))
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            finish(.failure(error))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish(.failure(ChannelError.eof))
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            finish(.failure(ChannelError.eof))
        }

        private func finish(_ result: Result<[UInt8], any Error>) {
            guard !finished else { return }
            finished = true
            done.completeWith(result)
        }
    }
}
