import Foundation

/// The development credentials the server runs with (the data directory's or `Certs/`), served by
/// `GET /api/v1/credentials` so that a test in any language can fetch them: the CA to trust, the
/// sample APNs key, the sample FCM service account (its `token_uri` naming the port the server
/// really listens on) and sample user credentials. Dev material only, never a configured key:
/// none of it protects anything.
public struct DevelopmentCredentials: Sendable {
    /// The CA certificate (PEM) the push port's certificate chains to.
    public var caPEM: String?
    /// The sample APNs key: key id, team id and the `.p8` (PEM).
    public var apnsKeyID: String
    public var apnsTeamID: String
    public var apnsKeyP8: String?
    /// The sample service account key file (Google's JSON).
    public var serviceAccountJSON: String?
    /// The sample `authorized_user` file.
    public var authorizedUserJSON: String?

    public init(
        caPEM: String? = nil, apnsKeyID: String = "", apnsTeamID: String = "", apnsKeyP8: String? = nil, serviceAccountJSON: String? = nil,
        authorizedUserJSON: String? = nil
    ) {
        self.caPEM = caPEM
        self.apnsKeyID = apnsKeyID
        self.apnsTeamID = apnsTeamID
        self.apnsKeyP8 = apnsKeyP8
        self.serviceAccountJSON = serviceAccountJSON
        self.authorizedUserJSON = authorizedUserJSON
    }

    /// The service account with `token_uri` at `https://localhost:<port><tokenPath>`.
    func serviceAccount(port: Int, tokenPath: String) -> [String: String]? {
        guard let text = serviceAccountJSON, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            return nil
        }
        var account = object.compactMapValues { $0 as? String }
        account["token_uri"] = "https://localhost:\(port)\(tokenPath)"
        return account
    }

    /// The JSON body of `GET /api/v1/credentials`.
    struct Resource: Encodable {
        var pushUrl: String
        var caPem: String?
        var apns: APNS?
        var serviceAccount: [String: String]?
        var authorizedUser: [String: String]?
        var samples: Samples

        struct APNS: Encodable {
            var keyId: String
            var teamId: String
            var p8: String
            var bundleId: String
        }

        struct Samples: Encodable {
            var apnsDeviceToken = String(repeating: "ab", count: 32)
            var fcmRegistrationToken = "dGVzdC1pbnN0YW5jZS0wMDAx:APA91b" + String(repeating: "Fk3", count: 40)
            var fid = "cPushMockSampleFID0001"
        }
    }

    func resource(port: Int, host: String, tokenPath: String) -> Resource {
        Resource(
            pushUrl: "https://\(host == "127.0.0.1" ? "localhost" : host):\(port)", caPem: caPEM,
            apns: apnsKeyP8.map { Resource.APNS(keyId: apnsKeyID, teamId: apnsTeamID, p8: $0, bundleId: "com.example.app") },
            serviceAccount: serviceAccount(port: port, tokenPath: tokenPath),
            authorizedUser: authorizedUserJSON.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?.compactMapValues
            { $0 as? String },
            samples: Resource.Samples()
        )
    }
}
