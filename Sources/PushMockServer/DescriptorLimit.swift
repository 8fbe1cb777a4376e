#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's file-descriptor limit (RLIMIT_NOFILE), and the connection caps sized from it so
/// that a flood of idle sockets on the push port can never use up the descriptors the inspection
/// port, the event loops and open files need (issue 10: 20 000 idle sockets took both ports down).
enum DescriptorLimit {
    /// Descriptors kept for everything but connections: event loops, files, logs, the listeners.
    static let reserve = 64

    /// Raises the soft limit to the hard limit (as servers do at start), then returns the soft
    /// limit in force.
    static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 {
                limit = raised
            }
        }
        // RLIM_INFINITY or absurdly large: cap what we plan for.
        return Int(clamping: min(limit.rlim_cur, 1 << 20))
    }

    /// The caps for a descriptor limit: the inspection port gets an eighth (8 to 2 560: enough
    /// for the default 1 000 event streams and as many long-polls besides its own reserve), the
    /// push listeners share the rest less ``reserve`` (with a cleartext port, it gets a quarter of that).
    static func caps(descriptors: Int, cleartext: Bool) -> (tls: Int, cleartext: Int, inspection: Int) {
        let inspection = max(8, min(2560, descriptors / 8))
        let push = max(16, descriptors - reserve - inspection)
        guard cleartext else { return (push, 0, inspection) }
        return (push - push / 4, max(4, push / 4), inspection)
    }
}
