import ArgumentParser
import Foundation
import PushMockCore
import PushMockInspection
import PushMockPostgres
import PushMockSQLite
import PushMockServer
import PushMockStore

/// `pushmock export` and `pushmock import`: deliveries of a store as NDJSON (one delivery per line,
/// as `GET /api/v1/deliveries/{id}?reveal=1` shows it), oldest first.
///
/// ```sh
/// pushmock export --store sqlite:pushmock.sqlite --since 2026-11-23T00:00:00Z > deliveries.ndjson
/// pushmock import --store sqlite:other.sqlite < deliveries.ndjson
/// ```
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a store's deliveries as NDJSON, oldest first (a store that lasts: sqlite:PATH or postgres://…)."
    )

    @Option(help: "The store: sqlite:PATH, postgres://… or postgres (the PG* variables).")
    var store: String

    @Option(help: "Only deliveries received at or after this time (RFC 3339 or milliseconds since 1970).")
    var since: String?

    @Option(help: "Write here instead of standard output.")
    var output: String?

    func run() async throws {
        let opened = try await StoreFile.open(store)
        var filter = DeliveryFilter()
        if let since {
            guard let milliseconds = Int64(since) ?? RFC3339.milliseconds(since) else {
                throw ValidationError("--since must be RFC 3339 (2026-11-23T00:00:00Z) or milliseconds since 1970, got \(since)")
            }
            filter.since = milliseconds
        }
        let sink: FileHandle
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil) else { throw ValidationError("cannot create \(output)") }
            sink = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        } else {
            sink = FileHandle.standardOutput
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var cursor: UInt64 = 0
        var written = 0
        while true {
            let batch = try await opened.deliveries(after: cursor, matching: filter, limit: 1000)
            guard let last = batch.last else { break }
            var lines = Data()
            for delivery in batch {
                lines.append(try encoder.encode(DeliveryResource(delivery, reveal: true)))
                lines.append(0x0A)
            }
            try sink.write(contentsOf: lines)
            written += batch.count
            cursor = last.id
        }
        if output != nil { try sink.close() }
        try await opened.close()
        FileHandle.standardError.write(Data("exported \(written) deliveries\n".utf8))
    }
}

/// `pushmock import`: reads NDJSON deliveries (what `export` writes) into a store; each gets a new
/// id in the store, in the order read.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Read NDJSON deliveries (as pushmock export writes them) into a store that lasts (sqlite:PATH or postgres://…)."
    )

    @Option(help: "The store: sqlite:PATH, postgres://… or postgres (the PG* variables).")
    var store: String

    @Option(help: "Read this file instead of standard input.")
    var input: String?

    func run() async throws {
        let data: Data
        if let input {
            guard let contents = FileManager.default.contents(atPath: input) else { throw ValidationError("cannot read \(input)") }
            data = contents
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        // Every line is checked before anything is written: a bad line imports nothing.
        var deliveries: [Delivery] = []
        let decoder = JSONDecoder()
        for (number, line) in data.split(separator: 0x0A, omittingEmptySubsequences: true).enumerated() {
            let resource: DeliveryResource
            do {
                resource = try decoder.decode(DeliveryResource.self, from: Data(line))
            } catch {
                throw ValidationError("line \(number + 1) is not a delivery as pushmock export writes it: \(error)")
            }
            if let problem = Self.problem(resource) {
                throw ValidationError("line \(number + 1): \(problem); nothing was imported")
            }
            deliveries.append(resource.delivery)
        }
        let opened = try await StoreFile.open(store, creating: true)
        for (index, delivery) in deliveries.enumerated() {
            opened.record(delivery)
            // The store's write-behind queue is bounded: let it drain now and then, so that a
            // large file is written whole instead of overflowing it.
            if index % 10_000 == 9_999 {
                while await opened.statistics().queued > 0 { try await Task.sleep(for: .milliseconds(10)) }
            }
        }
        try await opened.close()
        let dropped = await opened.statistics().dropped
        guard dropped == 0 else { throw ValidationError("\(dropped) of \(deliveries.count) deliveries could not be written to \(store)") }
        FileHandle.standardError.write(Data("imported \(deliveries.count) deliveries\n".utf8))
    }
}

extension ImportCommand {
    /// What makes a decoded line something PushMock could not have recorded: an unknown service,
    /// a status that is not an HTTP status, a method that is not an HTTP token (a newline in it
    /// would reach "copy as curl" and the page).
    static func problem(_ resource: DeliveryResource) -> String? {
        guard Delivery.Service.all.map(\.rawValue).contains(resource.service) else {
            return "service \(resource.service.debugDescription) is not one of \(Delivery.Service.all.map(\.rawValue).joined(separator: ", "))"
        }
        guard (100...599).contains(resource.status) else { return "status \(resource.status) is not an HTTP status" }
        let token = resource.method.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !Array("()<>@,;:\\\"/[]?={}".utf8).contains($0) }
        guard !resource.method.isEmpty, token else { return "method \(resource.method.debugDescription) is not an HTTP method" }
        return nil
    }
}

/// A store named on the command line, opened for export or import.
enum StoreFile {
    /// Opens the store `text` names; an SQLite file that is not there is created only when `creating`.
    static func open(_ text: String, creating: Bool = false) async throws -> any DeliveryStore {
        let location: StoreLocation
        do {
            location = try StoreLocation(parsing: text)
        } catch let error as PushMockError {
            throw ValidationError("--\(error.message)")
        }
        switch location {
        case .memory:
            throw ValidationError("--store memory lives in a running server's process; export from a store kept in a file (sqlite:PATH)")
        case .sqlite(let path):
            guard creating || FileManager.default.fileExists(atPath: path) else { throw ValidationError("\(path) does not exist") }
            return try SQLiteDeliveryStore(path: path, retention: 10_000_000)
        case .postgres(let url):
            return try await PostgresDeliveryStore.connect(PostgresLocation(url: url), retention: 10_000_000)
        }
    }
}
