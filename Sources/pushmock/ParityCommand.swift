import ArgumentParser
import Foundation
import PushMockInspection

/// `pushmock parity`: what a running PushMock's relay learnt of the real services, in shadow,
/// relay or passthrough mode: how often each upstream agreed with each of PushMock's answers
/// (`show`), and the forwarded requests with both answers as fixtures to commit (`export`).
///
/// ```sh
/// pushmock parity                                   # a line per answer and upstream
/// pushmock parity export --output Tests/parity      # one JSON file per distinct pair
/// ```
struct ParityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parity",
        abstract: "How often Apple or Google agreed with PushMock (relay shadow mode), and the forwarded pairs as fixtures.",
        subcommands: [Show.self, Export.self],
        defaultSubcommand: Show.self
    )

    struct Connection: ParsableArguments {
        @Option(help: "The inspection API's base URL (default $PUSHMOCK_URL, else a running server's locator file, else http://127.0.0.1:2198).")
        var inspectionURL: String?

        @Option(help: "The inspection token, if the server wants one (default $PUSHMOCK_TOKEN or $PUSHMOCK_INSPECTION_TOKEN).")
        var inspectionToken: String?

        var endpoint: InspectionEndpoint { InspectionEndpoint.resolve(url: inspectionURL, token: inspectionToken) }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the parity records: per service, PushMock's answer and upstream, how often the upstream agreed.")

        @OptionGroup var connection: Connection

        @Flag(help: "Print the records as JSON (GET /api/v1/parity).")
        var json = false

        func run() async throws {
            try await withInspectionClient { client in
                let list: ParityList = try await connection.endpoint.call(client, "GET", "/api/v1/parity", command: "pushmock-parity")
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                    print(String(decoding: try encoder.encode(list), as: UTF8.self))
                    return
                }
                guard !list.records.isEmpty else {
                    print(
                        "No parity records yet: they count the answers of a relay's upstream (pushmock serve --relay-mode shadow --relay-apns URL, or --relay-fcm URL)."
                    )
                    return
                }
                for record in list.records { print("\(record.service)  \(record.summary)") }
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the forwarded requests with PushMock's and the upstream's answers, normalised, as JSON fixtures.",
            discussion: """
                One file per distinct pair, named <service>-<reason>-<agrees|disagrees>-<hash>.json. Device tokens, projects, \
                ids and times are replaced by placeholders ({device}, {project}, {id}, {time}) and credentials are left out, \
                so the files can be committed; exporting again rewrites the same names. Exits 1 when there is nothing to export.
                """
        )

        @OptionGroup var connection: Connection

        @Option(name: .shortAndLong, help: "The folder to write into (created if missing).")
        var output = "parity-fixtures"

        @Option(help: "Only this service: apns or fcm.")
        var service: String?

        @Option(help: "The newest forwarded deliveries read, of those that agreed and of those that did not (1 to 1000).")
        var limit = 1000

        func validate() throws {
            if let service, !["apns", "fcm"].contains(service) {
                throw ValidationError("--service must be apns or fcm (got \(service))")
            }
            guard (1...1000).contains(limit) else { throw ValidationError("--limit must be from 1 to 1000 (got \(limit))") }
        }

        func run() async throws {
            try await withInspectionClient { client in
                var path = "/api/v1/parity/fixtures?limit=\(limit)"
                if let service { path += "&service=\(service)" }
                let list: ParityFixtureList = try await connection.endpoint.call(client, "GET", path, command: "pushmock-parity")
                guard !list.fixtures.isEmpty else {
                    throw CommandFailure(
                        message:
                            "nothing to export: no forwarded delivery with an upstream answer (\(list.deliveriesRead) read). Run the server with a relay (--relay-mode shadow --relay-apns URL or --relay-fcm URL) and send pushes through it."
                    )
                }
                try write(list.fixtures)
                print("wrote \(list.fixtures.count) fixtures to \(output) (from \(list.deliveriesRead) forwarded deliveries)")
            }
        }

        func write(_ fixtures: [ParityFixture]) throws {
            let folder = URL(fileURLWithPath: output, isDirectory: true)
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                for fixture in fixtures {
                    let text = ParityFixture.canonical(fixture) + "\n"
                    try Data(text.utf8).write(to: folder.appendingPathComponent(fixture.name + ".json"), options: .atomic)
                }
            } catch {
                throw CommandFailure(message: "cannot write the fixtures to \(output): \(error.localizedDescription)")
            }
        }
    }
}
