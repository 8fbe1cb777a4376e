import ArgumentParser
import Foundation
import PushMockCore
import PushMockServer

/// Live Activities: the payload rules, the simulated device, and the app's types.
struct LiveActivityOptions: ParsableArguments {
    @Option(
        help: "Live Activity payload rules: strict (violations get 400 with the rule's reason) or apple (200, recorded as dropped by the device).")
    var liveActivityProfile: LiveActivityProfile?

    @Option(help: "Seconds a Live Activity timestamp may lag behind now before it is stale (default 3600).")
    var liveActivityMaxAge: Int64?

    @Option(help: "Seconds a Live Activity timestamp may be ahead of now (default 300).")
    var liveActivityMaxAhead: Int64?

    @Option(help: "Priority-10 Live Activity updates a simulated device applies per activity per hour (default: no budget).")
    var liveActivityBudget: Int?

    @Option(help: "Push-to-start creations a simulated device accepts per push-to-start token per hour; more are dropped (default: no budget).")
    var liveActivityPushToStartBudget: Int?

    @Option(
        help:
            "Priority-10 updates a Live Activity takes while its app is not running (the device registry's appRunning); then none until the app runs (default: no budget)."
    )
    var liveActivityBackgroundBudget: Int?

    @Option(
        help:
            "Seconds between two renders of a Live Activity: a sooner update shows when they have passed, and a later one arriving first replaces it (default: every update renders at once)."
    )
    var liveActivityRenderInterval: Double?

    @Option(
        help:
            "Read the app's ActivityAttributes types from its Swift source: a .swift file or a folder (a widget extension, or the whole app), searched recursively. Repeatable. Check what is read with `pushmock activity-types PATH`."
    )
    var activityTypes: [String] = []

    @Option(help: "The most .swift files --activity-types reads under one path (default 5000).")
    var activityTypesMaxFiles: Int?

    @Option(help: "The most bytes of Swift source --activity-types reads under one path (default 33554432, 32 MiB).")
    var activityTypesMaxBytes: Int?

    @Option(help: "The most activity types declared at once, the presets and the API's among them (default 1000).")
    var maxActivityTypes: Int?

    @Flag(
        help:
            "Do not check the ActivityAttributes types popular SDKs define (Flutter live_activities, expo-live-activity, Voltra, OneSignal) without a declaration."
    )
    var noActivityTypePresets = false

    func check() throws {
        for (name, value) in [
            ("--live-activity-budget", liveActivityBudget), ("--live-activity-push-to-start-budget", liveActivityPushToStartBudget),
            ("--live-activity-background-budget", liveActivityBackgroundBudget),
        ] {
            if let value, !(1...100_000).contains(value) { throw ValidationError("\(name) must be from 1 to 100000 (got \(value))") }
        }
        if let liveActivityRenderInterval, !(0.001...3600).contains(liveActivityRenderInterval) {
            throw ValidationError("--live-activity-render-interval must be from 0.001 to 3600 seconds (got \(liveActivityRenderInterval))")
        }
        for (name, value) in [("--live-activity-max-age", liveActivityMaxAge), ("--live-activity-max-ahead", liveActivityMaxAhead)] {
            if let value, value < 0 { throw ValidationError("\(name) must be 0 or more") }
        }
        for (name, value) in [
            ("--activity-types-max-files", activityTypesMaxFiles), ("--activity-types-max-bytes", activityTypesMaxBytes),
            ("--max-activity-types", maxActivityTypes),
        ] {
            if let value, value < 1 { throw ValidationError("\(name) must be at least 1 (got \(value))") }
        }
    }

    func apply(to configuration: inout PushMockConfiguration) {
        if let liveActivityProfile { configuration.apns.options.liveActivity.profile = liveActivityProfile }
        if let liveActivityMaxAge { configuration.apns.options.liveActivity.maxAge = .seconds(liveActivityMaxAge) }
        if let liveActivityMaxAhead { configuration.apns.options.liveActivity.maxAhead = .seconds(liveActivityMaxAhead) }
        if let liveActivityBudget { configuration.liveActivityLimits.priorityBudgetPerHour = liveActivityBudget }
        if let liveActivityPushToStartBudget { configuration.liveActivityLimits.pushToStartBudget = liveActivityPushToStartBudget }
        if let liveActivityBackgroundBudget { configuration.liveActivityLimits.backgroundBudget = liveActivityBackgroundBudget }
        if let liveActivityRenderInterval {
            configuration.liveActivityLimits.renderInterval = .milliseconds(Int64((liveActivityRenderInterval * 1000).rounded()))
        }
        configuration.activityTypeSources += activityTypes
        if let activityTypesMaxFiles { configuration.activityTypeSourceMaxFiles = activityTypesMaxFiles }
        if let activityTypesMaxBytes { configuration.activityTypeSourceMaxBytes = activityTypesMaxBytes }
        if let maxActivityTypes { configuration.maxActivityTypes = maxActivityTypes }
        if noActivityTypePresets { configuration.activityTypePresets = false }
    }
}
