public import Foundation
import PushMockInspection

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
    public static let required = [
        DevCertificates.FileName.caCertificate, DevCertificates.FileName.serverCertificate, DevCertificates.FileName.serverPrivateKey,
        DevCertificates.FileName.apnsAuthKey, DevCertificates.FileName.fcmServiceAccount,
    ]

    /// The file whose lock one creator holds while it writes the material.
    static let lockFile = ".creating.lock"

    /// Creates the material if the folder lacks it (a data directory only; a checkout's `Certs/` is
    /// never written). Returns whether it was created now; of several processes starting at once,
    /// one creates it and the others find it made.
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
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
            // Two servers starting at once on a fresh machine must not each write half of the
            // material (a CA from one, a server certificate from the other): the first to take
            // the folder's lock creates it, the others find it made.
            let lock = open(file(Self.lockFile), O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
            guard lock >= 0 else { throw PushMockError(code: .invalidConfiguration, message: "cannot open \(file(Self.lockFile)): errno \(errno)") }
            defer { close(lock) }
            while flock(lock, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    throw PushMockError(code: .invalidConfiguration, message: "cannot lock \(file(Self.lockFile)): errno \(errno)")
                }
            }
            defer { flock(lock, LOCK_UN) }
            guard Self.required.contains(where: { !FileManager.default.fileExists(atPath: file($0)) }) else { return false }
            try DevCertificates.generate(now: now).write(to: URL(fileURLWithPath: path, isDirectory: true))
        } catch {
            throw PushMockError(
                code: .invalidConfiguration, message: "cannot create development credentials in \(path) (--data-dir, PUSHMOCK_DATA_DIR): \(error)")
        }
        return true
    }

    /// Makes the server certificate name `hosts` too (`serve --cert-host`): when it lacks one, a new
    /// server certificate is issued from the folder's CA (kept, so what trusts it still does).
    /// A data directory's certificate is also brought up to ``DevCertificates/serverNames`` (one
    /// made by an older PushMock lacks the real hosts added since). Returns the names it now
    /// names besides, empty when it was not issued again. A checkout's `Certs/` is never written:
    /// a host it lacks is refused.
    @discardableResult
    public func cover(_ hosts: [CertificateHost], now: Date = Date()) throws -> [String] {
        func read(_ name: String) throws -> String { try String(contentsOfFile: file(name), encoding: .utf8) }
        let current = (try? read(DevCertificates.FileName.serverCertificate)) ?? ""
        let builtIn = isDataDirectory ? DevCertificates.serverNames.compactMap { try? CertificateHost($0) } : []
        let missing = (hosts + builtIn).filter { !DevCertificates.serverCertificate(current, covers: [$0]) }
        guard !missing.isEmpty else { return [] }
        let names = missing.map(\.name).joined(separator: ", ")
        guard isDataDirectory else {
            throw PushMockError(
                code: .invalidConfiguration,
                message:
                    "--cert-host \(names): the server certificate in \(path) (a checkout's, never rewritten) does not name it; pass --data-dir so PushMock keeps its own, or issue one with pushmock certs generate --cert-host"
            )
        }
        do {
            var material = DevCertificates(
                caCertificatePEM: try read(DevCertificates.FileName.caCertificate), caPrivateKeyPEM: try read(DevCertificates.FileName.caPrivateKey),
                serverCertificatePEM: "", serverPrivateKeyPEM: "", apnsAuthKeyP8: "", fcmServiceAccountJSON: "")
            let server = try material.issueServerCertificate(extraHosts: hosts, now: now)
            material.serverCertificatePEM = server.certificatePEM
            // The key first: a reader between the two writes sees the old pair fail, never a
            // certificate whose key is not there yet.
            let key = URL(fileURLWithPath: file(DevCertificates.FileName.serverPrivateKey))
            try Data(server.privateKeyPEM.utf8).write(to: key, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key.path)
            try Data(server.certificatePEM.utf8).write(to: URL(fileURLWithPath: file(DevCertificates.FileName.serverCertificate)), options: .atomic)
        } catch {
            throw PushMockError(code: .invalidConfiguration, message: "--cert-host \(names): cannot issue a server certificate in \(path): \(error)")
        }
        return missing.map(\.name)
    }

    /// Makes a data directory's material the owner's alone, as it is created: the folder 0700, the
    /// keys and credentials 0600 (an older PushMock wrote them 0644). Returns a notice for each
    /// mode changed. Running as root, a data directory that others can write to (the folder or the
    /// one above it: they could put their own keys in) is refused. A checkout's `Certs/` is left
    /// as it is (committed, and marked not secret).
    public func secure(runningAsRoot: Bool = geteuid() == 0) throws -> [String] {
        guard isDataDirectory else { return [] }
        let files = FileManager.default
        func mode(_ path: String) -> Int? { (try? files.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue }
        if runningAsRoot {
            for folder in [path, (path as NSString).deletingLastPathComponent] {
                if let mode = mode(folder), mode & 0o022 != 0 {
                    throw PushMockError(
                        code: .invalidConfiguration,
                        message:
                            "\(folder) can be written by other users (mode \(String(mode, radix: 8))), and PushMock runs as root: they could replace its keys; run chmod go-w \(folder), or choose another --data-dir"
                    )
                }
            }
        }
        var notices: [String] = []
        if let current = mode(path), current & 0o077 != 0 {
            try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
            notices.append("\(path) was mode \(String(current, radix: 8)); it is 700 now (the owner's alone)")
        }
        for name in DevCertificates.FileName.privateFiles.sorted() {
            let file = file(name)
            guard let current = mode(file), current & 0o077 != 0 else { continue }
            try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            notices.append("\(file) was mode \(String(current, radix: 8)); it is 600 now (it holds a private key or credential)")
        }
        return notices
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
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

    /// The file a data directory keeps its inspection token in.
    public static let inspectionTokenFile = "inspection-token"

    /// The inspection token kept in a data directory (`inspection-token`, mode 0600), made now if
    /// there is none: 32 random bytes in hex. A checkout's `Certs/` keeps none: a new one each run.
    public func inspectionToken() throws -> (token: String, file: String?) {
        let made = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max)) }.joined()
        guard isDataDirectory else { return (made, nil) }
        let path = file(Self.inspectionTokenFile)
        if let data = FileManager.default.contents(atPath: path) {
            let kept = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !kept.isEmpty { return (kept, path) }
        }
        try Data((made + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return (made, path)
    }
}
