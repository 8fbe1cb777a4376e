import Foundation

/// The one error type of the server module, compared by code.
public struct PushMockError: Error, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A listener could not bind.
        public static let listenFailed = Code("listenFailed")
        /// A TLS certificate or key file does not exist.
        public static let tlsMaterialMissing = Code("tlsMaterialMissing")
        /// A TLS certificate or key could not be parsed.
        public static let tlsMaterialInvalid = Code("tlsMaterialInvalid")
        /// A configuration value (flag or file) is invalid.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The store's file or database cannot be used.
        public static let storeUnavailable = Code("storeUnavailable")
    }

    /// The error code.
    public var code: Code
    /// What happened and how to fix it.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    public static func == (lhs: PushMockError, rhs: PushMockError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

enum FileCheck {
    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }
}
