/// The one error of the store module: what went wrong with a store's file or database, in words
/// that say how to fix it.
public struct StoreError: Error, Hashable, CustomStringConvertible {
    /// What happened.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
