public import PushMockStore

extension DeliveryFilter {
    /// The inspection API's query items for this filter (`service=apns&token=…`): the same
    /// deliveries over HTTP as ``DeliveryStore/query(_:limit:)`` gives in process.
    public var queryItems: [(name: String, value: String)] { DeliveryQuery.items(self) }

    /// The filter the inspection API reads from `items`; throws the API's 400 message for a bad
    /// one.
    public init(queryItems items: [(name: String, value: String)]) throws(InspectionError) {
        self = try DeliveryQuery.filter(items)
    }
}
