import ArgumentParser
import Crypto
import Foundation
import PushMockCore
import PushMockServer
import _CryptoExtras

/// `pushmock token apns`: prints a provider token (JWT) signed with a `.p8` key, so Apple's curl
/// recipe works without openssl.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Mint credentials for sending to PushMock.",
        subcommands: [APNS.self, FCM.self]
    )

    struct APNS: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apns",
            abstract: "Print an APNs provider token (ES256 JWT) for a .p8 key."
        )

        @Option(help: "The .p8 key file.")
        var key = "Certs/\(DevCertificates.FileName.apnsAuthKey)"

        @Option(help: "The key id (kid).")
        var keyID = DevCertificates.sampleAPNSKeyID

        @Option(help: "The team id (iss).")
        var teamID = DevCertificates.sampleAPNSTeamID

        @Option(help: "iat in seconds since the epoch (default: now).")
        var issuedAt: Int64?

        @Flag(help: "Encode the signature in ASN.1 DER (as openssl does) instead of raw r||s.")
        var der = false

        func run() async throws {
            guard FileManager.default.fileExists(atPath: key) else {
                throw ValidationError("\(key) not found (run from the repository root or pass --key)")
            }
            let pem = try String(contentsOfFile: key, encoding: .utf8)
            let privateKey: P256.Signing.PrivateKey
            do {
                privateKey = try P256.Signing.PrivateKey(pemRepresentation: pem)
            } catch {
                throw ValidationError("\(key) is not a P-256 private key in PEM (.p8): \(error)")
            }
            let iat = issuedAt ?? Int64(Date().timeIntervalSince1970)
            print(try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: iat, key: privateKey, der: der))
        }
    }

    struct FCM: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fcm",
            abstract: "Print a service-account JWT: an assertion for the token endpoint, or (--self-signed) a bearer for messages:send."
        )

        @Option(help: "The service account key file.")
        var serviceAccount = "Certs/\(DevCertificates.FileName.fcmServiceAccount)"

        @Flag(help: "Sign a JWT for direct use as a bearer (aud https://fcm.googleapis.com/) instead of an assertion.")
        var selfSigned = false

        @Option(help: "The audience of the assertion (default: Google's token URL).")
        var audience = OAuthTokenEndpoint.googleAudience

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: serviceAccount) else {
                throw ValidationError("\(serviceAccount) not found (run from the repository root or pass --service-account)")
            }
            guard case .object? = JSONValue.parse(Array(data)),
                let json = JSONValue.parse(Array(data)),
                case .string(let pem)? = json["private_key"], case .string(let keyID)? = json["private_key_id"],
                case .string(let email)? = json["client_email"]
            else {
                throw ValidationError("\(serviceAccount) is not a service account key file")
            }
            let key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
            let now = Int64(Date().timeIntervalSince1970)
            if selfSigned {
                print(try OAuthAssertion.sign(key: key, keyID: keyID, issuer: email, audience: "https://fcm.googleapis.com/", scope: nil, issuedAt: now))
            } else {
                print(try OAuthAssertion.sign(key: key, keyID: keyID, issuer: email, audience: audience, scope: "https://www.googleapis.com/auth/firebase.messaging", issuedAt: now))
            }
        }
    }
}
