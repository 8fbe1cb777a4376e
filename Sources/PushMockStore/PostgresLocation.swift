public import Foundation
import PushMockCore

/// Where the PostgreSQL store is: a `postgres://user:password@host:port/database?sslmode=…` URL,
/// with whatever it leaves out taken from the standard `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`,
/// `PGDATABASE` and `PGSSLMODE` variables, then from libpq's defaults (localhost, 5432, the user's
/// name). `sslmode` is `disable` (the default), `prefer` or `require`.
///
/// ```swift
/// let location = try PostgresLocation(url: "postgres://pushmock@db:5432/pushmock", environment: [:])
/// print(location)  // postgres://pushmock@db:5432/pushmock (never the password)
/// ```
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var sslMode: String

    /// Reads `url` (nil or empty: the `PG*` variables alone).
    public init(url: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        var host = environment["PGHOST"]
        var port = environment["PGPORT"]
        var user = environment["PGUSER"]
        var password = environment["PGPASSWORD"]
        var database = environment["PGDATABASE"]
        var sslMode = environment["PGSSLMODE"]
        if let url, !url.isEmpty {
            guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? "") else {
                throw PostgresLocationError("\(Self.redacted(url)) is not a postgres:// URL (postgres://user:password@host:port/database)")
            }
            if let value = parts.host, !value.isEmpty { host = value }
            if let value = parts.port { port = String(value) }
            if let value = parts.percentEncodedUser, !value.isEmpty { user = PercentDecoding.pathSegment(value[...]) }
            if let value = parts.percentEncodedPassword { password = PercentDecoding.pathSegment(value[...]) }
            let path = parts.path.drop { $0 == "/" }
            if !path.isEmpty { database = String(path) }
            for item in parts.queryItems ?? [] {
                switch item.name {
                case "sslmode": sslMode = item.value
                default: throw PostgresLocationError("\(Self.redacted(url)): unknown parameter \(item.name) (only sslmode is read)")
                }
            }
        }
        self.host = host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        guard let number = Int(port ?? "5432"), (1...65_535).contains(number) else {
            throw PostgresLocationError("the PostgreSQL port \(port ?? "") is not a port number")
        }
        self.port = number
        self.user = user.flatMap { $0.isEmpty ? nil : $0 } ?? environment["USER"] ?? "postgres"
        self.password = password
        self.database = database.flatMap { $0.isEmpty ? nil : $0 } ?? self.user
        self.sslMode = sslMode ?? "disable"
        guard ["disable", "prefer", "require"].contains(self.sslMode) else {
            throw PostgresLocationError("sslmode \(self.sslMode): expected disable, prefer or require")
        }
    }

    /// The URL without the password: what logs and errors show.
    public var description: String {
        "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)" + (sslMode == "disable" ? "" : "?sslmode=\(sslMode)")
    }

    /// A URL with its password replaced by `***`.
    package static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = "***"
        return parts.string ?? "postgres://…"
    }
}

/// A location that cannot be read.
public struct PostgresLocationError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
