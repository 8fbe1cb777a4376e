import Crypto
public import Foundation
import PushMockCore
import SwiftASN1
import X509

/// A name the server certificate covers besides the defaults (`serve --cert-host`): a DNS name
/// (`pushmock`, `push.test`, `*.push.test`) or an IP address (`10.0.0.5`, `fd00::5`).
///
/// ```swift
/// let host = try CertificateHost("pushmock")
/// ```
public struct CertificateHost: Sendable, Hashable, CustomStringConvertible {
    /// The name as it goes into the certificate: a DNS name in lower case, or an address's text.
    public let name: String
    /// The address's bytes (4 or 16) when the name is an IP address.
    public let address: [UInt8]?

    public var description: String { name }

    /// Parses `text`, or throws an error that says what a certificate host may be.
    public init(_ text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let bare = trimmed.hasPrefix("[") && trimmed.hasSuffix("]") ? String(trimmed.dropFirst().dropLast()) : trimmed
        if let bytes = Self.addressBytes(bare) {
            name = bare
            address = bytes
            return
        }
        let lowered = trimmed.lowercased()
        guard Self.isDNSName(lowered) else {
            throw PushMockError(
                code: .invalidConfiguration,
                message:
                    "--cert-host \(PrintableText.escaped(text)): not a host name or IP address (letters, digits and - in dot-separated labels of at most 63 characters, 253 in all; a first label of * for a wildcard)"
            )
        }
        name = lowered
        address = nil
    }

    var generalName: GeneralName {
        if let address { return .ipAddress(ASN1OctetString(contentBytes: address[...])) }
        return .dnsName(name)
    }

    private static func isDNSName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        for (index, label) in labels.enumerated() {
            if index == 0, label == "*", labels.count > 2 { continue }
            guard (1...63).contains(label.utf8.count), label.first != "-", label.last != "-",
                label.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D })
            else { return false }
        }
        return true
    }

    /// The bytes of an IPv4 (`10.0.0.5`) or IPv6 (`fd00::5`, `::ffff:10.0.0.5`) address, nil for
    /// anything else.
    static func addressBytes(_ text: String) -> [UInt8]? {
        ipv4Bytes(Substring(text)) ?? ipv6Bytes(text)
    }

    private static func ipv4Bytes(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), let value = UInt8(part), part.count == 1 || part.first != "0"
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    private static func ipv6Bytes(_ text: String) -> [UInt8]? {
        guard text.contains(":") else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = ipv4Bytes(piece) {
                    bytes += v4
                } else {
                    guard (1...4).contains(piece.count), piece.allSatisfy(\.isHexDigit), let value = UInt16(piece, radix: 16) else { return nil }
                    bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
                }
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}

extension DevCertificates {
    /// The server certificate and its key.
    public struct ServerCertificate: Sendable {
        /// The certificate (PEM).
        public var certificatePEM: String
        /// Its private key (PEM, PKCS#8).
        public var privateKeyPEM: String
    }

    /// Issues a server certificate from this material's CA for ``serverNames``,
    /// ``serverAddresses`` and `extraHosts`. Valid for 397 days: under 398, so strict clients
    /// accept it.
    public func issueServerCertificate(extraHosts: [CertificateHost] = [], now: Date = Date()) throws -> ServerCertificate {
        try issueServerCertificate(names: Self.serverNames, extraHosts: extraHosts, now: now)
    }

    /// The same for `serverNames` instead of ``serverNames`` (a test makes an older PushMock's).
    func issueServerCertificate(names serverNames: [String], extraHosts: [CertificateHost], now: Date) throws -> ServerCertificate {
        let caKey = try P256.Signing.PrivateKey(pemRepresentation: caPrivateKeyPEM)
        let ca = try Certificate(pemEncoded: caCertificatePEM)
        let key = P256.Signing.PrivateKey()
        var names: [GeneralName] = serverNames.map { .dnsName($0) }
        names += Self.serverAddresses.map { .ipAddress(ASN1OctetString(contentBytes: $0[...])) }
        for host in extraHosts where !names.contains(host.generalName) { names.append(host.generalName) }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(397 * 86400),
            issuer: ca.subject,
            subject: try DistinguishedName {
                OrganizationName("PushMock (development only, not secret)")
                CommonName("localhost")
            },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
                SubjectKeyIdentifier(hash: .init(key.publicKey))
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: .init(caKey.publicKey)).keyIdentifier)
            },
            issuerPrivateKey: .init(caKey)
        )
        return ServerCertificate(certificatePEM: try certificate.serializeAsPEM().pemString + "\n", privateKeyPEM: key.pemRepresentation + "\n")
    }

    /// Whether the server certificate in `pem` names every one of `hosts`.
    public static func serverCertificate(_ pem: String, covers hosts: [CertificateHost]) -> Bool {
        guard let certificate = try? Certificate(pemEncoded: pem),
            let names = try? certificate.extensions.subjectAlternativeNames
        else { return hosts.isEmpty }
        return hosts.allSatisfy { names.contains($0.generalName) }
    }
}
