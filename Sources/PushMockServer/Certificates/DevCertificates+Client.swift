import Crypto
public import Foundation
public import PushMockCore
import SwiftASN1
import X509

extension DevCertificates {
    /// An APNs client certificate (certificate-based authentication), as Apple issues them: subject
    /// `UID=<bundle>`, `CN=Apple Push Services: <bundle>`, the environment OIDs and the topic list.
    public struct ClientCertificate: Sendable {
        /// The certificate (PEM).
        public var certificatePEM: String
        /// Its private key (PEM, PKCS#8).
        public var privateKeyPEM: String
    }

    /// Issues an APNs client certificate from this material's CA.
    public func issueAPNSClientCertificate(
        bundleID: String = APNSConfiguration.sampleBundleID,
        environments: Set<APNSEnvironment> = [.sandbox, .production],
        topicKinds: [(suffix: String, kind: String)] = [("", "app"), (".voip", "voip"), (".complication", "complication")],
        now: Date = Date(),
        validity: TimeInterval = 365 * 86400
    ) throws -> ClientCertificate {
        let caKey = try P256.Signing.PrivateKey(pemRepresentation: caPrivateKeyPEM)
        let ca = try Certificate(pemEncoded: caCertificatePEM)
        let key = P256.Signing.PrivateKey()
        var extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.clientAuth])
        }
        if environments.contains(.sandbox) {
            try extensions.append(Certificate.Extension(oid: ClientCertificateTrust.sandboxOID, critical: false, value: Self.derNull))
        }
        if environments.contains(.production) {
            try extensions.append(Certificate.Extension(oid: ClientCertificateTrust.productionOID, critical: false, value: Self.derNull))
        }
        let topics = topicKinds.map { (bundleID + $0.suffix, $0.kind) }
        try extensions.append(
            Certificate.Extension(
                oid: ClientCertificateTrust.topicsOID, critical: false, value: ArraySlice(ClientCertificateTrust.topicsExtensionValue(topics))))
        let subject = DistinguishedName([
            RelativeDistinguishedName(.init(type: ClientCertificateTrust.userIDOID, utf8String: bundleID)),
            RelativeDistinguishedName(.init(type: .RDNAttributeType.commonName, utf8String: "Apple Push Services: \(bundleID)")),
            RelativeDistinguishedName(.init(type: .RDNAttributeType.organizationName, utf8String: "PushMock (development only, not secret)")),
        ])
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(validity),
            issuer: ca.subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: .init(caKey)
        )
        return ClientCertificate(certificatePEM: try certificate.serializeAsPEM().pemString + "\n", privateKeyPEM: key.pemRepresentation + "\n")
    }

    private static let derNull: ArraySlice<UInt8> = [0x05, 0x00]
}
