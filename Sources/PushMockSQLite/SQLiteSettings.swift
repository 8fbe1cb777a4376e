import CSQLite
import PushMockStore

/// SQLite's process-wide settings, made once, before the first connection is opened
/// (``SQLiteDeliveryStore`` reads ``applied`` before it opens a file).
///
/// - **Multi-thread mode.** Debian's SQLite is built serialized: every call on a connection
///   (each of the writer's 16 binds per row, the step, the reset) takes and releases that
///   connection's mutex. ``SQLitePool`` hands each connection to one thread at a time, which is
///   what SQLite's documentation asks of that mode. Measured: the writer's CPU per delivery 10% lower.
/// - **No memory statistics**: no global mutex around each of SQLite's allocations.
///
/// SQLite accepts them only before it is initialized; a process that opened a database some
/// other way first keeps SQLite's defaults (``multiThread`` is then false), which is slower,
/// not wrong.
package enum SQLiteSettings {
    /// What configuring returned: 0 (`SQLITE_OK`) when the settings are in effect.
    package static let applied: Int32 = pushmock_sqlite_configure()

    /// Whether connections are opened without a mutex per call.
    package static var multiThread: Bool { applied == SQLITE_OK }
}
