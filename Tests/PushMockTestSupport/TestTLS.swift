import Foundation
package import NIOSSL
package import PushMockServer
import PushMockTesting
package import PushMockTransport

/// TLS material minted once per test process: a fresh CA and server certificate (DESIGN.md:
/// "server tests mint their own certificates"), the same that `PushMockConfiguration.testing()`
/// serves.
package enum TestTLS {
    package static var material: DevCertificates { PushMockConfiguration.testMaterial }

    package static func serverTLS() -> ListenerTLS {
        ListenerTLS(certificateChainPEM: Array(material.serverCertificatePEM.utf8), privateKeyPEM: Array(material.serverPrivateKeyPEM.utf8))
    }

    /// A client configuration that trusts only a CA of its own: the test servers' certificates
    /// fail its verification, whatever the machine's trust store holds (or lacks).
    package static func strangerConfiguration() throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(stranger.caCertificatePEM.utf8)))
        return configuration
    }

    private static let stranger: DevCertificates = {
        do {
            return try DevCertificates.generate()
        } catch {
            fatalError("cannot mint a second CA: \(error)")
        }
    }()

    package static func clientConfiguration(alpn: [String]) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(material.caCertificatePEM.utf8)))
        configuration.applicationProtocols = alpn
        return configuration
    }
}
