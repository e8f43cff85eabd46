import AttachKit

/// Every subcommand, in the order `attachkit --help` lists them.
nonisolated(unsafe) let commands: [any Command.Type] = [ProbeCommand.self, ValidateCommand.self, PrepareCommand.self, ThumbnailCommand.self, BatchCommand.self, ReportCommand.self, MergeCommand.self, ServeCommand.self, HTTPCommand.self, SignCommand.self, ProfileCommand.self, BudgetCommand.self, VersionCommand.self]
/// Commands other commands (or scripts/package.sh) start, not listed by `--help`.
nonisolated(unsafe) let internalCommands: [any Command.Type] = [WorkerCommand.self, ManPageCommand.self, CompletionCommand.self]

/// What `attachkit` does, in one sentence (`--help` and the manual page).
let toolDescription = "Prepares media for iOS notification attachments."

func printHelp() {
    var text = "usage: attachkit COMMAND [OPTIONS] ...\n       attachkit --version\n\n\(toolDescription)\n\ncommands:\n"
    let width = commands.map { $0.name.count }.max() ?? 0
    for command in commands {
        text += "  \(command.name)\(String(repeating: " ", count: width - command.name.count + 2))\(command.summary)\n"
    }
    text += "\nRun `attachkit help COMMAND` for a command's options."
    Output.line("\(rendered: text)")
}

func main() -> ExitCode {
    // Past a file-size limit (ulimit -f) a write fails with EFBIG, reported as write-failed with
    // nothing partial left, instead of SIGXFSZ killing the process mid-file (exit 153, a .tmp left).
    Signal.fileSizeExceeded.ignore()
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard let name = arguments.first, !["-h", "--help"].contains(name) else {
        printHelp()
        return arguments.isEmpty ? .usage : .success
    }
    if name == "--version" {
        Output.line("\(rendered: VersionCommand.versionLine)")
        return .success
    }
    if name == "help" {
        guard let topic = arguments.dropFirst().first, topic != "help" else {
            printHelp()
            return .success
        }
        guard arguments.count == 2 else {
            Output.error("attachkit help: one command to explain, not \(arguments.dropFirst().map(\.debugDescription).joined(separator: " "))")
            return .usage
        }
        guard let command = (commands + internalCommands).first(where: { $0.name == topic }) else {
            let near = UsageHint.nearest(topic, among: commands.map { $0.name }).map { " (did you mean \($0)?)" } ?? ""
            usageError("attachkit help: no command \(topic.debugDescription) to explain\(near)", hint: "Run 'attachkit --help' for the commands.")
            return .usage
        }
        Output.line("\(rendered: command.usage)")
        return .success
    }
    guard let command = (commands + internalCommands).first(where: { $0.name == name }) else {
        let near = UsageHint.nearest(name, among: commands.map { $0.name } + ["help", "--help", "--version"]).map { " (did you mean \($0)?)" } ?? ""
        usageError("attachkit: unknown command \(name.debugDescription)\(near)", hint: "Run 'attachkit --help' for the commands.")
        return .usage
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
        Output.line("\(rendered: command.usage)")
        return .success
    }
    do {
        let parsed = try Arguments(rest, options: command.options, flags: command.flags)
        return try command.init(parsed).run()
    } catch {
        reportUsageError(error, of: command)
        return .usage
    }
}

/// The one place a command's usage error is reported: the line that is wrong (with the nearest
/// option when one was misspelt, and the commands that take it), then where the usage is, not
/// the whole of it.
func reportUsageError(_ error: UsageError, of command: any Command.Type) {
    var line = error.description
    if let option = error.unknownOption { line = UsageHint.unknownOption(option, command: command, among: commands) }
    usageError("attachkit \(command.name): \(line)", hint: "Run 'attachkit help \(command.name)' for usage.")
}

/// A usage error on stderr: `line` (its values escaped), then `hint`, a line each.
func usageError(_ line: String, hint: String) {
    Output.error("\(line)\n\(rendered: hint)")
}

/// With `ATTACHKIT_PEAK_RSS=1`, the process reports its own peak resident set size (`VmHWM`) on
/// stderr when it ends: exact for this process alone, unlike `wait4` from a large parent (a
/// child's high-water mark starts at its parent's size when it was forked).
func reportPeakMemory() {
    guard SystemProcess.environment("ATTACHKIT_PEAK_RSS") != nil, let peak = SystemProcess.statusField("VmHWM") else { return }
    Output.error("attachkit: peak RSS \(peak)")
}

let status = main()
reportPeakMemory()
SystemProcess.exit(status.rawValue)
