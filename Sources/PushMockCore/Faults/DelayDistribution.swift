#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fault's delay drawn anew for each request it fires for, from the fault plan's seeded
/// generator (`faultSeed`), so that latency varies as a real service's does and a run can still be
/// repeated: the same seed and the same requests give the same delays.
///
/// ```swift
/// FaultRule(id: "slow", action: .delayDrawn(.logNormal(median: 80, sigma: 0.5)))
/// ```
public enum DelayDistribution: Sendable, Hashable, Codable {
    /// Uniform between `min` and `max` milliseconds, both included.
    case uniform(min: Int, max: Int)
    /// Normal around `mean` milliseconds with `standardDeviation`; a draw below 0 is 0.
    case normal(mean: Int, standardDeviation: Int)
    /// Log-normal: `median` milliseconds, `sigma` the standard deviation of its logarithm (0.5 is
    /// a moderate right tail, 1 a long one).
    case logNormal(median: Int, sigma: Double)

    /// The most a draw gives, as for a fixed delay (10 minutes).
    public static let limit = 600_000

    /// One draw, in milliseconds, within 0…``limit``.
    public func draw(_ random: inout IDGenerator) -> Int {
        // A uniform double in (0, 1): 53 random bits, half a step off either end.
        func unit() -> Double { (Double(random.next() >> 11) + 0.5) / Double(UInt64(1) << 53) }
        // A standard normal draw (Box–Muller).
        func gaussian() -> Double {
            let radius = (-2 * log(unit())).squareRoot()
            return radius * cos(2 * Double.pi * unit())
        }
        let value: Double
        switch self {
        case .uniform(let low, let high):
            value = Double(low) + (Double(high - low + 1) * unit()).rounded(.down)
        case .normal(let mean, let deviation):
            value = Double(mean) + Double(deviation) * gaussian()
        case .logNormal(let median, let sigma):
            value = Double(median) * exp(sigma * gaussian())
        }
        guard value.isFinite else { return Self.limit }
        return Int(Swift.min(Swift.max(value.rounded(), 0), Double(Self.limit)))
    }
}
