import Foundation
package import PushMockStore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A PostgreSQL cluster of this test process's own, as Testcontainers gives its users one: made by
/// `initdb` in a temporary folder (trust authentication, superuser `postgres`, no fsync), served
/// on 127.0.0.1 by `postgres`, and stopped, its folder removed, when the test process ends.
///
/// - As root, `initdb` and `postgres` run as the `postgres` user (`runuser`), since PostgreSQL
///   refuses to run as root.
/// - PostgreSQL cannot be told to bind port 0, so its port is drawn from 20000–32767, below the
///   kernel's range for port-0 binds (32768–60999 by default), where no test server lands; a port
///   that something else holds makes `postgres` exit at once, and another is drawn.
/// - The end comes by an event, not a timer: a small shell holds `postgres` as its child and reads
///   a pipe whose other end only this process holds. When the process ends, however it ends, the
///   kernel closes that end, the read returns, and the shell stops `postgres` (fast shutdown) and
///   removes the folder. The shell leads a session of its own, so a Ctrl-C that ends the tests
///   does not end it first, and it ignores SIGPIPE: its output pipe has no reader once this
///   process is gone. A `postgres` that ends by itself (its port taken) leaves the folder for the
///   next try: this process tells its shell so ("keep") before closing the pipe.
package enum ThrowawayPostgres {
    /// The cluster, started on first use.
    static let shared = Task { try await start() }

    /// The folder holding `initdb` and `postgres`, if PostgreSQL is installed.
    package static func binaries() -> String? {
        let environment = ProcessInfo.processInfo.environment
        let files = FileManager.default
        var folders: [String] = []
        if let only = environment["PUSHMOCK_TEST_POSTGRES_BIN"] {
            folders = [only]
        } else {
            let versions = (try? files.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
            folders += versions.sorted { $0.compare($1, options: .numeric) == .orderedDescending }.map { "/usr/lib/postgresql/\($0)/bin" }
            folders += (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        }
        return folders.first { !$0.isEmpty && files.isExecutableFile(atPath: "\($0)/initdb") && files.isExecutableFile(atPath: "\($0)/postgres") }
    }

    /// Kept for the life of the process: its write end is what keeps the cluster running.
    private static let lifeline = Mutex<[ChildProcess]>([])

    /// A running cluster: where it answers, its folder, and the shell that guards it (whose
    /// standard input is the lifeline).
    package struct Cluster: Sendable {
        package let location: PostgresLocation
        package let folder: String
        package let guardian: ChildProcess
    }

    static func start() async throws -> PostgresLocation {
        let cluster = try await startCluster(drain: true)
        lifeline.withLock { $0.append(cluster.guardian) }
        return cluster.location
    }

    /// Makes and starts a cluster. The caller holds it: it runs until the caller closes
    /// `guardian`'s input, or ends. With `drain`, the cluster's log is read (and dropped) for as
    /// long as it runs; without, the reading end is closed once it is ready, as it is when this
    /// process ends.
    package static func startCluster(drain: Bool) async throws -> Cluster {
        guard let bin = binaries() else { throw ThrowawayPostgresError(description: "\(PostgresTestDatabase.skipReason)") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushmock-test-postgres-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        var runAs: [String] = []  // (as root: runuser -u USER --)
        if geteuid() == 0 {
            let user = getpwnam("postgres") != nil ? "postgres" : "nobody"
            guard let account = getpwnam(user), chown(folder, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
                throw ThrowawayPostgresError(description: "cannot give \(folder) to the user \(user), who runs PostgreSQL for the tests")
            }
            let runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].first { FileManager.default.isExecutableFile(atPath: $0) }
            guard let runuser else {
                throw ThrowawayPostgresError(description: "running as root, the tests start PostgreSQL as \(user) with runuser, which is missing")
            }
            runAs = [runuser, "-u", user, "--"]
        }
        let prefix = runAs
        let initdb = try await offThePool {
            try run(prefix + ["\(bin)/initdb", "-D", "\(folder)/data", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"])
        }
        guard initdb.status == 0 else {
            try? FileManager.default.removeItem(atPath: folder)
            throw ThrowawayPostgresError(
                description: "initdb failed for the tests' PostgreSQL (exit \(initdb.status)): \(initdb.output.suffix(2000))")
        }
        var log = ""
        for _ in 0..<20 {
            let port = Int.random(in: 20_000...32_767)
            switch try await serve(runAs: runAs, bin: bin, folder: folder, port: port, drain: drain) {
            case .ready(let guardian):
                let location = try PostgresLocation(url: "postgres://postgres@127.0.0.1:\(port)/postgres", environment: [:])
                return Cluster(location: location, folder: folder, guardian: guardian)
            case .exited(let output) where output.contains("already in use"):
                log = output
                continue
            case .exited(let output):
                try? FileManager.default.removeItem(atPath: folder)
                throw ThrowawayPostgresError(description: "the tests' PostgreSQL did not start on 127.0.0.1:\(port): \(output.suffix(2000))")
            }
        }
        try? FileManager.default.removeItem(atPath: folder)
        throw ThrowawayPostgresError(description: "the tests' PostgreSQL found no free port in 20 tries: \(log.suffix(1000))")
    }

    enum Start: Sendable {
        case ready(ChildProcess)
        case exited(String)
    }

    /// What the reader saw: ready, or the end.
    enum Seen: Sendable {
        case ready
        case exited(String)
    }

    /// The guard shell: `sh -c SCRIPT sh BIN FOLDER PORT`, its standard input the lifeline.
    ///
    /// It starts `postgres`, and a watcher that reads the lifeline: at its end (this process
    /// closed it, or ended) the watcher marks the folder as stopping and stops `postgres`; a line
    /// "keep" instead means the folder is wanted again. Once `postgres` has ended the shell says
    /// so, waits for the watcher, and removes the folder if it is stopping. It ignores SIGPIPE and
    /// SIGHUP: it must outlive the reader of its output.
    static let guardScript = """
        trap '' PIPE HUP
        exec 3<&0 0</dev/null
        "$1/postgres" -D "$2/data" -p "$3" -k "$2" -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \\
          -c full_page_writes=off -c max_connections=300 3<&- 2>&1 &
        pid=$!
        ( read -r word <&3; [ "$word" = keep ] && exit 0; : >"$2/stopping"; kill -INT "$pid" ) >/dev/null 2>&1 &
        watcher=$!
        exec 3<&-
        wait "$pid"
        echo "pushmock-test-postgres: postgres exited $?"
        wait "$watcher"
        if [ -e "$2/stopping" ]; then rm -rf "$2"; fi
        """

    /// Starts `postgres` under its guard shell and waits for its log to say it is ready, or for it
    /// to end.
    private static func serve(runAs: [String], bin: String, folder: String, port: Int, drain: Bool) async throws -> Start {
        let arguments = (runAs.isEmpty ? ["/bin/sh"] : runAs + ["/bin/sh"]) + ["-c", guardScript, "sh", bin, folder, String(port)]
        let child = try ChildProcess.spawn(arguments, inputPipe: true, newSession: true)
        let outcome = StartOutcome()
        let reader = Thread {
            var text = ""
            while let data = child.read() {
                if text.utf8.count < 100_000 { text += String(decoding: data, as: UTF8.self) }
                if text.contains("ready to accept connections") {
                    outcome.resume(.ready)
                    if !drain {
                        child.closeOutput()
                        return
                    }
                }
                if text.contains("pushmock-test-postgres: postgres exited") { outcome.resume(.exited(text)) }
            }
            outcome.resume(.exited(text))
        }
        reader.start()
        switch await outcome.value {
        case .ready:
            return .ready(child)
        case .exited(let text):
            child.writeInput("keep\n")
            child.closeInput()
            _ = child.wait()
            return .exited(text)
        }
    }

    /// A start's outcome, told once to the one who waits for it.
    private final class StartOutcome: Sendable {
        private let state = Mutex<(result: Seen?, waiter: CheckedContinuation<Seen, Never>?)>((nil, nil))

        func resume(_ result: Seen) {
            let waiter: CheckedContinuation<Seen, Never>? = state.withLock { state in
                guard state.result == nil else { return nil }
                state.result = result
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: result)
        }

        var value: Seen {
            get async {
                await withCheckedContinuation { continuation in
                    let ready: Seen? = state.withLock { state in
                        if let result = state.result { return result }
                        state.waiter = continuation
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            }
        }
    }

    /// Runs a command to its end; its output and exit status.
    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try ChildProcess.run(arguments)
    }
}

struct ThrowawayPostgresError: Error, CustomStringConvertible {
    let description: String
}
