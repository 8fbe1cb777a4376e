import Foundation
import PushMockStore
import Synchronization

/// An exclusive lock on an SQLite store's file, held from open to close: two PushMocks on one
/// file would both give out the same delivery ids (one of them then fails every write with
/// "UNIQUE constraint failed"), so the second is refused at start.
///
/// The lock is `flock` on `<file>.lock` beside the database, not on the database itself: closing
/// any descriptor of the database file would drop SQLite's own POSIX locks in this process.
/// The kernel releases it when the process ends, however it ends.
final class SQLiteFileLock: Sendable {
    private let descriptor: Int32
    private let released = Atomic<Bool>(false)
    let path: String

    /// How long a lock held elsewhere is waited for before the store is refused: a child process
    /// forked by this one (posix_spawn) holds a copy of the descriptor until it execs, so a
    /// restart right after a close can find the lock briefly still held.
    static let defaultPatience: Duration = .seconds(2)

    init(databasePath: String, patience: Duration = defaultPatience) throws {
        path = databasePath + ".lock"
        let descriptor = Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            // A directory PushMock cannot write: the store could not be written either.
            throw StoreError("cannot create \(path) to lock the store (\(reason)); the SQLite file's directory must be writable")
        }
        guard Self.lock(descriptor, patience: patience) else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw StoreError(
                busy
                    ? "\(databasePath) is in use by another PushMock (it holds \(path)); give each server its own file, or share deliveries across servers with --store postgres://…"
                    : "cannot lock \(path): \(reason)"
            )
        }
        self.descriptor = descriptor
    }

    /// Takes the lock, trying again every 20 ms while another holder has it, up to `patience`.
    private static func lock(_ descriptor: Int32, patience: Duration) -> Bool {
        let deadline = ContinuousClock.now + patience
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else { return false }
            usleep(20_000)
        }
    }

    /// Lets another PushMock open the file (the descriptor is closed; the lock file stays).
    func release() {
        guard !released.exchange(true, ordering: .relaxed) else { return }
        close(descriptor)
    }

    deinit {
        release()
    }

    /// A file's device and inode: what tells the file opened from one put in its place.
    struct Identity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64

        init(path: String) throws {
            var status = stat()
            guard stat(path, &status) == 0 else { throw StoreError("\(path): \(String(cString: strerror(errno)))") }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    /// What a file that is not a regular one is, in words.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFDIR: "a directory"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }
}
