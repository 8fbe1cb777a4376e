import PushMockInspection
import PushMockTestSupport
import Testing

@Suite("Times on the inspection port")
struct InspectionTimeTests {
    @Test(
        "every millisecond is printed as it is and read back to the same instant",
        arguments: [
            (Int64(1_795_461_859_123), "2026-11-23T19:24:19.123Z"),
            (Int64(1_767_225_600_000), "2026-01-01T00:00:00.000Z"),
            (Int64(1_767_225_600_001), "2026-01-01T00:00:00.001Z"),
            (Int64(-1), "1969-12-31T23:59:59.999Z"),
            (Int64(0), "1970-01-01T00:00:00.000Z"),
        ])
    func roundTrip(milliseconds: Int64, text: String) {
        #expect(InspectionTime(milliseconds: milliseconds).text == text)
        #expect(InspectionTime(parsing: text)?.milliseconds == milliseconds)
    }

    @Test("a run of consecutive milliseconds survives printing and reading (no Double rounding)")
    func consecutive() {
        let start: Int64 = 1_795_461_859_000
        let wrong = (start..<(start + 5_000)).filter { InspectionTime(parsing: InspectionTime(milliseconds: $0).text)?.milliseconds != $0 }
        #expect(wrong.isEmpty, "\(wrong.count) instants changed, first \(wrong.first.map(String.init) ?? "")")
    }
}
