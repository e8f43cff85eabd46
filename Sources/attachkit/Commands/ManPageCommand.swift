import AttachKit

/// `attachkit man-page`: the manual page attachkit(1) in roff, made from the help the CLI prints
/// (``toolDescription``, each command's summary and usage), so the page cannot drift from
/// `attachkit help COMMAND`. scripts/package.sh installs it; `attachkit man-page | man -l -` reads it.
struct ManPageCommand: Command {
    static let name = "man-page"
    static let summary = "print the manual page attachkit(1) in roff"
    static let usage = """
        usage: attachkit man-page

        Prints the manual page attachkit(1) (roff, man(7)) made from every command's help.
        """
    static let options: Set<String> = []
    static let flags: Set<String> = []

    init(_ arguments: Arguments) throws(UsageError) {
        guard arguments.positional.isEmpty else { throw UsageError("man-page takes no arguments") }
    }

    func run() -> ExitCode {
        Output.line("\(rendered: (Self.header + commands.flatMap(Self.section) + Self.footer).joined(separator: "\n"))")
        return .success
    }

    private static var header: [String] {
        let name = toolDescription.prefix(1).lowercased() + toolDescription.dropFirst().dropLast()
        return [
            ".TH ATTACHKIT 1 \"\" \"attachkit \(BuildInfo.version)\" \"User Commands\"",
            ".SH NAME", "attachkit \\- \(Roff.escaped(name))",
            ".SH SYNOPSIS", ".B attachkit", ".I COMMAND", ".RI [ OPTIONS ]", ".I ...", ".br",
            ".B attachkit help", ".I COMMAND", ".br", ".B attachkit \\-\\-version",
            ".SH DESCRIPTION", Roff.escaped(toolDescription),
            "Each command is described below as \\fBattachkit help\\fR \\fICOMMAND\\fR prints it.",
            ".SH COMMANDS",
        ]
    }

    private static func section(_ command: any Command.Type) -> [String] {
        [".SS \(command.name)", Roff.escaped(command.summary) + ".", ".PP", ".nf", Roff.escaped(command.usage), ".fi"]
    }

    private static let footer = [
        ".SH FILES",
        ".TP", "/etc/default/attachkit-http",
        "settings of the attachkit-http systemd unit (attachkit http): its listen address and options.",
        ".TP", "/lib/systemd/system/attachkit-http.service",
        "the unit; not enabled by the package.",
        ".SH SEE ALSO",
        "The reference, the docs/ folder of the AttachKit repository, installed in /usr/share/doc/attachkit:",
        "cli.md (every command and option), http.md, policy.md (the policy schema), safety.md, shipping.md.",
    ]
}
