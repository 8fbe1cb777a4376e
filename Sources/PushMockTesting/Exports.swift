// The modules whose types a test that imports PushMockTesting names, re-exported on purpose
// (docs/Public-API.md): the server and its configuration (PushMockServer), deliveries, faults and
// devices (PushMockCore), the delivery filter and store protocol (PushMockStore), and the
// inspection API's Codable types (PushMockInspection).
@_exported public import PushMockCore
@_exported public import PushMockInspection
@_exported public import PushMockServer
@_exported public import PushMockStore
