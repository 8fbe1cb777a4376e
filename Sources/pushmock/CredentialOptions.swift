import ArgumentParser
import Crypto
import Foundation
import PushMockCore
import PushMockServer
import _CryptoExtras

/// The APNs signing key options `token apns` and `send apns` share, and the provider token they sign.
struct APNSKeyOptions: ParsableArguments {
    @Option(help: "The .p8 key file (default: the development key in Certs/ or the data directory).")
    var key = DevMaterialDirectory.resolve(dataDirectory: nil).file(DevCertificates.FileName.apnsAuthKey)

    @Option(help: "The key id (kid).")
    var keyID = DevCertificates.sampleAPNSKeyID

    @Option(help: "The team id (iss).")
    var teamID = DevCertificates.sampleAPNSTeamID

    /// A provider token issued at `issuedAt` (seconds since 1970).
    func token(issuedAt: Int64, der: Bool = false) throws -> String {
        guard FileManager.default.fileExists(atPath: key) else {
            throw ValidationError("\(key) not found: start pushmock serve once (it creates the development credentials), or pass --key")
        }
        let pem = try String(contentsOfFile: key, encoding: .utf8)
        let privateKey: P256.Signing.PrivateKey
        do {
            privateKey = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw ValidationError("\(key) is not a P-256 private key in PEM (.p8): \(error)")
        }
        return try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: issuedAt, key: privateKey, der: der)
    }
}

/// The service account option `token fcm` and `send fcm` share.
struct ServiceAccountOptions: ParsableArguments {
    @Option(help: "The service account key file (default: the development account in Certs/ or the data directory).")
    var serviceAccount = DevMaterialDirectory.resolve(dataDirectory: nil).file(DevCertificates.FileName.fcmServiceAccount)

    /// The account and its signing key.
    func load() throws -> (account: ServiceAccount, key: _RSA.Signing.PrivateKey) {
        guard let data = FileManager.default.contents(atPath: serviceAccount) else {
            throw ValidationError("\(serviceAccount) not found (run from the repository root or pass --service-account)")
        }
        guard let account = try? ServiceAccount.parse(json: Array(data)), case .string(let pem)? = JSONValue.parse(Array(data))?["private_key"],
            let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem)
        else {
            throw ValidationError("\(serviceAccount) is not a service account key file")
        }
        return (account, key)
    }

    /// A JWT signed by the account: an assertion for `audience` with the messaging scope, or a
    /// self-signed bearer for messages:send.
    func jwt(audience: String, selfSigned: Bool = false) throws -> String {
        let (account, key) = try load()
        let now = Int64(Date().timeIntervalSince1970)
        return try OAuthAssertion.sign(
            key: key, keyID: account.privateKeyID, issuer: account.clientEmail,
            audience: selfSigned ? "https://fcm.googleapis.com/" : audience,
            scope: selfSigned ? nil : "https://www.googleapis.com/auth/firebase.messaging", issuedAt: now
        )
    }
}
