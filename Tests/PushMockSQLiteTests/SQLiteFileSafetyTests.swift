import Foundation
import PushMockCore
import PushMockSQLite
import PushMockStore
import PushMockTestSupport
import Synchronization
import Testing

/// The SQLite store's file under conditions a user's machine produces: a second server on the same
/// file, a FIFO or a read-only mount at the path, the file deleted under the server, a full disk
/// at shutdown.
@Suite("The SQLite store refuses files it cannot keep, and never hangs or loses deliveries silently")
struct SQLiteFileSafetyTests {
    /// Runs `body` with a fresh tmpfs of `size` mounted (root, as in CI); fails loudly when mounting is not possible.
    static func withTmpfs(size: String = "4m", _ body: (String) async throws -> Void) async throws {
        let directory = TestScratch.path("mount")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", directory])
        defer {
            try? run("/bin/umount", ["-l", directory])
            try? FileManager.default.removeItem(atPath: directory)
        }
        try await body(directory)
    }

    static func run(_ tool: String, _ arguments: [String]) throws {
        let (status, output) = try ChildProcess.run([tool] + arguments)
        guard status == 0 else {
            throw StoreError(
                "\(tool) \(arguments.joined(separator: " ")) failed (\(status)): \(output); these tests mount a tmpfs and need root, as in CI"
            )
        }
    }

    @Test("a second store on the same file is refused at start with a clear error; once the first closes, it opens")
    func secondServer() async throws {
        let path = SQLiteFile.temporary()
        let first = try SQLiteDeliveryStore(path: path)
        first.record(SampleDelivery.make(1))
        let error = #expect(throws: StoreError.self) { try SQLiteDeliveryStore(path: path) }
        #expect(error?.message.contains("is in use by another PushMock") == true, "\(String(describing: error))")
        #expect(first.record(SampleDelivery.make(2)) == 2, "the first keeps recording")
        try await first.close()
        let second = try SQLiteDeliveryStore(path: path)
        #expect(try await second.query(DeliveryFilter(), limit: 10).total == 2, "nothing the first answered was lost")
        try await second.close()
    }

    @Test("a FIFO at the path is refused at once instead of hanging the start")
    func fifo() throws {
        let path = SQLiteFile.temporary()
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let error = #expect(throws: StoreError.self) { try SQLiteDeliveryStore(path: path) }
        #expect(error?.message.contains("is not a regular file (a FIFO)") == true, "\(String(describing: error))")
    }

    @Test("a file on a read-only mount is refused at start, naming the problem")
    func readOnly() async throws {
        try await Self.withTmpfs { directory in
            let path = directory + "/store.sqlite"
            let store = try SQLiteDeliveryStore(path: path)
            store.record(SampleDelivery.make(1))
            try await store.close()
            // A program another test starts at this moment holds copies of this process's
            // descriptors, the store's among them, until it execs (posix_spawn copies them all
            // first); the kernel refuses to make the mount read-only while one is open for
            // writing ("mount point is busy", seen once in a full run on a loaded machine).
            var output = ""
            let remounted = try await eventually {
                let (status, text) = try ChildProcess.run(["/bin/mount", "-o", "remount,ro", directory])
                output = text
                guard status == 0 || text.contains("busy") else { throw StoreError("mount -o remount,ro \(directory) failed (\(status)): \(text)") }
                return status == 0
            }
            try #require(remounted, "mount -o remount,ro \(directory): \(output)")
            let error = #expect(throws: StoreError.self) { try SQLiteDeliveryStore(path: path) }
            #expect(error?.message.contains("cannot") == true && error?.message.contains("store.sqlite") == true, "\(String(describing: error))")
        }
    }

    @Test("closing with the disk full gives up after its patience and reports how many deliveries were lost")
    func fullDiskAtClose() async throws {
        try await Self.withTmpfs(size: "3m") { directory in
            let lines = Mutex<[String]>([])
            let store = try SQLiteDeliveryStore(path: directory + "/store.sqlite", closePatience: .seconds(2)) { line, _ in
                lines.withLock { $0.append(line) }
            }
            // Far more than 3 MB of deliveries: writes fail with SQLITE_FULL.
            var big = SampleDelivery.make(0)
            big.body = Array(repeating: UInt8(ascii: "x"), count: 8_000)
            for _ in 0..<1_000 { store.record(big) }
            let started = ContinuousClock.now
            try await store.close()
            // Not a timing check: a close that never gave up would hang here (the bound is the
            // suite's hang bound, far past the 2 s patience plus a busy machine's slowness).
            #expect(ContinuousClock.now - started < TestDeadline.hang, "close took \(ContinuousClock.now - started)")
            let said = lines.withLock { $0 }
            #expect(said.contains { $0.contains("closing:") && $0.contains("deliveries could not be written") }, "\(said)")
        }
    }

    @Test("a file deleted under the store: writes stop, the failure is reported and health says so; the queue keeps what was answered")
    func deleted() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path, closePatience: .seconds(1))
        store.record(SampleDelivery.make(1))
        await store.flush()
        try FileManager.default.removeItem(atPath: path)
        store.checkFileOnNextWrite()
        store.record(SampleDelivery.make(2))
        var failure: String?
        _ = await eventually {
            failure = await store.statistics().failure
            return failure != nil
        }
        #expect(failure?.contains("was deleted while PushMock had it open") == true, "\(failure ?? "no failure reported")")
        // Whether the writer holds it in the batch it is retrying or it is back in the queue.
        #expect(await store.statistics().queued == 1, "the answered delivery waits in the queue")
        try await store.close()
    }

    @Test("after a clean close the WAL is checkpointed: the one file holds every delivery")
    func checkpointOnClose() async throws {
        let path = SQLiteFile.temporary()
        let store = try SQLiteDeliveryStore(path: path)
        for index in 1...500 { store.record(SampleDelivery.make(index)) }
        try await store.close()
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(wal == 0, "the -wal file still holds \(wal) bytes")
        // The file alone (no -wal beside it) is the store.
        let copy = SQLiteFile.temporary()
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let reopened = try SQLiteDeliveryStore(path: copy)
        #expect(try await reopened.query(DeliveryFilter(), limit: 1).total == 500)
        try await reopened.close()
    }
}
