import PushMockBytes

/// Validates a `messages:send` body like FCM (fcm.md §2–§4, §7): proto3 JSON with snake_case or
/// lowerCamelCase names, last duplicate key wins, unknown names and wrong types refused with Google's
/// texts, exactly one target, target grammar, data rules, Android/Webpush/APNs options, sizes and
/// the Live Activity message rules. Parses once into a ``JSONTape``; no Foundation.
public struct FCMMessageValidator: Sendable {
    /// Require registration tokens shaped like real ones (`<instance id>:APA91b…`); when false any
    /// `<a>:<b>` of base64url characters passes.
    public var strictRegistrationTokens: Bool
    /// The limit on `data` plus `notification` (fcm.md §3: 4096).
    public var maxMessagePayloadSize: Int
    /// The Live Activity rules for `apns.payload.aps` of Live Activity messages.
    public var liveActivity: LiveActivityOptions
    /// Declared `ActivityAttributes` types (checked as on `/3/device`).
    public let activityTypes: ActivityTypeRegistry

    public init(
        strictRegistrationTokens: Bool = true, maxMessagePayloadSize: Int = 4096, liveActivity: LiveActivityOptions = .init(),
        activityTypes: ActivityTypeRegistry = ActivityTypeRegistry()
    ) {
        self.strictRegistrationTokens = strictRegistrationTokens
        self.maxMessagePayloadSize = maxMessagePayloadSize
        self.liveActivity = liveActivity
        self.activityTypes = activityTypes
    }

    /// Whether `token` is a registration token this validator accepts as a `message.token`.
    public func isRegistrationToken(_ token: String) -> Bool {
        FCMWalker.isRegistrationToken(token, strict: strictRegistrationTokens)
    }

    /// Whether `name` is a topic name FCM accepts (`[a-zA-Z0-9-_.~%]{1,900}`, no `/topics/` prefix).
    public static func isTopicName(_ name: String) -> Bool {
        FCMWalker.isTopicName(name)
    }

    /// Validates `body` at `now` (seconds since the epoch; Live Activity timestamps are judged against it).
    public func validate(_ body: [UInt8], now: PushInstant = .epoch) throws(GoogleError) -> FCMSendResult {
        try validate(body, now: now, scratch: Scratch())
    }

    /// The same, parsing into `scratch`'s memory, which it keeps for the next body: one per
    /// connection (never shared between threads) saves two allocations a message.
    public func validate(_ body: [UInt8], now: PushInstant = .epoch, scratch: Scratch) throws(GoogleError) -> FCMSendResult {
        try body.withByteView { bytes throws(GoogleError) -> FCMSendResult in
            guard let tape = JSONTape(JSONScanner(bytes), storage: scratch.entries) else {
                throw GoogleError(
                    code: 400, message: "Invalid JSON payload received. Unexpected token.", status: "INVALID_ARGUMENT",
                    details: [
                        .badRequest([.init(field: "", description: "Invalid JSON payload received. Unexpected token.")])
                    ])
            }
            let walker: FCMWalker
            if let kept = scratch.walker {
                kept.start(tape: consume tape, validator: self, now: now)
                walker = kept
            } else {
                walker = FCMWalker(tape: consume tape, validator: self, slots: scratch.slots)
                walker.now = now
                scratch.walker = walker
            }
            // The kept walker lets go of the body's bytes; a huge body's entries are let go too.
            defer { walker.tape = JSONTape(emptyIn: scratch.keptEntries()) }
            do throws(GoogleError) {
                return try walker.request()
            } catch {
                walker.result = FCMSendResult()
                throw error
            }
        }
    }

    /// Memory one connection's validations reuse: the tape's entries, the walker's slots, and the
    /// walker itself (made, set up and freed for each message, it cost about 500 instructions).
    /// Not thread-safe: one per connection, used on its event loop.
    public final class Scratch: @unchecked Sendable {
        /// The tape's entries, built anew for each body.
        @exclusivity(unchecked) private(set) var entries = ScratchList<JSONTape.Entry>(capacity: 64)
        private let ownedSlots = IntSlots(count: FCMSchema.shared.tables.fields.count)
        var slots: ScratchInts { ownedSlots.ints }
        /// The last message's walker, ready for the next.
        @exclusivity(unchecked) var walker: FCMWalker?

        public init() {}

        /// The entries' list for the next body: the same one, unless a huge body grew it
        /// (then a new one, and the large block is freed).
        func keptEntries() -> ScratchList<JSONTape.Entry> {
            if entries.capacity > 4096 { entries = ScratchList(capacity: 64) }
            return entries
        }
    }
}
