/// Where deliveries are recorded (in memory with retention, and SQLite). The recording store arrives
/// with the APNs endpoint (issue 3); this module holds only what exists so far.
public enum PushMockStoreModule {
    /// The default number of deliveries kept in memory.
    public static let defaultRetention = 10_000
}
