import PushMockBytes

extension JSONTape {
    /// The value at `index` as a ``JSONValue``, built from the tape (no byte is scanned again).
    public func jsonValue(at index: Int) -> JSONValue {
        let value = entries[index].value
        switch value.kind {
        case .object:
            var members: [(key: String, value: JSONValue)] = []
            forEachMember(of: index) { key, member in
                members.append((string(key) ?? "", jsonValue(at: member)))
            }
            return .object(members)
        case .array:
            var elements: [JSONValue] = []
            forEachElement(of: index) { _, element in elements.append(jsonValue(at: element)) }
            return .array(elements)
        case .string: return .string(string(index) ?? "")
        case .number: return .number(text(index))
        case .bool: return .bool(bool(index) ?? false)
        case .null: return .null
        }
    }
}
