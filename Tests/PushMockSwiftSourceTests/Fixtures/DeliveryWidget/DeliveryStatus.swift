import Foundation

public struct DeliveryStatus: Codable, Hashable {
    public var stage: Stage
    public var eta: Date
    var etaMinutes: Int = 0
    var driver: Driver?
    var stops: [Stop]

    enum CodingKeys: String, CodingKey {
        case stage, eta, driver, stops
        case etaMinutes = "eta_minutes"
    }

    var isLate: Bool {
        eta < Date()
    }
}
