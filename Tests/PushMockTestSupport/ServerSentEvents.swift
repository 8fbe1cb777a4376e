import Foundation
import NIOCore

/// An inspection port's event stream read as a browser's EventSource would.
package enum ServerSentEvents {
    /// Reads a Server-Sent Events stream over a raw HTTP/1.1 socket until `count` events arrived.
    package static func read(
        port: Int, target: String, headers: [String] = [], count: Int
    ) async throws -> (head: String, events: [(id: String, type: String, data: [String: Any])]) {
        let raw = try await RawClient.connect(port: port)
        let request = (["GET \(target) HTTP/1.1", "Host: 127.0.0.1", "Accept: text/event-stream"] + headers).joined(separator: "\r\n") + "\r\n\r\n"
        try await raw.send(Array(request.utf8))
        var text = ""
        var events: [(id: String, type: String, data: [String: Any])] = []
        let deadline = ContinuousClock.now + TestDeadline.hang
        while events.count < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            text = String(decoding: raw.bytes, as: UTF8.self)
            // Byte-level: Swift treats "\r\n" as one character, which would hide the "\n\n" separators.
            events = parse(String(decoding: raw.bytes.filter { $0 != 13 }, as: UTF8.self))
        }
        try? await raw.channel.close()
        let head = text.components(separatedBy: "\r\n\r\n").first ?? ""
        return (head, events)
    }

    package static func parse(_ text: String) -> [(id: String, type: String, data: [String: Any])] {
        var result: [(id: String, type: String, data: [String: Any])] = []
        for block in text.components(separatedBy: "\n\n") {
            var id = ""
            var type = ""
            var data = ""
            for line in block.split(separator: "\n") {
                let cleaned = String(line)
                // Chunked framing lines (sizes) and comments are skipped.
                if cleaned.hasPrefix("id: ") { id = String(cleaned.dropFirst(4)) }
                if cleaned.hasPrefix("event: ") { type = String(cleaned.dropFirst(7)) }
                if cleaned.hasPrefix("data: ") { data = String(cleaned.dropFirst(6)) }
            }
            if !id.isEmpty, let object = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] {
                result.append((id, type, object))
            }
        }
        return result
    }
}
