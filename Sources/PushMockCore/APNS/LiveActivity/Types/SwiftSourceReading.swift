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

/// Reads the `ActivityAttributes` types of a Swift source text named `file`.
public typealias SwiftSourceReader = @Sendable (_ file: String, _ text: String) -> SwiftSourceReading
