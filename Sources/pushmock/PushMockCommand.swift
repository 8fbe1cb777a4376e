import ArgumentParser

/// `pushmock`: a local, strict stand-in for APNs and FCM.
@main
struct PushMockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushmock",
        abstract: "A local, strict stand-in for Apple's APNs and Firebase Cloud Messaging.",
        subcommands: [ServeCommand.self, SendCommand.self, RejectionsCommand.self, ExportCommand.self, ImportCommand.self, CertsCommand.self, TokenCommand.self, TrustCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
