import PushMockStore

/// Where deliveries are kept: `--store memory` (the default, for CI speed), `--store sqlite:PATH`
/// (one file, kept across restarts) or `--store postgres://…` (a database a fleet of PushMocks
/// shares; `--store postgres` alone reads the `PG*` variables).
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// In this process's memory.
    case memory
    /// In an SQLite file.
    case sqlite(path: String)
    /// In a PostgreSQL database: a `postgres://` URL, or nil for the `PG*` variables alone.
    case postgres(url: String?)

    /// Parses `memory` or `sqlite:PATH`; anything else is an error that says what is accepted.
    public init(parsing text: String) throws {
        if text == "memory" {
            self = .memory
        } else if text.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path.removeFirst(2) }
            guard !path.isEmpty else {
                throw PushMockError(code: .invalidConfiguration, message: "store \(text): name the file, as in sqlite:pushmock.sqlite")
            }
            self = .sqlite(path: path)
        } else if text == "postgres" || text == "postgresql" {
            self = .postgres(url: nil)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            do {
                _ = try PostgresLocation(url: text, environment: [:])
            } catch {
                throw PushMockError(code: .invalidConfiguration, message: "store: \(error)")
            }
            self = .postgres(url: text)
        } else {
            throw PushMockError(
                code: .invalidConfiguration,
                message: "store \(text): expected memory, sqlite:PATH, postgres://user@host:port/database or postgres (the PG* variables)")
        }
    }

    public var description: String {
        switch self {
        case .memory: "memory"
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let url): (try? PostgresLocation(url: url).description) ?? "postgres"
        }
    }
}
