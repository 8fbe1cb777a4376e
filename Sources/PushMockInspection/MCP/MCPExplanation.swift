import Foundation
import PushMockCore

/// Deliveries and Live Activities in words, for an agent: why a push was answered as it was, what
/// to change, and where Apple or Google document the rule.
enum MCPExplanation {
    /// One delivery in a line: `#42 apns 400 BadDeviceToken (rejected) POST /3/device/… at 2026-…`.
    static func line(_ delivery: DeliveryResource) -> String {
        var text = "#\(delivery.id) \(delivery.service) \(delivery.status) \(delivery.reason ?? "-") (\(delivery.outcome.rawValue)"
        if delivery.deviceOutcome == "dropped" { text += ", dropped by the device: \(delivery.dropReason ?? "?")" }
        return text + ") \(delivery.method) \(delivery.path) at \(delivery.receivedAt.text)"
    }

    /// `value` as indented JSON.
    static func pretty(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }

    /// Why `delivery` was answered as it was, with the catalogue's entry for its reason; of a
    /// `checked` request (not recorded, id 0), what the answer would be.
    static func explain(_ delivery: DeliveryResource, catalogue: [RejectionEntry], checked: Bool = false) -> (text: String, json: JSONValue) {
        let service = delivery.service == "fcm" ? "fcm" : "apns"
        let reason = delivery.outcome == .dropped ? (delivery.dropReason ?? delivery.reason) : delivery.reason
        let entry = reason.flatMap { reason in
            catalogue.first { $0.reason == reason && ($0.service == "fcm" ? "fcm" : "apns") == service }
        }
        var lines: [String] = []
        var verdict: String
        let subject =
            checked
            ? "The checked request (\(delivery.service), \(delivery.method) \(delivery.path))"
            : "Delivery #\(delivery.id) (\(delivery.service), \(delivery.method) \(delivery.path))"
        let was = checked ? "would be" : "was"
        switch delivery.outcome {
        case .accepted:
            verdict = "accepted"
            lines.append(
                "\(subject) \(was) accepted: \(delivery.status), as \(service == "fcm" ? "Google" : "Apple") would answer."
            )
            if delivery.deviceOutcome == "dropped" {
                verdict = "dropped"
                lines.append("But the device would drop it: \(delivery.dropReason ?? "no reason recorded").")
            }
        case .dropped:
            verdict = "dropped"
            lines.append(
                "\(subject) \(was) accepted by the service (\(delivery.status)) but a device would drop it: \(reason ?? "no reason recorded")."
            )
        case .rejected:
            verdict = "rejected"
            lines.append(
                "\(subject) \(was) rejected: \(delivery.status) \(reason ?? "")."
            )
        }
        if let explanation = delivery.explanation { lines.append("Why: \(explanation)") }
        if let fault = delivery.fault { lines.append("This answer came from the fault \"\(fault)\" (set_fault / list_faults), not from a rule.") }
        if let entry {
            lines.append("The rule: \(entry.trigger).")
            if let path = entry.path { lines.append("The field: \(path.hasPrefix("header:") ? "the header " + path.dropFirst(7) : path).") }
            lines.append(
                "What to change: send a request that does not match the rule above\(entry.path.map { ", starting with \($0.hasPrefix("header:") ? "that header" : "that field")" } ?? "")."
            )
            lines.append("Documentation: \(entry.reference)")
        }
        if !delivery.diagnostics.isEmpty {
            lines.append("Diagnostics (worth a look even on an accepted push):")
            lines += delivery.diagnostics.map { "- \($0)" }
        }
        if delivery.outcome == .accepted, delivery.diagnostics.isEmpty, delivery.deviceOutcome != "dropped" {
            lines.append("Nothing to change: no rule refused it and no diagnostic was raised.")
        }
        if let relay = delivery.relay, let status = relay.status {
            lines.append(
                "The relay's upstream (\(relay.upstream)) answered \(status) \(relay.reason ?? ""): it \(relay.agrees == true ? "agrees" : "does not agree") with PushMock."
            )
        }
        var json: [(key: String, value: JSONValue)] = [
            ("id", checked ? .null : .number(String(delivery.id))), ("service", .string(delivery.service)), ("verdict", .string(verdict)),
            ("status", .number(String(delivery.status))), ("reason", reason.map(JSONValue.string) ?? .null),
            ("explanation", delivery.explanation.map(JSONValue.string) ?? .null),
            ("diagnostics", .array(delivery.diagnostics.map(JSONValue.string))),
        ]
        if let entry {
            json += [
                ("rule", .string(entry.trigger)), ("field", entry.path.map(JSONValue.string) ?? .null), ("documentation", .string(entry.reference)),
            ]
        }
        return (lines.joined(separator: "\n"), .object(json))
    }

    /// A Live Activity: its state, what is shown, its timeline, and why the last update that did
    /// not change what is shown did not.
    static func timeline(_ activity: ActivityResource) -> String {
        var lines = ["Live Activity \(activity.id) (\(activity.attributesType ?? "type unknown")): \(activity.state), \(activity.pushes) pushes."]
        if let shown = activity.contentState { lines.append("The lock screen shows: \(compact(shown))") }
        if let pending = activity.pendingRender {
            lines.append("Waiting to be shown at \(pending.rendersAt.text): \(pending.contentState.map(compact) ?? "?")")
        }
        let timeline = activity.timeline ?? []
        if !timeline.isEmpty { lines.append("Timeline, oldest first:") }
        for entry in timeline {
            var line = "- \(entry.receivedAt.text) \(entry.event) (\(entry.service), priority \(entry.priority)): \(entry.deviceOutcome)"
            if let reason = entry.reason { line += ", \(reason)" }
            if let id = entry.deliveryId { line += " [delivery #\(id)]" }
            lines.append(line)
        }
        if let last = timeline.last(where: { $0.event == "update" && $0.deviceOutcome != "applied" }) {
            lines.append(
                "The last update that did not change what is shown: \(last.deviceOutcome)\(last.reason.map { " because of \($0)" } ?? "")\(last.explanation.map { ": \($0)" } ?? ""). explain_delivery\(last.deliveryId.map { " with id \($0)" } ?? "") gives the rule and what to change."
            )
        }
        return lines.joined(separator: "\n")
    }

    static func compact(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }
}
