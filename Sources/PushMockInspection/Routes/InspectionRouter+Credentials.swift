/// `GET /api/v1/credentials` and `GET /api/v1/credentials/{file}`: the development credentials in
/// use, with the service account's `token_uri` at the port the server really listens on.
extension InspectionRouter {
    /// The files `…/credentials/{file}` serves.
    static let credentialFiles = ["ca.pem", "apns-key.p8", "service-account.json", "authorized-user.json"]

    func developmentCredentials() -> InspectionAnswer {
        let address = settings.pushAddress
        return .response(.json(200, settings.credentials.resource(port: address.port, host: address.host, tokenPath: settings.serviceAccounts.tokenPath)))
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
        default:
            throw InspectionError(404, "no credential file \(name); the files are \(Self.credentialFiles.joined(separator: ", "))")
        }
        guard let text = contents.1 else {
            throw InspectionError(404, "this server has no \(name) (it runs with credentials of its own, not development ones)")
        }
        return .response(InspectionResponse(status: 200, contentType: contents.0, headers: [.init("content-disposition", "attachment; filename=\"\(name)\"")], body: Array(text.utf8)))
    }
}
