import Foundation
import PushMockCore
import PushMockHTTP

public struct SwiftSourceError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }

    /// A file name as it may be printed: its control bytes (escape sequences among them) escaped.
    static func printable(_ name: String) -> String {
        name.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } ? PrintableText.escaped(name, limit: 4096) : name
    }
}
