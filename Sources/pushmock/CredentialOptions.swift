import ArgumentParser
import Crypto
import Foundation
import PushMockCore
import PushMockServer
import _CryptoExtras

/// The APNs signing key options `token apns` and `send apns` share, and the provider token they sign.
struct APNSKeyOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The .p8 key file (default: `send` takes the server's from its inspection API; otherwise the development key in Certs/ or the data directory).",
            valueName: "key"))
    var key: String?

    @Option(help: "The key id (kid; default the server's, else \(DevCertificates.sampleAPNSKeyID)).")
    var keyID: String?

    @Option(help: "The team id (iss; default the server's, else \(DevCertificates.sampleAPNSTeamID)).")
    var teamID: String?

    /// The local development key, used when neither `--key` nor a server gives one.
    static var localKey: String { DevMaterialDirectory.resolve(dataDirectory: nil).file(DevCertificates.FileName.apnsAuthKey) }

    /// A provider token issued at `issuedAt` (seconds since 1970), signed with `--key`, else the
    /// server's key (`server`), else the local development key.
    func token(issuedAt: Int64, der: Bool = false, server: ServerCredentials? = nil) throws -> String {
        let pem: String
        let origin: String
        if key == nil, let served = server?.apnsKeyP8 {
            (pem, origin) = (served, "the key served at \(server?.source ?? "the inspection API")")
        } else {
            let path = key ?? Self.localKey
            guard FileManager.default.fileExists(atPath: path) else {
                throw ValidationError(
                    "\(path) not found: start pushmock serve once (it creates the development credentials), pass --inspection-url of a running server, or pass --key"
                )
            }
            (pem, origin) = (try String(contentsOfFile: path, encoding: .utf8), path)
        }
        let privateKey: P256.Signing.PrivateKey
        do {
            privateKey = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw ValidationError("\(origin) is not a P-256 private key in PEM (.p8): \(error)")
        }
        let served = key == nil ? server : nil
        return try ProviderToken.sign(
            keyID: keyID ?? served?.apnsKeyID ?? DevCertificates.sampleAPNSKeyID,
            teamID: teamID ?? served?.apnsTeamID ?? DevCertificates.sampleAPNSTeamID, issuedAt: issuedAt, key: privateKey, der: der)
    }
}

/// The service account option `token fcm` and `send fcm` share.
struct ServiceAccountOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The service account key file (default: `send` takes the server's from its inspection API; otherwise the development account in Certs/ or the data directory).",
            valueName: "file"))
    var serviceAccount: String?

    /// The account and its signing key: `--service-account`, else the server's, else the local
    /// development account.
    func load(server: ServerCredentials? = nil) throws -> (account: ServiceAccount, key: _RSA.Signing.PrivateKey) {
        let data: [UInt8]
        let origin: String
        if serviceAccount == nil, let served = server?.serviceAccountJSON {
            (data, origin) = (served, "the service account served at \(server?.source ?? "the inspection API")")
        } else {
            let path = serviceAccount ?? DevMaterialDirectory.resolve(dataDirectory: nil).file(DevCertificates.FileName.fcmServiceAccount)
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ValidationError(
                    "\(path) not found: start pushmock serve once, pass --inspection-url of a running server, or pass --service-account")
            }
            (data, origin) = (Array(contents), path)
        }
        guard let account = try? ServiceAccount.parse(json: data), case .string(let pem)? = JSONValue.parse(data)?["private_key"],
            let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem)
        else {
            throw ValidationError("\(origin) is not a service account key file")
        }
        return (account, key)
    }

    /// A JWT signed by the account: an assertion for `audience` with the messaging scope, or a
    /// self-signed bearer for messages:send.
    func jwt(audience: String, selfSigned: Bool = false, server: ServerCredentials? = nil) throws -> String {
        let (account, key) = try load(server: server)
        let now = Int64(Date().timeIntervalSince1970)
        return try OAuthAssertion.sign(
            key: key, keyID: account.privateKeyID, issuer: account.clientEmail,
            audience: selfSigned ? "https://fcm.googleapis.com/" : audience,
            scope: selfSigned ? nil : "https://www.googleapis.com/auth/firebase.messaging", issuedAt: now
        )
    }
}
