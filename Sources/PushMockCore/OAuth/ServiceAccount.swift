public import _CryptoExtras

/// A Google service account as its key file describes it (fcm.md §8), with the public key that
/// verifies its assertions.
public struct ServiceAccount: Sendable {
    /// `project_id`.
    public var projectID: String
    /// `private_key_id`: the `kid` of its JWTs.
    public var privateKeyID: String
    /// `client_email`: the `iss` of its JWTs.
    public var clientEmail: String
    /// The RSA public key.
    public var publicKey: _RSA.Signing.PublicKey

    public init(projectID: String, privateKeyID: String, clientEmail: String, publicKey: _RSA.Signing.PublicKey) {
        self.projectID = projectID
        self.privateKeyID = privateKeyID
        self.clientEmail = clientEmail
        self.publicKey = publicKey
    }

    /// Why a key file was refused.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads a service account key file (JSON, Google's format).
    public static func parse(json bytes: [UInt8]) throws -> ServiceAccount {
        guard let root = JSONValue.parse(bytes), case .object = root else {
            throw Problem(description: "not a JSON object")
        }
        func text(_ key: String) throws -> String {
            guard case .string(let value)? = root[key], !value.isEmpty else {
                throw Problem(description: "\(key) is missing")
            }
            return value
        }
        guard try text("type") == "service_account" else {
            throw Problem(description: "type must be service_account")
        }
        let pem = try text("private_key")
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw Problem(description: "private_key is not an RSA private key in PEM: \(error)")
        }
        return ServiceAccount(
            projectID: try text("project_id"), privateKeyID: try text("private_key_id"), clientEmail: try text("client_email"),
            publicKey: key.publicKey)
    }
}
