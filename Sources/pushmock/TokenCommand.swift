import ArgumentParser
import Crypto
import Foundation
import PushMockCore
import PushMockServer

/// `pushmock token apns`: prints a provider token (JWT) signed with a `.p8` key, so Apple's curl
/// recipe works without openssl.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Mint credentials for sending to PushMock.",
        subcommands: [APNS.self]
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
}
