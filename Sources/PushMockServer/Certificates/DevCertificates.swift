import Crypto
public import Foundation
import PushMockCore
import SwiftASN1
import X509
import _CryptoExtras

/// Development-only TLS and credential material: a CA, a server certificate for localhost and the
/// Apple/Google host names, a sample APNs auth key and a sample FCM service account. **Not secret,
/// not for production.** `pushmock certs generate` writes it; the tests mint their own.
///
/// ```swift
/// let material = try DevCertificates.generate()
/// try material.write(to: URL(fileURLWithPath: "Certs"))
/// ```
public struct DevCertificates: Sendable {
    /// The host names and addresses the server certificate covers.
    public static let serverNames = [
        "localhost", "api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com",
        "api-broadcast.push.apple.com", "api-broadcast.sandbox.push.apple.com",
        "api-manage-broadcast.push.apple.com", "api-manage-broadcast.sandbox.push.apple.com",
        "fcm.googleapis.com", "oauth2.googleapis.com", "iid.googleapis.com",
        "web.push.apple.com", "updates.push.services.mozilla.com",
    ]
    /// The IP addresses the server certificate covers.
    public static let serverAddresses: [[UInt8]] = [[127, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]]
    /// The sample APNs key id (10 characters, like Apple's).
    public static let sampleAPNSKeyID = "PUSHMOCK01"
    /// The sample APNs team id (10 characters, like Apple's).
    public static let sampleAPNSTeamID = "PMTEAM0001"
    /// The sample FCM project id.
    public static let sampleFCMProjectID = "pushmock-demo"
    /// The sample user credentials' refresh token (Google's `1//…` shape; good against PushMock only).
    public static let sampleRefreshToken = "1//0pushmock-sample-refresh-token-not-a-secret-000000"
    /// A sample `authorized_user` credentials file, as `gcloud auth application-default login`
    /// writes it, with PushMock's sample OAuth client and the sample project as quota project.
    public static var authorizedUserJSON: String {
        let client = OAuthUserClient.sample
        return """
            {
              "account": "",
              "client_id": "\(client.clientID)",
              "client_secret": "\(client.clientSecret ?? "")",
              "quota_project_id": "\(sampleFCMProjectID)",
              "refresh_token": "\(sampleRefreshToken)",
              "type": "authorized_user",
              "universe_domain": "googleapis.com"
            }

            """
    }

    /// The CA certificate (PEM).
    public var caCertificatePEM: String
    /// The CA private key (PEM, PKCS#8).
    public var caPrivateKeyPEM: String
    /// The server certificate (PEM), issued by the CA.
    public var serverCertificatePEM: String
    /// The server private key (PEM, PKCS#8).
    public var serverPrivateKeyPEM: String
    /// The sample APNs auth key, as Apple ships `.p8` files (PEM, PKCS#8, P-256).
    public var apnsAuthKeyP8: String
    /// The sample FCM service account JSON, in Google's format.
    public var fcmServiceAccountJSON: String
    /// A sample APNs client certificate for `com.example.app` (sandbox and production), issued
    /// by the CA, for certificate-based authentication.
    public var apnsClientCertificatePEM: String = ""
    /// The client certificate's private key.
    public var apnsClientPrivateKeyPEM: String = ""

