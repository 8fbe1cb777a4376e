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
            "The .p8 key file (default: `send` takes the server's from its inspection API, `token` the development key in Certs/ or the data directory; each falls back on the other).",
            valueName: "key"))
    var key: String?

    @Option(help: "The key id (kid; default the server's, else \(DevCertificates.sampleAPNSKeyID)).")
    var keyID: String?

    @Option(help: "The team id (iss; default the server's, else \(DevCertificates.sampleAPNSTeamID)).")
    var teamID: String?

    /// The local development key, used when neither `--key` nor a server gives one.
    static var localKey: String { DevMaterialDirectory.resolve(dataDirectory: nil).file(DevCertificates.FileName.apnsAuthKey) }

    /// A provider token issued at `issuedAt` (seconds since 1970), signed with `--key`, else the
    /// server's key (`server`), else the local development key. `unanswered` says why no server
    /// gave one, for the error when there is no local key either.
    func token(issuedAt: Int64, der: Bool = false, server: ServerCredentials? = nil, unanswered: String? = nil) throws -> String {
        let pem: String
        let origin: String
        if key == nil, let served = server?.apnsKeyP8 {
            (pem, origin) = (served, "the key served at \(server?.source ?? "the inspection API")")
        } else {
            let path = key ?? Self.localKey
            guard FileManager.default.fileExists(atPath: path) else {
                if key != nil { throw ValidationError("--key \(path): no such file") }
                throw ValidationError(missingCredentials(path, unanswered: unanswered, option: "--key"))
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
            "The service account key file (default: `send` takes the server's from its inspection API, `token` the development account in Certs/ or the data directory; each falls back on the other).",
            valueName: "file"))
    var serviceAccount: String?

    /// The local development account, used when neither `--service-account` nor a server gives one.
    static var localAccount: String { DevMaterialDirectory.resolve(dataDirectory: nil).file(DevCertificates.FileName.fcmServiceAccount) }

    /// The account and its signing key: `--service-account`, else the server's, else the local
    /// development account (`unanswered`: why no server gave one, for the error).
    func load(server: ServerCredentials? = nil, unanswered: String? = nil) throws -> (account: ServiceAccount, key: _RSA.Signing.PrivateKey) {
        let data: [UInt8]
        let origin: String
        if serviceAccount == nil, let served = server?.serviceAccountJSON {
            (data, origin) = (served, "the service account served at \(server?.source ?? "the inspection API")")
        } else {
            let path = serviceAccount ?? Self.localAccount
            guard let contents = FileManager.default.contents(atPath: path) else {
                if serviceAccount != nil { throw ValidationError("--service-account \(path): no such file") }
                throw ValidationError(missingCredentials(path, unanswered: unanswered, option: "--service-account"))
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
    func jwt(audience: String, selfSigned: Bool = false, server: ServerCredentials? = nil, unanswered: String? = nil) throws -> String {
        let (account, key) = try load(server: server, unanswered: unanswered)
        let now = Int64(Date().timeIntervalSince1970)
        return try OAuthAssertion.sign(
            key: key, keyID: account.privateKeyID, issuer: account.clientEmail,
            audience: selfSigned ? "https://fcm.googleapis.com/" : audience,
            scope: selfSigned ? nil : "https://www.googleapis.com/auth/firebase.messaging", issuedAt: now
        )
    }
}

/// What to do when there is no local development credential at `path` and no server gave one
/// (`unanswered` says why, when one was asked).
private func missingCredentials(_ path: String, unanswered: String?, option: String) -> String {
    let asked = unanswered.map { ", and \($0)" } ?? ""
    return
        "\(path) not found\(asked): start pushmock serve (it creates the development credentials), pass --inspection-url of a running server, or pass \(option)"
}

/// Where `token apns` and `token fcm` find a running server's credentials: the server that
/// `--inspection-url` or `PUSHMOCK_URL` names; with neither, and only when there is no local
/// development credential (a checkout's `Certs/`, else the data directory), the newest running
/// server's locator file, else the default inspection address. A credential found locally is
/// never traded for one found by looking around, so a checkout's tokens stay its own.
struct ServerLookupOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A running server's inspection API, whose credentials sign (default $PUSHMOCK_URL; with neither, and no local development credentials, a running server's locator file, else http://127.0.0.1:2198); none: local credentials only.",
            valueName: "url"))
    var inspectionURL: String?

    @Option(help: "The inspection token, if the server wants one (default $PUSHMOCK_TOKEN or $PUSHMOCK_INSPECTION_TOKEN).")
    var inspectionToken: String?

    /// What the lookup found: a server's credentials, or why the server it asked gave none.
    struct Found {
        var server: ServerCredentials?
        var unanswered: String?
    }

    /// The server's credentials, when one is named or `localFile` does not exist. A named server
    /// that gives none leaves the local file to be used, with a note on standard error.
    func lookUp(localFile: String, environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> Found {
        guard inspectionURL != "none" else { return Found() }
        let named = inspectionURL != nil || !(environment["PUSHMOCK_URL"] ?? "").isEmpty
        let hasLocal = FileManager.default.fileExists(atPath: localFile)
        guard named || !hasLocal else { return Found() }
        let endpoint = InspectionEndpoint.resolve(url: inspectionURL, token: inspectionToken, environment: environment)
        var found = Found()
        switch try await SendClient.credentials(endpoint) {
        case .success(let server): found.server = server
        case .failure(let why): found.unanswered = why.description
        }
        if let why = found.unanswered, hasLocal {
            FileHandle.standardError.write(Data("note: \(why); using \(localFile)\n".utf8))
        }
        return found
    }
}
