import Glibc
import PushMockCore
import Testing

@Suite("Instants say their unit")
struct PushInstantTests {
    @Test("seconds and milliseconds convert both ways; seconds round down, before 1970 too")
    func units() {
        #expect(PushInstant(secondsSinceEpoch: 1_767_225_600).millisecondsSinceEpoch == 1_767_225_600_000)
        #expect(PushInstant(millisecondsSinceEpoch: 1_767_225_600_999).secondsSinceEpoch == 1_767_225_600)
        #expect(PushInstant(millisecondsSinceEpoch: -1).secondsSinceEpoch == -1)
        #expect(PushInstant(millisecondsSinceEpoch: -1000).secondsSinceEpoch == -1)
        #expect(PushInstant(millisecondsSinceEpoch: -1001).secondsSinceEpoch == -2)
    }

    @Test("moving by a duration saturates instead of trapping")
    func saturation() {
        let start = PushInstant(secondsSinceEpoch: 1_767_225_600)
        #expect(start.advanced(by: .hours(8)).duration(since: start) == .hours(8))
        #expect(start.advanced(by: .seconds(-1)) < start)
        #expect(PushInstant(secondsSinceEpoch: .max).millisecondsSinceEpoch == .max)
        #expect(PushInstant(millisecondsSinceEpoch: .max - 1).advanced(by: .seconds(10)).millisecondsSinceEpoch == .max)
        #expect(PushInstant(millisecondsSinceEpoch: .min + 1).advanced(by: .seconds(-10)).millisecondsSinceEpoch == .min)
        #expect(Duration.milliseconds(1500).milliseconds == 1500)
        #expect(Duration.seconds(Int64.max).milliseconds == .max)
    }
}

@Suite("The monotonic clock the latency histogram reads")
struct MonotonicClockTests {
    @Test("it never goes back and measures a sleep as ContinuousClock does, within a millisecond")
    func measuresLikeContinuousClock() throws {
        let start = MonotonicClock.nanoseconds()
        let clockStart = ContinuousClock.now
        usleep(20_000)
        let elapsed = MonotonicClock.nanoseconds() - start
        let reference = ContinuousClock.now - clockStart
        let referenceNanoseconds = reference.components.seconds * 1_000_000_000 + reference.components.attoseconds / 1_000_000_000
        #expect(elapsed >= 20_000_000)
        #expect(abs(elapsed - referenceNanoseconds) < 1_000_000, "\(elapsed) ns against \(referenceNanoseconds) ns")
        var last = MonotonicClock.nanoseconds()
        for _ in 0..<10_000 {
            let now = MonotonicClock.nanoseconds()
            #expect(now >= last)
            last = now
        }
    }
}
