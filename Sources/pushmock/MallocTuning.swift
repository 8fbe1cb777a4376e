import Foundation

/// glibc keeps at most 7 freed chunks per size in each thread's cache (tcache). A push server
/// with 100 streams in flight on each connection frees a hundred request objects of one size at
/// a time, so most frees overflow into the arenas' bins and the next mallocs pay for consolidating
/// them: 6.5–8.7% of the APNs benchmark's profile went to malloc and free, 4.1–4.9% with a cache
/// of 256 per size (docs/performance.md). The cache size is a tunable read only when a process
/// starts, so `pushmock serve` starts itself again, once, with it set.
///
/// Skipped when `PUSHMOCK_MALLOC_TUNING=off`, when `GLIBC_TUNABLES` already sets `tcache_count`
/// (the operator's choice stands), and when the start already happened (`PUSHMOCK_MALLOC_TUNED`).
enum MallocTuning {
    static let tcacheCount = 256
    static let marker = "PUSHMOCK_MALLOC_TUNED"

    /// Re-executes this program with the tunable set, or returns when it should not (or cannot).
    static func applyByRestarting() {
        #if os(Linux) && canImport(Glibc)
        let environment = ProcessInfo.processInfo.environment
        guard environment["PUSHMOCK_MALLOC_TUNING"]?.lowercased() != "off", environment[marker] == nil else { return }
        let existing = environment["GLIBC_TUNABLES"] ?? ""
        guard !existing.contains("tcache_count") else { return }
        let tunable = "glibc.malloc.tcache_count=\(tcacheCount)"
        setenv("GLIBC_TUNABLES", existing.isEmpty ? tunable : existing + ":" + tunable, 1)
        setenv(marker, "1", 1)
        let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", arguments)
        // Still here: exec failed. Serve without the tunable rather than not at all.
        unsetenv(marker)
        if existing.isEmpty { unsetenv("GLIBC_TUNABLES") } else { setenv("GLIBC_TUNABLES", existing, 1) }
        #endif
    }
}
