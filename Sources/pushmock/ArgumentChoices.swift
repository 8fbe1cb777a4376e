public import ArgumentParser
public import Logging
public import PushMockCore
public import PushMockServer

// The choices of `serve`'s enumerated options: parsed, refused with the list of values, and listed
// in `--help` by ArgumentParser.
extension PushMockConfiguration.Mode: ExpressibleByArgument {}
extension APNSEnvironment: ExpressibleByArgument {}
extension LiveActivityProfile: ExpressibleByArgument {}
extension RelayConfiguration.Mode: ExpressibleByArgument {}
extension InstanceIDMode: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
