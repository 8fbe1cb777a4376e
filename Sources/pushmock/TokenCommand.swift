import ArgumentParser
import Foundation
import PushMockCore
import PushMockServer

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

        @OptionGroup var keyOptions: APNSKeyOptions

        @OptionGroup var lookup: ServerLookupOptions

        @Option(help: "iat in seconds since the epoch (default: now).")
        var issuedAt: Int64?

        @Flag(help: "Encode the signature in ASN.1 DER (as openssl does) instead of raw r||s.")
        var der = false

        func run() async throws {
            let found = keyOptions.key == nil ? try await lookup.lookUp(localFile: APNSKeyOptions.localKey) : .init()
            let issuedAt = issuedAt ?? Int64(Date().timeIntervalSince1970)
            print(try keyOptions.token(issuedAt: issuedAt, der: der, server: found.server, unanswered: found.unanswered))
        }
    }

    struct FCM: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fcm",
            abstract: "Print a service-account JWT: an assertion for the token endpoint, or (--self-signed) a bearer for messages:send."
        )

        @OptionGroup var account: ServiceAccountOptions

        @OptionGroup var lookup: ServerLookupOptions

        @Flag(help: "Sign a JWT for direct use as a bearer (aud https://fcm.googleapis.com/) instead of an assertion.")
        var selfSigned = false

        @Option(help: "The audience of the assertion (default: Google's token URL).")
        var audience = OAuthTokenEndpoint.googleAudience

        func run() async throws {
            let found = account.serviceAccount == nil ? try await lookup.lookUp(localFile: ServiceAccountOptions.localAccount) : .init()
            print(try account.jwt(audience: audience, selfSigned: selfSigned, server: found.server, unanswered: found.unanswered))
        }
    }
}
