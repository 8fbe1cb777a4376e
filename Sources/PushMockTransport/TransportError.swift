/// The one error type of the transport module, compared by code.
public struct TransportError: Error, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The socket could not be bound.
        public static let bindFailed = Code("bindFailed")
        /// The TLS material could not be loaded.
        public static let invalidTLSConfiguration = Code("invalidTLSConfiguration")
        /// A connection was accepted over the connection cap (and closed).
        public static let overConnectionCap = Code("overConnectionCap")
        /// A connection was accepted while the listener was shutting down (and closed).
        public static let shuttingDown = Code("shuttingDown")
    }

    /// The error code.
    public var code: Code
    /// A human explanation.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    public static func == (lhs: TransportError, rhs: TransportError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
