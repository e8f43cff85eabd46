import AttachKit

/// `attachkit profile [NAME|PATH.json]`: prints a profile as a JSON policy.
struct ProfileCommand: Command {
    static let name = "profile"
    static let summary = "print a profile (apple, ios or a JSON policy) with every limit resolved"
    static let usage = """
        usage: attachkit profile [NAME|PATH.json]

        Prints the profile as a JSON policy, every inherited limit resolved. Without an argument,
        prints the default profile (ios). Start a custom policy from this output.
        """
    static let options: Set<String> = []
    static let flags: Set<String> = []

    let profile: Profile

    init(_ arguments: Arguments) throws(UsageError) {
        guard arguments.positional.count <= 1 else { throw UsageError("give at most one profile") }
        do {
            profile = try Profile.load(arguments.positional.first ?? Profile.standard.name)
        } catch {
            throw UsageError(error.description)
        }
    }

    func run() -> ExitCode {
        Output.json(profile.json.serialized)
        return .success
    }
}
