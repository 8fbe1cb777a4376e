import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, its standard output and error on one pipe, its
/// standard input a pipe this process holds (or /dev/null).
///
/// The tests run it instead of Foundation's `Process`: every descriptor here is opened with
/// close-on-exec and closed exactly once, by this type. A descriptor closed twice closes whatever
/// socket took its number in between, and the tests open sockets on every thread: with `Process`
/// and `Pipe` under a busy suite, fresh connections were seen closed under the tests.
package final class ChildProcess: Sendable {
    package let pid: Int32
    /// The read end of the child's standard output and error.
    private let output: Int32
    /// The write end of the child's standard input (-1: /dev/null); closing it is the child's EOF.
    private let input: Atomic<Int32>
    private let outputClosed = Atomic<Bool>(false)

    private init(pid: Int32, output: Int32, input: Int32) {
        self.pid = pid
        self.output = output
        self.input = Atomic(input)
    }

    /// Starts `arguments[0]` (a path) with the rest as its arguments, in `environment` (by
    /// default this process's).
    /// With `newSession`, the child leads a session of its own (setsid): a terminal's Ctrl-C and
    /// signals sent to this process's group do not reach it.
    package static func spawn(
        _ arguments: [String], environment: [String: String]? = nil, inputPipe: Bool = false, newSession: Bool = false
    ) throws -> ChildProcess {
        precondition(!arguments.isEmpty)
        var outputEnds: [Int32] = [-1, -1]
        guard makePipe(&outputEnds) else { throw ChildProcessError("pipe: \(String(cString: strerror(errno)))") }
        var inputEnds: [Int32] = [-1, -1]
        if inputPipe {
            guard makePipe(&inputEnds) else {
                close(outputEnds[0])
                close(outputEnds[1])
                throw ChildProcessError("pipe: \(String(cString: strerror(errno)))")
            }
        }
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 leaves the copies at 0, 1 and 2 without close-on-exec; the originals close at exec.
        if inputPipe {
            posix_spawn_file_actions_adddup2(&actions, inputEnds[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outputEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, outputEnds[1], 2)
        // Then every other descriptor is closed in the child (the pipes' originals among them):
        // the tests' sockets are not all close-on-exec, and a long-lived child (PostgreSQL)
        // holding a copy of one would keep its connection open after the test closed it.
        closeFrom3(&actions)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] =
            (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for argument in argv + envp { free(argument) } }
        var pid: pid_t = 0
        #if canImport(Darwin)
        var attributes: posix_spawnattr_t? = nil
        #else
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with no signal blocked and the usual signals at their defaults. The test
        // process ignores SIGPIPE and its threads block signals; a shell that inherited a blocked
        // SIGCHLD never reaped its children, so the tests' PostgreSQL guard outlived every run.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK) | Int32(POSIX_SPAWN_SETSIGDEF)
        if newSession { flags |= spawnSetSID }
        #if canImport(Darwin)
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        // The child's ends, in this process: closed once, here.
        close(outputEnds[1])
        if inputPipe { close(inputEnds[0]) }
        guard spawned == 0 else {
            close(outputEnds[0])
            if inputPipe { close(inputEnds[1]) }
            throw ChildProcessError("\(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        return ChildProcess(pid: pid, output: outputEnds[0], input: inputPipe ? inputEnds[1] : -1)
    }

    /// Runs `arguments` to its end: its exit status (or 128 + the signal) and what it printed.
    package static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
        let child = try spawn(arguments, environment: environment)
        var text: [UInt8] = []
        while let chunk = child.read() { text += chunk }
        return (child.wait(), String(decoding: text, as: UTF8.self))
    }

    /// The next bytes the child wrote; nil at the end (the descriptor is then closed). Blocks.
    package func read() -> [UInt8]? {
        guard !outputClosed.load(ordering: .relaxed) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { readDescriptor(output, $0.baseAddress, $0.count) }
            if count > 0 { return Array(buffer[0..<count]) }
            if count < 0 && errno == EINTR { continue }
            if !outputClosed.exchange(true, ordering: .relaxed) { close(output) }
            return nil
        }
    }

    /// Closes the reading end of the child's output (once), as if this process had ended: the
    /// child's next write gets EPIPE (or SIGPIPE). Only the thread that calls `read()` may call it.
    package func closeOutput() {
        if !outputClosed.exchange(true, ordering: .relaxed) { close(output) }
    }

    /// Writes `text` to the child's standard input (a pipe: `spawn(…, inputPipe: true)`).
    package func writeInput(_ text: String) {
        let descriptor = input.load(ordering: .relaxed)
        guard descriptor >= 0 else { return }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Closes the child's standard input (once).
    package func closeInput() {
        let descriptor = input.exchange(-1, ordering: .relaxed)
        if descriptor >= 0 { close(descriptor) }
    }

    /// Waits for the child to end: its exit status, or 128 + the signal that ended it.
    package func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

/// POSIX_SPAWN_SETSID, which Glibc's Swift module leaves out (glibc 2.26: 0x80).
#if os(Linux)
private let spawnSetSID: Int32 = 0x80
#else
private let spawnSetSID = Int32(POSIX_SPAWN_SETSID)
#endif

/// `pipe` with both ends close-on-exec (atomically where the system can).
private func makePipe(_ ends: inout [Int32]) -> Bool {
    #if os(Linux)
    return systemPipe2(&ends, O_CLOEXEC) == 0
    #else
    guard pipe(&ends) == 0 else { return false }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return true
    #endif
}

#if os(Linux)
/// pipe2(2), which Glibc's Swift module leaves out (it is a GNU extension).
@_silgen_name("pipe2")
private func systemPipe2(_ ends: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32
#endif

#if os(Linux)
/// posix_spawn_file_actions_addclosefrom_np(3) (glibc 2.34), a GNU extension Glibc's Swift
/// module leaves out.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func systemAddCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32

private func closeFrom3(_ actions: inout posix_spawn_file_actions_t) {
    _ = systemAddCloseFrom(&actions, 3)
}
#else
/// Darwin: the attribute POSIX_SPAWN_CLOEXEC_DEFAULT is set instead (see `spawn`).
private func closeFrom3(_ actions: inout posix_spawn_file_actions_t?) {}
#endif

/// read(2), named apart from ``ChildProcess/read()``.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

package struct ChildProcessError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
