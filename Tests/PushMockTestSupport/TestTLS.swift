import Foundation
package import NIOSSL
package import PushMockServer

/// TLS material minted once per test process: a fresh CA and server certificate (DESIGN.md:
/// "server tests mint their own certificates").
package enum TestTLS {
    package static let material: DevCertificates = {
        do {
            return try DevCertificates.generate()
        } catch {
            fatalError("cannot mint test certificates: \(error)")
        }
    }()

    package static func serverConfiguration() throws -> TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(material.serverCertificatePEM.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(material.serverPrivateKeyPEM.utf8), format: .pem))
        )
    }

    package static func clientConfiguration(alpn: [String]) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(material.caCertificatePEM.utf8)))
        configuration.applicationProtocols = alpn
        return configuration
    }
}
