import ArgumentParser
import Foundation

/// `pushmock`: a local, strict stand-in for APNs and FCM.
@main
struct PushMockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushmock",
        abstract: "A local, strict stand-in for Apple's APNs and Firebase Cloud Messaging.",
        version: PushMockVersion.current,
        subcommands: [
            ServeCommand.self, SendCommand.self, RejectionsCommand.self, ExportCommand.self, ImportCommand.self, CertsCommand.self, TokenCommand.self,
            TrustCommand.self, HealthcheckCommand.self, ActivityTypesCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )

    /// Parses the command line with `serve`'s `PUSHMOCK_*` environment variables put in.
    static func main() async {
        let arguments: [String]
        do {
            arguments = try EnvironmentOptions.commandLine(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        } catch {
            exit(withError: error)
        }
        await main(arguments)
    }
}

/// The version `pushmock --version` prints; `scripts/package` names the archive after it.
enum PushMockVersion {
    static let current = "0.4.0"
}
