/// The per-request view of the connection a responder gets.
public struct RequestContext {
    /// The connection the request arrived on.
    public let connection: ConnectionInfo
    /// Per-connection controls (SETTINGS, GOAWAY, close). Use only inside `respond(to:context:)`.
    public let control: ConnectionControl

    /// Creates a context (the transport does this; tests of responders use ``ConnectionControl/none``).
    public init(connection: ConnectionInfo, control: ConnectionControl) {
        self.connection = connection
        self.control = control
    }
}
