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
            let done = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Void.self)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(60))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                        try channel.pipeline.syncOperations.addHandler(Watcher(done: done))
                    }
                }
                .connect(host: "127.0.0.1", port: port)
                .get()
            defer { channel.close(promise: nil) }
            try await done.futureResult.get()
            let served = try await channel.pipeline.handler(type: NIOSSLClientHandler.self).flatMapThrowing { handler in
                try handler.peerCertificate?.toDERBytes()
            }.get()
            guard let served else { return "no certificate presented" }
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
        let done: EventLoopPromise<Void>
        var finished = false

        init(done: EventLoopPromise<Void>) { self.done = done }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? TLSUserEvent, case .handshakeCompleted = event { finish(nil) }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            finish(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish(ChannelError.eof)
            context.fireChannelInactive()
        }

        private func finish(_ error: (any Error)?) {
            guard !finished else { return }
            finished = true
            if let error { done.fail(error) } else { done.succeed() }
        }
    }
}
