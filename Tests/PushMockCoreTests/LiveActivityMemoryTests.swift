import Foundation
import PushMockCore
import Testing

/// Count caps alone let 4.7 KB updates take about 44 GB (10 000 activities × 1 000 entries): the
/// device also bounds each timeline and all activities by their estimated bytes.
@Suite("A simulated device bounds its Live Activities by bytes")
struct LiveActivityMemoryTests {
    typealias L = LiveActivityDeviceTests

    /// An update whose content-state carries `size` bytes of text.
    static func bigUpdate(_ seconds: Int64, size: Int) -> LiveActivityPush {
        L.push(#""event":"update","timestamp":\#(seconds),"content-state":{"score":"\#(String(repeating: "x", count: size))"}"#)
    }

    @Test("a timeline past maxTimelineBytes forgets its oldest entries and keeps the newest; small entries still keep maxTimeline")
    func timelineBytes() throws {
        var limits = LiveActivityDevice.Limits()
        limits.maxTimelineBytes = 50_000
        var device = LiveActivityDevice(limits: limits, seed: 1)
        let token = try #require(
            device.receive(L.start(L.s0), token: L.pushToStart, kind: nil, bundleID: L.bundle, service: .apns, now: L.at(L.t0)).issuedToken)
        for index in 1...200 {
            let outcome = device.receive(
                Self.bigUpdate(L.s0 + Int64(index), size: 4_600), token: token, kind: nil, bundleID: L.bundle, service: .apns,
                now: L.at(L.t0 + Int64(index) * 1000))
            #expect(outcome.drop == nil)
        }
        let activity = try #require(device.activity(token))
        let bytes = activity.timeline.reduce(0) { $0 + $1.estimatedBytes }
        #expect(bytes <= limits.maxTimelineBytes, "the timeline holds \(bytes) estimated bytes")
        #expect(activity.timeline.count >= 5 && activity.timeline.count < 20, "\(activity.timeline.count) entries of about 4.8 KB")
        #expect(activity.timeline.last?.timestamp == L.s0 + 200, "the newest entry is kept")
        #expect(activity.timeline.first?.event == "update", "the start was forgotten first")
        #expect(device.totalBytes == activity.headBytes + bytes)

        // An entry alone over the limit is still kept: the newest is what the page must show.
        limits.maxTimelineBytes = 1_000
        var tight = LiveActivityDevice(limits: limits, seed: 1)
        let other = try #require(
            tight.receive(L.start(L.s0), token: L.pushToStart, kind: nil, bundleID: L.bundle, service: .apns, now: L.at(L.t0)).issuedToken)
        _ = tight.receive(Self.bigUpdate(L.s0 + 1, size: 4_600), token: other, kind: nil, bundleID: L.bundle, service: .apns, now: L.at(L.t0 + 1000))
        #expect(tight.activity(other)?.timeline.count == 1)

        // Small updates: the count cap, not the byte cap, decides.
        var small = LiveActivityDevice(seed: 1)
        let third = try #require(
            small.receive(L.start(L.s0), token: L.pushToStart, kind: nil, bundleID: L.bundle, service: .apns, now: L.at(L.t0)).issuedToken)
        for index in 1...1_100 {
            _ = small.receive(
                L.update(L.s0 + Int64(index), score: "\(index)-0"), token: third, kind: nil, bundleID: L.bundle, service: .apns,
                now: L.at(L.t0 + Int64(index) * 1000))
        }
        #expect(small.activity(third)?.timeline.count == 1_000)
    }

    @Test("updates to ever new tokens: activities stay at maxActivities, and without a store the evicted ids are not kept (they grew without bound)")
    func distinctTokens() throws {
        var limits = LiveActivityDevice.Limits()
        limits.maxActivities = 100
        for keeps in [false, true] {
            var device = LiveActivityDevice(limits: limits, seed: 1)
            device.keepsEvictions = keeps
            for index in 0..<5_000 {
                let token = String(repeating: "0", count: 56) + String(format: "%08x", index)
                _ = device.receive(L.update(L.s0, score: "1-0"), token: token, kind: nil, bundleID: L.bundle, service: .apns, now: L.at(L.t0))
            }
            #expect(device.activities.count == 100)
            #expect(device.takeEvicted().count == (keeps ? 4_900 : 0), "keepsEvictions \(keeps)")
        }
    }

    @Test("activities past maxBytes together are forgotten oldest first (and reported as evicted); the total is kept exactly")
    func totalBytes() throws {
        var limits = LiveActivityDevice.Limits()
        limits.maxBytes = 200_000
        limits.maxTimelineBytes = 50_000
        var device = LiveActivityDevice(limits: limits, seed: 2)
        var tokens: [String] = []
        for index in 0..<100 {
            let start = L.push(
                #""event":"start","timestamp":\#(L.s0),"content-state":{"score":"\#(String(repeating: "y", count: 4_000))"},"attributes-type":"MatchAttributes","attributes":{"home":"A"},"input-push-token":1"#
            )
            let outcome = device.receive(
                start, token: L.pushToStart + String(index + 256, radix: 16), kind: nil, bundleID: L.bundle, service: .apns,
                now: L.at(L.t0 + Int64(index)))
            tokens.append(try #require(outcome.issuedToken))
        }
        #expect(device.totalBytes <= limits.maxBytes, "\(device.totalBytes) estimated bytes kept")
        let kept = tokens.filter { device.activity($0) != nil }
        #expect(kept.count > 5 && kept.count < 100)
        #expect(kept == Array(tokens.suffix(kept.count)), "the newest are kept")
        let evicted = device.takeEvicted()
        #expect(evicted.count == 100 - kept.count)
        let sum = device.activities.values.reduce(0) { $0 + $1.headBytes + $1.timeline.reduce(0) { $0 + $1.estimatedBytes } }
        #expect(device.totalBytes == sum, "the running total \(device.totalBytes) is the sum \(sum)")
        // Updates grow an activity's timeline and count against the same total.
        for index in 1...200 {
            _ = device.receive(
                Self.bigUpdate(L.s0 + Int64(index), size: 4_000), token: kept.last!, kind: nil, bundleID: L.bundle, service: .apns,
                now: L.at(L.t0 + 1000 + Int64(index)))
        }
        #expect(device.totalBytes <= limits.maxBytes)
        #expect(device.activity(kept.last!) != nil, "the activity being updated is the newest, kept")
        device.removeAll()
        #expect(device.totalBytes == 0)
    }
}
