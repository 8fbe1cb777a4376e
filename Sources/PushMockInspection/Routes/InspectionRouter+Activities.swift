import PushMockCore

/// `/api/v1/activities[/{token}]` and `/api/v1/channels`: the simulated devices' Live Activities
/// with their timelines, and the broadcast channels.
extension InspectionRouter {
    func listActivities(_ call: InspectionCall) throws -> InspectionAnswer {
        var bundle: String?
        var attributesType: String?
        var state: SimulatedActivity.State?
        var limit = 100
        for (name, value) in call.request.query {
            switch name {
            case "bundle": bundle = value
            case "attributesType": attributesType = value
            case "state":
                guard let parsed = SimulatedActivity.State(rawValue: value) else {
                    throw InspectionError.badRequest(
                        "state must be one of \(SimulatedActivity.State.allCases.map(\.rawValue).joined(separator: ", ")), got \(value)")
                }
                state = parsed
            case "limit":
                limit = try DeliveryQuery.limit(call.request)
            case "access_token":
                continue
            default:
                throw InspectionError.badRequest("unknown filter \(name); known: bundle, attributesType, state, limit")
            }
        }
        let matching = activities.activities()
            .map { ($0, activities.state(of: $0)) }
            .filter { activity, current in
                (bundle == nil || activity.bundleID == bundle)
                    && (attributesType == nil || activity.attributesType == attributesType)
                    && (state == nil || current == state)
            }
            .sorted { ($0.0.startedAt, $0.0.id) > ($1.0.startedAt, $1.0.id) }
        let list = ActivityList(
            activities: matching.prefix(limit).map { ActivityResource($0.0, state: $0.1, shown: activities.shown($0.0)) }, total: matching.count)
        return .response(.json(200, list))
    }

    func activity(_ call: InspectionCall) throws -> InspectionAnswer {
        let key = call.parameter("token")
        guard let activity = activities.activity(key) else {
            throw InspectionError.notFound("no simulated Live Activity with token \(key) (none reached it, or it was reset)")
        }
        return .response(
            .json(200, ActivityResource(activity, state: activities.state(of: activity), shown: activities.shown(activity), detailed: true)))
    }

    func listChannels(_ call: InspectionCall) throws -> InspectionAnswer {
        var bundle: String?
        for (name, value) in call.request.query {
            switch name {
            case "bundle": bundle = value
            case "access_token": continue
            default: throw InspectionError.badRequest("unknown filter \(name); known: bundle")
            }
        }
        var subscribers: [String: [String]] = [:]
        for activity in activities.activities() {
            if let channel = activity.channelID { subscribers[channel, default: []].append(activity.id) }
        }
        let list = activities.channels().filter { bundle == nil || $0.bundleID == bundle }.map { channel in
            ChannelResource(
                channelId: channel.id, bundleId: channel.bundleID, environment: channel.environment.rawValue,
                messageStoragePolicy: channel.messageStoragePolicy, createdAt: InspectionTime(milliseconds: channel.createdAt),
                subscribers: (subscribers[channel.id] ?? []).sorted()
            )
        }
        return .response(.json(200, ChannelList(channels: list, total: list.count)))
    }
}
