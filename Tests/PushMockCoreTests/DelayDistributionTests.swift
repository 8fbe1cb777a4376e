import PushMockCore
import Testing

/// Drawn delays: repeatable from the plan's seed, within their bounds, shaped as named. The draws
/// come from a fixed seed, so the sample statistics below are the same on every run.
@Suite("Faults: drawn delays")
struct DelayDistributionTests {
    static func draws(_ distribution: DelayDistribution, count: Int = 10_000, seed: UInt64 = 7) -> [Int] {
        var random = IDGenerator(seed: seed)
        return (0..<count).map { _ in distribution.draw(&random) }
    }

    @Test("uniform: every draw within min…max, both ends reached, the mean in the middle")
    func uniform() {
        let draws = Self.draws(.uniform(min: 10, max: 20))
        #expect(draws.allSatisfy { (10...20).contains($0) })
        #expect(Set(draws) == Set(10...20), "every value of the range is drawn")
        let mean = Double(draws.reduce(0, +)) / Double(draws.count)
        #expect(abs(mean - 15) < 0.2, "mean \(mean)")
        #expect(Self.draws(.uniform(min: 300, max: 300)).allSatisfy { $0 == 300 })
    }

    @Test("normal: the mean and spread asked for; nothing below 0")
    func normal() {
        let draws = Self.draws(.normal(mean: 200, standardDeviation: 50))
        let mean = Double(draws.reduce(0, +)) / Double(draws.count)
        let deviation = (draws.map { (Double($0) - mean) * (Double($0) - mean) }.reduce(0, +) / Double(draws.count)).squareRoot()
        #expect(abs(mean - 200) < 3, "mean \(mean)")
        #expect(abs(deviation - 50) < 3, "standard deviation \(deviation)")
        #expect(Self.draws(.normal(mean: 0, standardDeviation: 100)).allSatisfy { $0 >= 0 })
    }

    @Test("log-normal: the median asked for and a long right tail; capped at the limit")
    func logNormal() {
        let draws = Self.draws(.logNormal(median: 80, sigma: 0.5)).sorted()
        let median = draws[draws.count / 2]
        #expect((76...84).contains(median), "median \(median)")
        #expect(draws[draws.count * 99 / 100] > 2 * median, "the 99th percentile is well above the median")
        #expect(Self.draws(.logNormal(median: 600_000, sigma: 5)).allSatisfy { $0 <= DelayDistribution.limit })
    }

    @Test("a plan draws a rule's delay per request, the same for the same seed, also inside a sequence")
    func plan() {
        func run(seed: UInt64) -> [Int?] {
            let plan = FaultPlan(
                rules: [
                    FaultRule(id: "slow", match: .init(token: "aa"), action: .delayDrawn(.uniform(min: 0, max: 1_000))),
                    FaultRule(id: "steps", match: .init(token: "bb"), sequence: [.delayDrawn(.normal(mean: 100, standardDeviation: 10)), nil]),
                ], seed: seed)
            var delays: [Int?] = []
            for token in ["aa", "aa", "aa", "bb", "bb"] {
                let fired = plan.fire(service: .apns, path: "/3/device/\(token)", token: token, topic: nil)
                switch fired?.action {
                case .delay(let milliseconds)?: delays.append(milliseconds)
                case nil: delays.append(nil)
                default: Issue.record("a fired rule carries a drawn delay as a delay, got \(String(describing: fired?.action))")
                }
            }
            return delays
        }
        let first = run(seed: 42)
        #expect(first == run(seed: 42))
        #expect(first != run(seed: 43))
        #expect(first.prefix(3).allSatisfy { ($0 ?? -1) >= 0 && ($0 ?? .max) <= 1_000 })
        #expect(Set(first.prefix(3)).count == 3, "drawn anew for each request: \(first)")
        #expect(first[4] == nil, "the sequence's accepting step")
    }
}