    /// Generates fresh material. `tokenURI` goes into the service account (where SDKs fetch tokens);
    /// the server certificate covers ``serverNames``, ``serverAddresses`` and `extraHosts`.
    public static func generate(
        now: Date = Date(),
        tokenURI: String = "https://localhost:2197/token",
        extraHosts: [CertificateHost] = []
    ) throws -> DevCertificates {
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName {
            OrganizationName("PushMock (development only, not secret)")
            CommonName("PushMock Dev CA")
        }
        let notBefore = now.addingTimeInterval(-3600)
        let caCertificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(caKey.publicKey),
            notValidBefore: notBefore,
            notValidAfter: now.addingTimeInterval(20 * 365 * 86400),
            issuer: caName,
            subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(caKey.publicKey))
            },
            issuerPrivateKey: .init(caKey)
        )
        let apnsKey = P256.Signing.PrivateKey()
        let fcmKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let account = FCMServiceAccountFile(
            projectID: sampleFCMProjectID,
            privateKeyID: Self.hexID(bytes: 20),
            privateKeyPEM: fcmKey.pkcs8PEMRepresentation,
            clientEmail: "pushmock-sender@\(sampleFCMProjectID).iam.gserviceaccount.com",
            clientID: String(UInt64.random(in: 100_000_000_000_000_000...999_999_999_999_999_999)),
            tokenURI: tokenURI
        )
        var material = DevCertificates(
            caCertificatePEM: try caCertificate.serializeAsPEM().pemString + "\n",
            caPrivateKeyPEM: caKey.pemRepresentation + "\n",
            serverCertificatePEM: "",
            serverPrivateKeyPEM: "",
            apnsAuthKeyP8: apnsKey.pemRepresentation + "\n",
            fcmServiceAccountJSON: try account.jsonString()
        )
        let server = try material.issueServerCertificate(extraHosts: extraHosts, now: now)
        material.serverCertificatePEM = server.certificatePEM
        material.serverPrivateKeyPEM = server.privateKeyPEM
        let client = try material.issueAPNSClientCertificate(now: now)
        material.apnsClientCertificatePEM = client.certificatePEM
        material.apnsClientPrivateKeyPEM = client.privateKeyPEM
        return material
    }

    /// The file names inside a Certs directory.
    public enum FileName {
        public static let caCertificate = "ca.pem"
        public static let caPrivateKey = "ca-key.pem"
        public static let serverCertificate = "server.pem"
        public static let serverPrivateKey = "server-key.pem"
        public static let apnsAuthKey = "AuthKey_\(DevCertificates.sampleAPNSKeyID).p8"
        public static let fcmServiceAccount = "fcm-service-account.json"
        public static let authorizedUser = "authorized-user.json"
        public static let apnsClientCertificate = "apns-client.pem"
        public static let apnsClientPrivateKey = "apns-client-key.pem"

        /// The files that hold a private key or a credential: written for the owner alone (0600).
        public static let privateFiles: Set<String> = [
            caPrivateKey, serverPrivateKey, apnsAuthKey, fcmServiceAccount, authorizedUser, apnsClientPrivateKey,
        ]
    }

    /// Writes every file into `directory` (created if needed), returning the paths written.
    @discardableResult
    public func write(to directory: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let files: [(String, String)] = [
            (FileName.caCertificate, caCertificatePEM),
            (FileName.caPrivateKey, caPrivateKeyPEM),
            (FileName.serverCertificate, serverCertificatePEM),
            (FileName.serverPrivateKey, serverPrivateKeyPEM),
            (FileName.apnsAuthKey, apnsAuthKeyP8),
            (FileName.fcmServiceAccount, fcmServiceAccountJSON),
            (FileName.authorizedUser, Self.authorizedUserJSON),
            (FileName.apnsClientCertificate, apnsClientCertificatePEM),
            (FileName.apnsClientPrivateKey, apnsClientPrivateKeyPEM),
        ]
        return try files.map { name, contents in
            let url = directory.appendingPathComponent(name)
            try Data(contents.utf8).write(to: url, options: .atomic)
            // Keys are the owner's alone (the CA's key among them: a system that trusts the CA
            // trusts whoever can read it).
            try FileManager.default.setAttributes(
                [.posixPermissions: FileName.privateFiles.contains(name) ? 0o600 : 0o644], ofItemAtPath: url.path)
            return url
        }
    }

    private static func hexID(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

/// A Google service account key file, in the format the Firebase Admin SDKs read.
struct FCMServiceAccountFile: Codable {
    var type = "service_account"
    var projectID: String
    var privateKeyID: String
    var privateKeyPEM: String
    var clientEmail: String
    var clientID: String
    var authURI = "https://accounts.google.com/o/oauth2/auth"
    var tokenURI: String
    var authProviderCertURL = "https://www.googleapis.com/oauth2/v1/certs"
    var universeDomain = "googleapis.com"

    enum CodingKeys: String, CodingKey {
        case type
        case projectID = "project_id"
        case privateKeyID = "private_key_id"
        case privateKeyPEM = "private_key"
        case clientEmail = "client_email"
        case clientID = "client_id"
        case authURI = "auth_uri"
        case tokenURI = "token_uri"
        case authProviderCertURL = "auth_provider_x509_cert_url"
        case universeDomain = "universe_domain"
    }

    func jsonString() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }
}
