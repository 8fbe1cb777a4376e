public import Foundation
import PushMockInspection

/// Where `pushmock` finds its development credentials (CA, server certificate, sample APNs key,
/// sample FCM service account), so that it runs with no repository checkout:
///
/// 1. `--data-dir DIR` (or `PUSHMOCK_DATA_DIR`): `DIR/certs`, created once and then reused;
/// 2. otherwise `Certs/` in the working directory, when it holds `server.pem` (a checkout);
/// 3. otherwise the user's data directory: `$XDG_DATA_HOME/pushmock/certs`, or
///    `~/.local/share/pushmock/certs`.
///
/// ```swift
/// let material = try DevMaterialDirectory.resolve(dataDirectory: nil)
/// let created = try material.ensure()  // true the first time
/// ```
public struct DevMaterialDirectory: Sendable, Equatable {
    /// The folder holding the files (`DevCertificates.FileName`).
    public var path: String
    /// Whether PushMock owns the folder (a data directory), rather than a checkout's `Certs/`.
    public var isDataDirectory: Bool

    public init(path: String, isDataDirectory: Bool) {
        self.path = path
        self.isDataDirectory = isDataDirectory
    }

    /// The folder for `dataDirectory` (nil: the rules above), given the environment and working directory.
    public static func resolve(
        dataDirectory: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
    ) -> DevMaterialDirectory {
        if let dataDirectory = dataDirectory ?? environment["PUSHMOCK_DATA_DIR"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return DevMaterialDirectory(path: (dataDirectory as NSString).appendingPathComponent("certs"), isDataDirectory: true)
        }
        if fileExists("Certs/\(DevCertificates.FileName.serverCertificate)") {
            return DevMaterialDirectory(path: "Certs", isDataDirectory: false)
        }
        return DevMaterialDirectory(
            path: (defaultDataDirectory(environment: environment) as NSString).appendingPathComponent("certs"), isDataDirectory: true)
    }

    /// `$XDG_DATA_HOME/pushmock`, else `~/.local/share/pushmock`.
    public static func defaultDataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return (xdg as NSString).appendingPathComponent("pushmock")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".local/share/pushmock")
    }

    /// A file of the material.
    public func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    /// Files that make the material whole.
    static let required = [
        DevCertificates.FileName.caCertificate, DevCertificates.FileName.serverCertificate, DevCertificates.FileName.serverPrivateKey,
        DevCertificates.FileName.apnsAuthKey, DevCertificates.FileName.fcmServiceAccount,
    ]

    /// Creates the material if the folder lacks it (a data directory only; a checkout's `Certs/` is
    /// never written). Returns whether it was created now.
    @discardableResult
    public func ensure(now: Date = Date()) throws -> Bool {
        let missing = Self.required.filter { !FileManager.default.fileExists(atPath: file($0)) }
        guard !missing.isEmpty else { return false }
        guard isDataDirectory else {
            throw PushMockError(
                code: .invalidConfiguration,
                message: "\(path) lacks \(missing.joined(separator: ", ")); run pushmock certs generate --out \(path), or pass --data-dir")
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            try DevCertificates.generate(now: now).write(to: URL(fileURLWithPath: path, isDirectory: true))
        } catch {
            throw PushMockError(
                code: .invalidConfiguration, message: "cannot create development credentials in \(path) (--data-dir, PUSHMOCK_DATA_DIR): \(error)")
        }
        return true
    }

    /// Points the server-certificate, sample-key, trust-root and service-account defaults at this folder.
    public func apply(to configuration: inout PushMockConfiguration) {
        configuration.tls = .files(
            certificateChain: file(DevCertificates.FileName.serverCertificate), privateKey: file(DevCertificates.FileName.serverPrivateKey))
        configuration.apns.keys = configuration.apns.keys.map { key in
            guard key.keyID == DevCertificates.sampleAPNSKeyID, case .file(let old) = key.source,
                old == "Certs/\(DevCertificates.FileName.apnsAuthKey)"
            else { return key }
            var moved = key
            moved.source = .file(file(DevCertificates.FileName.apnsAuthKey))
            return moved
        }
        configuration.apns.certificateTrustRoots = [.file(file(DevCertificates.FileName.caCertificate))]
        configuration.fcm.serviceAccounts = [.file(file(DevCertificates.FileName.fcmServiceAccount))]
        configuration.developmentMaterialFolder = path
    }

    /// What `GET /api/v1/credentials` serves of material minted in memory.
    static func credentials(of material: DevCertificates) -> DevelopmentCredentials {
        DevelopmentCredentials(
            caPEM: material.caCertificatePEM, apnsKeyID: DevCertificates.sampleAPNSKeyID, apnsTeamID: DevCertificates.sampleAPNSTeamID,
            apnsKeyP8: material.apnsAuthKeyP8, serviceAccountJSON: material.fcmServiceAccountJSON,
            authorizedUserJSON: DevCertificates.authorizedUserJSON
        )
    }

    /// What `GET /api/v1/credentials` serves from `folder` (a file that is missing is left out).
    static func credentials(in folder: String) -> DevelopmentCredentials {
        func read(_ name: String) -> String? { try? String(contentsOfFile: (folder as NSString).appendingPathComponent(name), encoding: .utf8) }
        return DevelopmentCredentials(
            caPEM: read(DevCertificates.FileName.caCertificate), apnsKeyID: DevCertificates.sampleAPNSKeyID,
            apnsTeamID: DevCertificates.sampleAPNSTeamID,
            apnsKeyP8: read(DevCertificates.FileName.apnsAuthKey), serviceAccountJSON: read(DevCertificates.FileName.fcmServiceAccount),
            authorizedUserJSON: read(DevCertificates.FileName.authorizedUser) ?? DevCertificates.authorizedUserJSON
        )
    }

    /// Rewrites the data directory's service account so that its `token_uri` names `port`, the port
    /// the server really listens on (a checkout's `Certs/` is left as it is).
    public func pointServiceAccount(atPort port: Int, host: String = "localhost") throws {
        guard isDataDirectory else { return }
        let url = URL(fileURLWithPath: file(DevCertificates.FileName.fcmServiceAccount))
        guard var account = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else { return }
        let tokenURI = "https://\(host):\(port)/token"
        guard account["token_uri"] as? String != tokenURI else { return }
        account["token_uri"] = tokenURI
        try JSONSerialization.data(withJSONObject: account, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]).write(
            to: url, options: .atomic)
    }
}
