import ArgumentParser
import Foundation
import PushMockCore
import PushMockServer

/// Where deliveries are kept, and for how long.
struct RecordingOptions: ParsableArguments {
    @Option(help: "Deliveries kept, oldest evicted first (default 10000).")
    var retention: Int?

    @Option(
        help:
            "Where deliveries are kept: memory (default), sqlite:PATH (one file, kept across restarts), postgres://user:password@host:port/db or postgres (the PG* variables; a fleet of PushMocks on one database)."
    )
    var store: String?

    @Option(help: "With an SQLite or PostgreSQL store, delete deliveries older than this: 24h, 90m, 3600s.")
    var retentionAge: String?

    @Option(help: "Seed for generated ids, for reproducible runs.")
    var idSeed: UInt64?

    func check() throws {
        if let retention, retention < 1 { throw ValidationError("--retention must be positive") }
        if let store {
            do { _ = try StoreLocation(parsing: store) } catch let error as PushMockError { throw ValidationError("--\(error.message)") }
        }
        if let retentionAge, PushMockConfiguration.duration(retentionAge) == nil {
            throw ValidationError("--retention-age must be a duration such as 24h, 90m or 3600s (got \(retentionAge))")
        }
    }

    func apply(to configuration: inout PushMockConfiguration) throws {
        if let retention { configuration.retention = retention }
        if let store { configuration.store = try StoreLocation(parsing: store) }
        if let retentionAge { configuration.retentionAge = PushMockConfiguration.duration(retentionAge) }
        if let idSeed { configuration.idSeed = idSeed }
    }
}
