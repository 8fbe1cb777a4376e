import Foundation
import PushMockCore
import PushMockInspection

/// `GET /api/v1/activities`, `GET /api/v1/activities/{token}` and `GET /api/v1/channels`: the
/// simulated devices' Live Activities with their timelines, and the broadcast channels.
struct ActivityEndpoints: Sendable {
    let activities: LiveActivities
    let channels: BroadcastChannelStore
    let clock: PushMockClock

    func list(_ request: InspectionRequest) -> InspectionResponse {
        var bundle: String?
        var attributesType: String?
        var state: SimulatedActivity.State?
        var limit = 100
        for (name, value) in request.query {
            switch name {
            case "bundle": bundle = value
            case "attributesType": attributesType = value
            case "state":
                guard let parsed = SimulatedActivity.State(rawValue: value) else {
                    return InspectionAPI.error(400, "state must be one of \(SimulatedActivity.State.allCases.map(\.rawValue).joined(separator: ", ")), got \(value)")
                }
                state = parsed
            case "limit":
                guard let parsed = Int(value), (1...InspectionAPI.maxLimit).contains(parsed) else {
                    return InspectionAPI.error(400, "limit must be an integer from 1 to \(InspectionAPI.maxLimit), got \(value)")
                }
                limit = parsed
            case "access_token":
                continue
            default:
                return InspectionAPI.error(400, "unknown filter \(name); known: bundle, attributesType, state, limit")
            }
        }
        let now = clock.nowMilliseconds
        let matching = activities.all
            .filter { activity in
                (bundle == nil || activity.bundleID == bundle)
                    && (attributesType == nil || activity.attributesType == attributesType)
                    && (state == nil || activity.state(at: now, limits: activities.limits) == state)
            }
            .sorted { ($0.startedAt, $0.id) > ($1.startedAt, $1.id) }
        let object: [String: Any] = [
            "activities": matching.prefix(limit).map { summary($0, now: now) },
            "total": matching.count,
        ]
        return InspectionAPI.response(status: 200, object)
    }

    func one(_ key: String) -> InspectionResponse {
        guard let activity = activities.activity(key) else {
            return InspectionAPI.error(404, "no simulated Live Activity with token \(key) (none reached it, or it was reset)")
        }
        let now = clock.nowMilliseconds
        var object = summary(activity, now: now)
        object["attributes"] = activity.attributes.map(Self.any) ?? NSNull()
        object["timeline"] = activity.timeline.map { entry -> [String: Any] in
            [
                "deliveryId": entry.deliveryID.map { $0 as Any } ?? NSNull(),
                "receivedAt": InspectionAPI.timestamp(entry.receivedAt),
                "service": entry.service,
                "event": entry.event,
                "timestamp": entry.timestamp.map { $0 as Any } ?? NSNull(),
                "priority": entry.priority,
                "deviceOutcome": entry.applied ? "applied" : "dropped",
                "reason": entry.reason ?? NSNull(),
                "explanation": entry.explanation ?? NSNull(),
                "contentState": entry.contentState.map(Self.any) ?? NSNull(),
            ]
        }
        return InspectionAPI.response(status: 200, object)
    }

    func channelList(_ request: InspectionRequest) -> InspectionResponse {
        var bundle: String?
        for (name, value) in request.query {
            switch name {
            case "bundle": bundle = value
            case "access_token": continue
            default: return InspectionAPI.error(400, "unknown filter \(name); known: bundle")
            }
        }
        let subscribers = Dictionary(grouping: activities.all.filter { $0.channelID != nil }, by: { $0.channelID! })
        let list = channels.all.filter { bundle == nil || $0.bundleID == bundle }.map { channel -> [String: Any] in
            [
                "channelId": channel.id,
                "bundleId": channel.bundleID,
                "environment": channel.environment.rawValue,
                "messageStoragePolicy": channel.messageStoragePolicy,
                "createdAt": InspectionAPI.timestamp(channel.createdAt),
                "subscribers": (subscribers[channel.id] ?? []).map(\.id).sorted(),
            ]
        }
        return InspectionAPI.response(status: 200, ["channels": list, "total": list.count])
    }

    private func summary(_ activity: SimulatedActivity, now: Int64) -> [String: Any] {
        [
            "id": activity.id,
            "token": activity.token ?? NSNull(),
            "pushToStartToken": activity.pushToStartToken ?? NSNull(),
            "bundleId": activity.bundleID ?? NSNull(),
            "attributesType": activity.attributesType ?? NSNull(),
            "state": activity.state(at: now, limits: activities.limits).rawValue,
            "contentState": activity.contentState.map(Self.any) ?? NSNull(),
            "timestamp": activity.lastTimestamp.map { $0 as Any } ?? NSNull(),
            "staleDate": activity.staleDate.map { $0 as Any } ?? NSNull(),
            "relevanceScore": activity.relevanceScore.map { $0 as Any } ?? NSNull(),
            "startedAt": InspectionAPI.timestamp(activity.startedAt),
            "endedAt": activity.endedAt.map { InspectionAPI.timestamp($0) as Any } ?? NSNull(),
            "dismissAt": activity.dismissAt.map { InspectionAPI.timestamp($0) as Any } ?? NSNull(),
            "channelId": activity.channelID ?? NSNull(),
            "implicit": activity.implicit,
            "pushes": activity.timeline.count,
        ]
    }

    /// A JSON value as Foundation objects (numbers keep integers exact; non-finite ones as text).
    static func any(_ value: JSONValue) -> Any {
        InspectionAPI.foundation(value)
    }
}
