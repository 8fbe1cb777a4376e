import Foundation

/// The locator file a running `pushmock serve` writes, so that tools find it without being told
/// where it is, as Firebase's emulators do: `pushmock-<port>.json` in `$XDG_RUNTIME_DIR`, else the
/// temporary directory, mode 0600, removed when the server stops.
///
/// ```json
/// {"pid": 4242, "pushUrl": "https://localhost:2197", "inspectionUrl": "http://127.0.0.1:2198",
///  "ca": "/home/me/.local/share/pushmock/certs/ca.pem", "token": null}
/// ```
///
/// Readers take `PUSHMOCK_URL` first, and a locator second: the newest one that the current user
/// owns whose process is still running.
struct Locator: Codable, Equatable {
    var pid: Int32
    var pushUrl: String
    var inspectionUrl: String?
    var ca: String?
    var token: String?

    /// Where locators are kept.
    static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime }
        return environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
    }

    /// Writes the locator for a server whose first port is `port` (atomically: a rename, which
    /// replaces a link rather than following it). Returns its path.
    func write(port: Int, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        let path = (Self.directory(environment: environment) as NSString).appendingPathComponent("pushmock-\(port).json")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let temporary = path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: try encoder.encode(self), attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary]) }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        return path
    }

    /// The newest locator this user owns whose server is still running, if any.
    static func find(environment: [String: String] = ProcessInfo.processInfo.environment) -> Locator? {
        let directory = directory(environment: environment)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        var found: [(modified: Date, locator: Locator)] = []
        for name in names where name.hasPrefix("pushmock-") && name.hasSuffix(".json") {
            let path = (directory as NSString).appendingPathComponent(name)
            // Another user's file is not trusted: it could point at their server. (The attributes
            // are the link's own, not its target's.)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                (attributes[.ownerAccountID] as? NSNumber)?.uint32Value == geteuid(),
                let data = FileManager.default.contents(atPath: path),
                let locator = try? JSONDecoder().decode(Locator.self, from: data),
                kill(locator.pid, 0) == 0 || errno == EPERM
            else { continue }
            found.append((attributes[.modificationDate] as? Date ?? .distantPast, locator))
        }
        return found.max { $0.modified < $1.modified }?.locator
    }
}

/// The inspection API a client command talks to: `--inspection-url`, else `PUSHMOCK_URL`, else a
/// running server's locator, else `http://127.0.0.1:2198`; its token likewise from
/// `--inspection-token`, `PUSHMOCK_TOKEN` or `PUSHMOCK_INSPECTION_TOKEN`, or the locator.
struct InspectionEndpoint: Equatable {
    var url: String
    var token: String?
    /// The locator it came from, if it did.
    var locator: Locator?

    static let fallback = "http://127.0.0.1:2198"

    static func resolve(
        url: String?, token: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        locator: () -> Locator? = { Locator.find() }
    ) -> InspectionEndpoint {
        let token = token ?? [environment["PUSHMOCK_TOKEN"], environment["PUSHMOCK_INSPECTION_TOKEN"]].compactMap { $0 }.first { !$0.isEmpty }
        if let url { return InspectionEndpoint(url: Self.trimmed(url), token: token) }
        if let url = environment["PUSHMOCK_URL"], !url.isEmpty { return InspectionEndpoint(url: Self.trimmed(url), token: token) }
        if let found = locator(), let url = found.inspectionUrl {
            return InspectionEndpoint(url: url, token: token ?? found.token, locator: found)
        }
        return InspectionEndpoint(url: fallback, token: token)
    }

    private static func trimmed(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}
