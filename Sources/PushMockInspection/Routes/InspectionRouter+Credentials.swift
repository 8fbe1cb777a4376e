import Crypto
import PushMockCore

/// `GET /api/v1/credentials` and `GET /api/v1/credentials/{file}`: the development credentials in
/// use, with the service account's `token_uri` at the port the server really listens on.
extension InspectionRouter {
    /// The files `…/credentials/{file}` serves.
    static let credentialFiles = ["ca.pem", "apns-key.p8", "service-account.json", "authorized-user.json", "apns-token", "fcm-access-token"]

    func developmentCredentials() -> InspectionAnswer {
        let address = settings.pushAddress
        return .response(
            .json(200, settings.credentials.resource(port: address.port, host: address.host, tokenPath: settings.serviceAccounts.tokenPath)))
    }

    func credentialFile(_ call: InspectionCall) throws -> InspectionAnswer {
        let name = call.parameter("file")
        let credentials = settings.credentials
        let contents: (String, String?)
        switch name {
        case "ca.pem": contents = ("application/x-pem-file", credentials.caPEM)
        case "apns-key.p8": contents = ("application/x-pem-file", credentials.apnsKeyP8)
        case "service-account.json":
            let account = credentials.serviceAccount(port: settings.pushAddress.port, tokenPath: settings.serviceAccounts.tokenPath)
            contents = ("application/json", account.flatMap { InspectionResponse.encoded($0) }.map { String(decoding: $0, as: UTF8.self) + "\n" })
        case "authorized-user.json": contents = ("application/json", credentials.authorizedUserJSON)
        case "apns-token":
            // A provider token signed with the sample key, for helpers whose language has no ES256.
            guard let p8 = credentials.apnsKeyP8, let key = try? P256.Signing.PrivateKey(pemRepresentation: p8) else {
                throw InspectionError(404, "this server has no development APNs key to sign with")
            }
            let issuedAt = now() / 1200 * 1200  // one iat for 20 minutes: the same token to the churn rule (TooManyProviderTokenUpdates)
            let token = try ProviderToken.sign(keyID: credentials.apnsKeyID, teamID: credentials.apnsTeamID, issuedAt: issuedAt, key: key)
            return .response(.json(200, IssuedToken(token: token, issuedAt: issuedAt, expiresIn: nil)))
        case "fcm-access-token":
            guard let account = credentials.serviceAccount(port: settings.pushAddress.port, tokenPath: settings.serviceAccounts.tokenPath),
                let email = account["client_email"], let project = account["project_id"],
                let issued = control.issueAccessToken(
                    clientEmail: email, projectID: project, scope: "https://www.googleapis.com/auth/firebase.messaging")
            else { throw InspectionError(404, "this server has no development service account") }
            return .response(.json(200, IssuedToken(token: issued.token, issuedAt: nil, expiresIn: issued.expiresIn)))
        default:
            throw InspectionError(404, "no credential file \(name); the files are \(Self.credentialFiles.joined(separator: ", "))")
        }
        guard let text = contents.1 else {
            throw InspectionError(404, "this server has no \(name) (it runs with credentials of its own, not development ones)")
        }
        return .response(
            InspectionResponse(
                status: 200, contentType: contents.0, headers: [.init("content-disposition", "attachment; filename=\"\(name)\"")],
                body: Array(text.utf8)))
    }
}

/// A token minted for a test helper.
struct IssuedToken: Encodable {
    var token: String
    var issuedAt: Int64?
    var expiresIn: Int64?
}
