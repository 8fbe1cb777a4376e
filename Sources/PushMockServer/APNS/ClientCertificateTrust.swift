import Foundation
import PushMockCore
import SwiftASN1
import X509

/// Judges APNs client certificates (reference §6): they must be issued by a configured trust
/// root and valid now; the bundle id comes from the subject UID, the topics from OID
/// 1.2.840.113635.100.6.3.6 and the environments from OIDs …6.3.1 (sandbox) and …6.3.2 (production).
struct ClientCertificateTrust: Sendable {
    static let userIDOID: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]
    static let sandboxOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 1]
    static let productionOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 2]
    static let topicsOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 6]

    let roots: [Certificate]

    init(rootsPEM: [String]) throws {
        var roots: [Certificate] = []
        for pem in rootsPEM {
            do {
                for document in try PEMDocument.parseMultiple(pemString: pem) where document.discriminator == "CERTIFICATE" {
                    roots.append(try Certificate(derEncoded: document.derBytes))
                }
            } catch {
                throw PushMockError(code: .invalidConfiguration, message: "cannot read a certificate trust root: \(error)")
            }
        }
        self.roots = roots
    }

    /// The credential of a connection whose client sent `chain` (DER, leaf first).
    func credential(for chain: [[UInt8]], now: Date) -> APNSConnectionCredential {
        guard let leafDER = chain.first else { return .token }
        let leaf: Certificate
        do {
            leaf = try Certificate(derEncoded: leafDER)
        } catch {
            return .untrustedCertificate(subject: "(unparseable)", problem: "the certificate cannot be parsed: \(error)")
        }
        let subject = leaf.subject.description
        guard now >= leaf.notValidBefore, now <= leaf.notValidAfter else {
            return .untrustedCertificate(subject: subject, problem: "not valid at this time (\(leaf.notValidBefore) – \(leaf.notValidAfter))")
        }
        let issuers = roots.filter { $0.subject == leaf.issuer } + chain.dropFirst().compactMap { try? Certificate(derEncoded: $0) }
        guard issuers.contains(where: { $0.publicKey.isValidSignature(leaf.signature, for: leaf) && roots.contains($0) }) else {
            return .untrustedCertificate(
                subject: subject, problem: "not issued by a configured trust root (\(roots.map { $0.subject.description }.joined(separator: "; ")))")
        }
        return .certificate(Self.identity(of: leaf))
    }

    static func identity(of certificate: Certificate) -> APNSCertificateIdentity {
        var bundleID = ""
        for rdn in certificate.subject {
            for attribute in rdn where attribute.type == userIDOID {
                bundleID = String(attribute.value) ?? ""
            }
        }
        var environments: Set<APNSEnvironment> = []
        var topics: [String] = []
        for ext in certificate.extensions {
            switch ext.oid {
            case sandboxOID: environments.insert(.sandbox)
            case productionOID: environments.insert(.production)
            case topicsOID: topics = Self.topics(fromExtensionValue: ext.value)
            default: break
            }
        }
        if topics.isEmpty, !bundleID.isEmpty {
            topics = [bundleID]
        }
        return APNSCertificateIdentity(subject: certificate.subject.description, bundleID: bundleID, topics: topics, environments: environments)
    }

    /// Apple's topic extension: a SEQUENCE alternating a topic (UTF8String) and a SEQUENCE of its
    /// kinds (`app`, `voip`, `complication`…). The topics are the top-level strings.
    static func topics(fromExtensionValue value: ArraySlice<UInt8>) -> [String] {
        guard let root = try? DER.parse(value), case .constructed(let children) = root.content else { return [] }
        return children.compactMap { child in
            guard child.identifier == .utf8String else { return nil }
            return (try? ASN1UTF8String(derEncoded: child)).map { String($0) }
        }
    }

    /// The extension value for `topics` (used to issue sample certificates).
    static func topicsExtensionValue(_ topics: [(topic: String, kind: String)]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            for (topic, kind) in topics {
                try coder.serialize(ASN1UTF8String(topic))
                try coder.appendConstructedNode(identifier: .sequence) { inner in
                    try inner.serialize(ASN1UTF8String(kind))
                }
            }
        }
        return serializer.serializedBytes
    }
}
