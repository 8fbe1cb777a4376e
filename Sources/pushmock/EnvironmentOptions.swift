import ArgumentParser
import Foundation

/// Every `pushmock serve` option can come from the environment, the container convention:
/// `PUSHMOCK_<OPTION>` with the long name in capitals and `_` for `-` (`--port` → `PUSHMOCK_PORT`,
/// `--inspection-host` → `PUSHMOCK_INSPECTION_HOST`). A flag is on for `1`, `true` or `yes`;
/// a repeatable option takes several values separated by `;`. Flags on the command line win: the
/// environment's arguments go first, and a later value of an option replaces an earlier one.
///
/// The names are read from `serve`'s own argument definitions, so a new option gets its variable
/// without anyone listing it.
enum EnvironmentOptions {
    struct Option: Equatable {
        var name: String
        var isFlag: Bool
        var isRepeating: Bool
        var variable: String { EnvironmentOptions.variable(for: name) }
    }

    /// `--max-body-size` → `PUSHMOCK_MAX_BODY_SIZE`.
    static func variable(for name: String) -> String {
        "PUSHMOCK_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The options and flags of `serve`, from its argument definitions (help and version aside).
    static let serveOptions: [Option] = {
        guard let data = ServeCommand._dumpHelp().data(using: .utf8),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let command = root["command"] as? [String: Any],
            let arguments = command["arguments"] as? [[String: Any]]
        else { return [] }
        return arguments.compactMap { argument in
            guard let kind = argument["kind"] as? String, kind == "option" || kind == "flag",
                let names = argument["names"] as? [[String: Any]],
                let long = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String,
                !["help", "version"].contains(long)
            else { return nil }
            return Option(name: long, isFlag: kind == "flag", isRepeating: argument["isRepeating"] as? Bool ?? false)
        }
    }()

    /// The arguments the environment gives `serve`.
    static func arguments(from environment: [String: String]) throws -> [String] {
        var arguments: [String] = []
        for option in serveOptions {
            guard let value = environment[option.variable] else { continue }
            if option.isFlag {
                switch value.lowercased() {
                case "1", "true", "yes", "on": arguments.append("--\(option.name)")
                case "", "0", "false", "no", "off": break
                default: throw ValidationError("\(option.variable)=\(value): a flag takes 1, true, yes, 0, false or no")
                }
            } else if option.isRepeating {
                for part in value.split(separator: ";") where !part.isEmpty {
                    arguments += ["--\(option.name)", String(part)]
                }
            } else {
                arguments += ["--\(option.name)", value]
            }
        }
        return arguments
    }

    /// The command line with the environment's `serve` arguments put in: after `serve` (or `exec`,
    /// which starts a server with the same options), or first when
    /// `serve` is the default subcommand (options only). Other subcommands are left alone.
    static func commandLine(_ arguments: [String], environment: [String: String]) throws -> [String] {
        let subcommands = PushMockCommand.configuration.subcommands.map { $0.configuration.commandName ?? "" }
        if let first = arguments.first, first == "serve" || first == "exec" {
            return [first] + (try Self.arguments(from: environment)) + arguments.dropFirst()
        }
        if let first = arguments.first, subcommands.contains(first) || ["help", "-h", "--help", "--version"].contains(first) {
            return arguments
        }
        return (try Self.arguments(from: environment)) + arguments
    }
}
