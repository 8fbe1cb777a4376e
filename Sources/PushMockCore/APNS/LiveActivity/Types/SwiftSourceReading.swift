/// What a Swift source reader (the server's configuration holds one) reads from one Swift source text: each
/// `ActivityAttributes` type by name, and each warning (`file:line: message`).
public struct SwiftSourceReading: Sendable {
    public var types: [(name: String, declaration: ActivityTypeDeclaration)]
    public var warnings: [String]

    public init(types: [(name: String, declaration: ActivityTypeDeclaration)], warnings: [String]) {
        self.types = types
        self.warnings = warnings
    }
}

/// Reads the `ActivityAttributes` types of a Swift source text named `file`; throws, with a
/// message for the sender, for a text it will not read (too deeply nested, too costly, or the
/// reader too busy).
public typealias SwiftSourceReader = @Sendable (_ file: String, _ text: String) async throws -> SwiftSourceReading

/// Thrown by a ``SwiftSourceReader`` whose reads are all taken: a moment's wait, not a fault of
/// the source (the API answers 503).
public struct SwiftSourceReaderBusy: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
