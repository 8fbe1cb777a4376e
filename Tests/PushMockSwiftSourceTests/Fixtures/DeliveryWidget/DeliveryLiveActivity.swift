import ActivityKit
import SwiftUI
import WidgetKit

struct DeliveryLiveActivity: Widget {
    var body: some WidgetConfiguration {
        ActivityConfiguration(for: DeliveryAttributes.self) { context in
            VStack {
                Text(context.attributes.orderID)
                Text(context.state.stage.rawValue)
            }
        } dynamicIsland: { context in
            DynamicIsland {
                DynamicIslandExpandedRegion(.leading) { Text("ETA") }
            } compactLeading: {
                Text("🚚")
            } compactTrailing: {
                Text(context.state.eta, style: .timer)
            } minimal: {
                Text("🚚")
            }
        }
    }
}

struct StageView: View {
    let stage: Stage
    @State private var pulse = false
    var body: some View { Text(stage.rawValue) }
}
