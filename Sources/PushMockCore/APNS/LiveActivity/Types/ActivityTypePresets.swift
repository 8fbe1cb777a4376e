/// The `ActivityAttributes` types that popular SDKs define themselves, so that a push whose
/// `attributes-type` names one is checked with no declaration. Each is transcribed from the SDK's
/// own Swift source (docs/live-activities.md, "SDK presets", cites each file). A type the user
/// declares under the same name wins; `liveActivity.presets: false` turns them all off.
public enum ActivityTypePresets {
    /// One SDK's type.
    public struct Preset: Sendable {
        /// The Swift name (the `attributes-type` its pushes carry).
        public var name: String
        /// The SDK, as its users know it.
        public var sdk: String
        /// Where the definition was read (repository and file).
        public var source: String
        /// The definition, in the declaration form.
        public var declaration: ActivityTypeDeclaration
    }

    /// Every preset.
    public static let all: [Preset] = [
        preset(
            "LiveActivitiesAppAttributes", sdk: "Flutter live_activities",
            source: "istornz/flutter_live_activities, ios/live_activities/Sources/live_activities/LiveActivitiesPlugin.swift",
            // `var id = UUID()`: a var with a default is still required by the synthesized decoder.
            #"{"attributes": {"id": "UUID"}, "contentState": {"appGroupId": "String"}}"#
        ),
        preset(
            "LiveActivityAttributes", sdk: "expo-live-activity",
            source: "software-mansion-labs/expo-live-activity, ios/LiveActivityAttributes.swift",
            #"""
            {"attributes": {"name": "String", "backgroundColor": "String?", "titleColor": "String?", "subtitleColor": "String?",
                            "progressViewTint": "String?", "progressViewLabelColor": "String?", "deepLinkUrl": "String?",
                            "timerType": "DynamicIslandTimerType?", "padding": "Int?", "paddingDetails": "PaddingDetails?",
                            "imagePosition": "String?", "imageWidth": "Int?", "imageHeight": "Int?", "imageWidthPercent": "Double?",
                            "imageHeightPercent": "Double?", "smallImageWidth": "Int?", "smallImageHeight": "Int?",
                            "smallImageWidthPercent": "Double?", "smallImageHeightPercent": "Double?", "imageAlign": "String?",
                            "contentFit": "String?", "progressSegmentActiveColor": "String?", "progressSegmentInactiveColor": "String?"},
             "contentState": {"title": "String", "subtitle": "String?", "timerEndDateInMilliseconds": "Double?", "progress": "Double?",
                              "imageName": "String?", "dynamicIslandImageName": "String?", "smallImageName": "String?",
                              "elapsedTimerStartDateInMilliseconds": "Double?", "currentStep": "Int?", "totalSteps": "Int?"},
             "types": {"DynamicIslandTimerType": {"enum": "String", "cases": ["circular", "digital"]},
                       "PaddingDetails": {"top": "Int?", "bottom": "Int?", "left": "Int?", "right": "Int?", "vertical": "Int?", "horizontal": "Int?"}}}
            """#
        ),
        preset(
            "VoltraAttributes", sdk: "Voltra (React Native)",
            source: "callstackincubator/voltra, ios/shared/VoltraAttributes.swift",
            // ContentState's own init(from:) reads `uiJsonData` (Brotli-compressed JSON, base64) and
            // nothing else; what the string holds is not checked.
            #"{"attributes": {"name": "String", "deepLinkUrl": "String?"}, "contentState": {"uiJsonData": "String"}}"#
        ),
        preset(
            "DefaultLiveActivityAttributes", sdk: "OneSignal",
            source:
                "OneSignal/OneSignal-iOS-SDK, iOS_SDK/OneSignalSDK/OneSignalLiveActivities/Source/DefaultLiveActivityAttributes.swift and OneSignalLiveActivityAttributes.swift",
            #"""
            {"attributes": {"data": "[String: Any]", "onesignal": "OneSignalLiveActivityAttributeData"},
             "contentState": {"data": "[String: Any]", "onesignal": "OneSignalLiveActivityContentStateData?"},
             "types": {"OneSignalLiveActivityAttributeData": {"activityId": "String"},
                       "OneSignalLiveActivityContentStateData": {"notificationId": "String"}}}
            """#
        ),
    ]

    /// The presets by name, each declaration marked with its SDK and source.
    public static let declarations: [String: ActivityTypeDeclaration] = {
        var byName: [String: ActivityTypeDeclaration] = [:]
        for preset in all { byName[preset.name] = preset.declaration }
        return byName
    }()

    /// The preset named `name`, if there is one.
    public static func preset(named name: String) -> Preset? {
        all.first { $0.name == name }
    }

    private static func preset(_ name: String, sdk: String, source: String, _ json: String) -> Preset {
        // The texts above are fixed and tested (ActivityTypePresetTests); a broken one is a bug.
        guard let parsed = JSONValue.parse(Array(json.utf8)), var declaration = try? ActivityTypeDeclaration(json: parsed) else {
            preconditionFailure("the preset \(name) does not read as a declaration")
        }
        declaration.origin = "preset: \(sdk) (\(source))"
        declaration.preset = sdk
        return Preset(name: name, sdk: sdk, source: source, declaration: declaration)
    }
}
