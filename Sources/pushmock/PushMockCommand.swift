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
            ServeCommand.self, SendCommand.self, RejectionsCommand.self, ParityCommand.self, MCPCommand.self, ExportCommand.self, ImportCommand.self,
            CertsCommand.self, TokenCommand.self,
            TrustCommand.self, HealthcheckCommand.self, ActivityTypesCommand.self, ExecCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )

    /// Parses the command line with `serve`'s `PUSHMOCK_*` environment variables put in.
    static func main() async {
        // Swift on Linux reads the command line from /proc/self/cmdline: with /proc not mounted
        // (a chroot, some sandboxes) it reads none, not even the program's name, and the default
        // command would start a server whatever was asked.
        guard !CommandLine.arguments.isEmpty else {
            FileHandle.standardError.write(
                Data("pushmock: cannot read its command line (Swift reads it from /proc/self/cmdline: is /proc mounted?); nothing was run\n".utf8))
            Foundation.exit(2)
        }
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
