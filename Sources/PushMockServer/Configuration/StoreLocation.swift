/// Where deliveries are kept: `--store memory` (the default, for CI speed) or `--store
/// sqlite:PATH` (one file, kept across restarts).
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// In this process's memory.
    case memory
    /// In an SQLite file.
    case sqlite(path: String)

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
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            throw PushMockError(code: .invalidConfiguration, message: "store: the PostgreSQL store is not in this version yet; use memory or sqlite:PATH")
        } else {
            throw PushMockError(code: .invalidConfiguration, message: "store \(text): expected memory or sqlite:PATH")
        }
    }

    public var description: String {
        switch self {
        case .memory: "memory"
        case .sqlite(let path): "sqlite:\(path)"
        }
    }
}
