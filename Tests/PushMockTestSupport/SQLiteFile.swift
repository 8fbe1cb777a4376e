import Foundation
import PushMockSQLite

/// A fresh file name for an SQLite store in the temporary directory.
package enum SQLiteFile {
    /// A path for a new file. SQLite's process-wide settings are made first, as the store makes
    /// them, so that a test opening the file directly does not initialize SQLite without them.
    package static func temporary() -> String {
        _ = SQLiteSettings.applied
        return TestScratch.path("store", extension: "sqlite")
    }
}
