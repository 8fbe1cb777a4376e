import ArgumentParser
import Foundation
import PushMockInspection
import PushMockTransport

/// `pushmock rejections`: runs the rejections catalogue (the web page's list) against a running
/// PushMock, one real request each through its push port, and prints what each produced.
///
/// ```sh
/// pushmock rejections                      # a table
/// pushmock rejections --format markdown    # for a README or a pull request
/// pushmock rejections --service fcm --format json
/// ```
struct RejectionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rejections",
        abstract:
            "Trigger every APNs reason, Live Activity rule, FCM error and Web Push answer of the catalogue on a running PushMock and print what was answered."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, markdown, json
    }

    @Option(help: "The inspection API's base URL (default $PUSHMOCK_URL, else a running server's locator file, else http://127.0.0.1:2198).")
    var inspectionURL: String?

    @Option(help: "The inspection token, if the server wants one (default $PUSHMOCK_TOKEN or $PUSHMOCK_INSPECTION_TOKEN).")
    var inspectionToken: String?

    var endpoint: InspectionEndpoint { InspectionEndpoint.resolve(url: inspectionURL, token: inspectionToken) }

    @Option(help: "Only this service: apns, liveactivity, fcm or webpush.")
    var service: String?

    @Option(help: "Output: \(Format.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format = Format.table

    struct Row: Encodable {
        var id: String
        var service: String
        var trigger: String
        var expected: String
        var status: Int
        var reason: String?
        var produced: Bool
        var viaFault: Bool
        var why: String?
        var deliveryId: UInt64?
        /// What real upstreams answered to this answer, in a line each (the relay's parity records).
        var parity: [String]
    }

    func validate() throws {
        if let service, !["apns", "liveactivity", "fcm", "webpush"].contains(service) {
            throw ValidationError("--service must be apns, liveactivity, fcm or webpush (got \(service))")
        }
    }

    func run() async throws {
        try await withInspectionClient(run)
    }

    func call<T: Decodable>(_ client: HTTPClientPool, _ method: String, _ path: String) async throws -> T {
        try await endpoint.call(client, method, path, command: "pushmock-rejections")
    }

    func run(_ client: HTTPClientPool) async throws {
        let list: RejectionList = try await call(client, "GET", "/api/v1/rejections")
        var rows: [Row] = []
        for entry in list.entries where service == nil || entry.service == service {
            let result: SendResult = try await call(client, "POST", "/api/v1/rejections/\(entry.id)/send")
            rows.append(
                Row(
                    id: entry.id, service: entry.service, trigger: entry.trigger, expected: "\(entry.status) \(entry.reason)", status: result.status,
                    reason: result.reason, produced: result.produced, viaFault: entry.viaFault,
                    why: entry.faultNote.map { "a fault: \($0)" } ?? result.explanation, deliveryId: result.deliveryId,
                    parity: entry.parity.map(\.summary)
                ))
        }
        print(render(rows))
        let unmatched = list.parity.filter { record in !list.entries.contains { $0.counts(record) } }
        if format != .json, !unmatched.isEmpty {
            print("\nParity of answers outside the catalogue:")
            for record in unmatched where service == nil || record.service == service { print("  \(record.service) \(record.summary)") }
        }
        let missed = rows.filter { !$0.produced }
        if !missed.isEmpty {
            throw CommandFailure(
                message: "\(missed.count) of \(rows.count) entries did not produce their answer: \(missed.map(\.id).joined(separator: ", "))")
        }
    }

    func render(_ rows: [Row]) -> String {
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return String(decoding: (try? encoder.encode(rows)) ?? Data(), as: UTF8.self)
        case .markdown:
            let withParity = rows.contains { !$0.parity.isEmpty }
            var lines =
                withParity
                ? ["| Trigger | Status | Reason | Why | Parity |", "|---|---|---|---|---|"]
                : ["| Trigger | Status | Reason | Why |", "|---|---|---|---|"]
            for row in rows {
                var cells = [row.trigger + (row.viaFault ? " (fault)" : ""), "\(row.status)", row.reason ?? "—", row.why ?? ""]
                if withParity { cells.append(row.parity.joined(separator: "; ")) }
                lines.append("| " + cells.map { $0.replacing("|", with: "\\|").replacing("\n", with: " ") }.joined(separator: " | ") + " |")
            }
            return lines.joined(separator: "\n")
        case .table:
            let headers = ["", "STATUS", "REASON", "TRIGGER", "WHY"]
            let table = rows.map { row in
                [row.produced ? "ok" : "MISS", "\(row.status)", row.reason ?? "—", row.trigger + (row.viaFault ? " (fault)" : ""), row.why ?? ""]
            }
            let widths = (0..<4).map { column in ([headers] + table).map { $0[column].count }.max() ?? 0 }
            var lines = ([headers] + table).map { cells in
                cells.enumerated().map { index, cell in index < 4 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) : cell }
                    .joined(separator: "  ")
            }
            // Each entry's parity under its row.
            for (index, row) in rows.enumerated().reversed() where !row.parity.isEmpty {
                lines.insert(contentsOf: row.parity.map { "      parity: \($0)" }, at: index + 2)
            }
            return lines.joined(separator: "\n")
        }
    }
}
