import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the tests put the files they make: one folder per test process in the temporary
/// directory (`pushmock-tests.<pid>`), removed when the process exits. A process that dies before
/// it can remove its folder (killed, crashed) leaves it behind; the next test process removes
/// every such folder whose process is gone. A store's SQLite file grows to tens of megabytes with
/// its journal, so a suite that left them behind filled a developer's /tmp by half a gigabyte a run.
package enum TestScratch {
    static let prefix = "pushmock-tests."

    /// This process's folder, made (and the folders of dead test processes removed) on first use.
    package static var folder: String { made.path }

    /// A new path in this process's folder, nothing made at it: `name` with a unique middle, such
    /// as `path("store", extension: "sqlite")` → `…/store-<uuid>.sqlite`.
    package static func path(_ name: String, extension suffix: String? = nil) -> String {
        let file = "\(name)-\(UUID().uuidString)" + (suffix.map { ".\($0)" } ?? "")
        return (folder as NSString).appendingPathComponent(file)
    }

    /// A new, empty directory in this process's folder.
    package static func directory(_ name: String) throws -> String {
        let path = path(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Folders in `parent` whose test process has ended (no process has its id).
    package static func orphans(in parent: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        return names.compactMap { name in
            guard name.hasPrefix(prefix), let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { return nil }
            // kill(pid, 0): ESRCH when no such process. A process of another user (EPERM) lives.
            guard kill(pid, 0) != 0, errno == ESRCH else { return nil }
            return (parent as NSString).appendingPathComponent(name)
        }
    }

    private static let made: (path: String, ()) = {
        let parent = FileManager.default.temporaryDirectory.path
        for orphan in orphans(in: parent) { try? FileManager.default.removeItem(atPath: orphan) }
        let path = (parent as NSString).appendingPathComponent("\(prefix)\(getpid())")
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            fatalError("cannot make the tests' scratch folder \(path): \(error)")
        }
        atexit { TestScratch.removeOwnFolder() }
        return (path, ())
    }()

    private static func removeOwnFolder() {
        let path = (FileManager.default.temporaryDirectory.path as NSString).appendingPathComponent("\(prefix)\(getpid())")
        try? FileManager.default.removeItem(atPath: path)
    }
}
