import NIOSSL

/// The TLS a listener serves: its certificate chain and private key, in PEM. The listener adds
/// ALPN (`h2`, `http/1.1`) and, when asked, client-certificate requests; nothing about TLS
/// beyond this crosses the transport's edge.
public struct ListenerTLS: Sendable, Hashable {
    /// The server certificate first, then its intermediates, in PEM.
    public var certificateChainPEM: [UInt8]
    /// The private key of the first certificate, in PEM.
    public var privateKeyPEM: [UInt8]

    public init(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8]) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// Parses the material: an ``TransportError/Code/invalidTLSConfiguration`` error that says
    /// what is wrong, when it is not PEM, holds no certificate, or the key cannot be read. The
    /// listener calls it when it binds; call it earlier to fail before anything is opened.
    public func validate() throws(TransportError) {
        _ = try serverConfiguration()
    }

    func serverConfiguration() throws(TransportError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(certificateChainPEM)
        } catch {
            throw TransportError(code: .invalidTLSConfiguration, message: "the certificate chain is not PEM: \(error)")
        }
        guard !chain.isEmpty else {
            throw TransportError(code: .invalidTLSConfiguration, message: "the certificate file holds no certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: privateKeyPEM, format: .pem)
        } catch {
            throw TransportError(code: .invalidTLSConfiguration, message: "the private key is not a PEM key: \(error)")
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}
