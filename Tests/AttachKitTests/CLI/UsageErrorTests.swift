import Foundation
import Testing
@testable import AttachKit

/// Usage errors of the built `attachkit`: the one line that is wrong and where the usage is, not
/// the whole help; the nearest option or command when one was misspelt; exit 64.
@Suite("usage errors")
struct UsageErrorTests {
    /// Runs `attachkit ARGUMENTS`, expecting a usage error: exit 64, nothing on stdout, exactly two
    /// lines on stderr. Returns them.
    static func usageError(_ arguments: [String]) throws -> (line: String, hint: String) {
        let result = try TestEnvironment.runAttachKit(arguments)
        #expect(result.status == 64, "\(arguments): exit \(result.status)")
        #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(arguments): \(result.stderr)")
        #expect(!result.stderr.contains("usage: attachkit"), "\(arguments) printed the usage: \(result.stderr)")
        return (lines.first ?? "", lines.dropFirst().first ?? "")
    }

    @Test("an unknown option: one line naming it and the nearest option of the verb, then where the usage is", arguments: [
        (["prepare", "--max-byte", "5MB", "x.jpg"], "attachkit prepare: unknown option --max-byte (did you mean --max-bytes?)"),
        (["prepare", "--max-byte=5MB", "x.jpg"], "attachkit prepare: unknown option --max-byte (did you mean --max-bytes?)"),
        (["prepare", "--MAX-BYTES", "5MB", "x.jpg"], "attachkit prepare: unknown option --MAX-BYTES (did you mean --max-bytes?)"),
        (["prepare", "-max-bytes", "5MB", "x.jpg"], "attachkit prepare: unknown option -max-bytes (did you mean --max-bytes?)"),
        (["validate", "--jsno", "x.jpg"], "attachkit validate: unknown option --jsno (did you mean --json?)"),
        (["probe", "--jason", "x.jpg"], "attachkit probe: unknown option --jason (did you mean --json?)"),
        (["thumbnail", "x.jpg", "--out", "t.jpg", "--sise", "64"], "attachkit thumbnail: unknown option --sise (did you mean --size?)"),
        (["batch", "in", "--out", "o", "--retry-faild"], "attachkit batch: unknown option --retry-faild (did you mean --retry-failed?)"),
        (["serve", "--allow", "/tmp", "--worker-memroy", "1GB"], "attachkit serve: unknown option --worker-memroy (did you mean --worker-memory?)"),
        (["http", "--listen", "127.0.0.1:0", "--max-bdy", "1MB"], "attachkit http: unknown option --max-bdy (did you mean --max-body?)"),
        (["budget", "--deadlin", "3"], "attachkit budget: unknown option --deadlin (did you mean --deadline?)"),
        (["report", "o", "--reprot", "r.html"], "attachkit report: unknown option --reprot (did you mean --report?)"),
        (["version", "--jsn"], "attachkit version: unknown option --jsn (did you mean --json?)"),
        (["profile", "--jsn"], "attachkit profile: unknown option --jsn"),
    ])
    func unknownOption(arguments: [String], expected: String) throws {
        let (line, hint) = try Self.usageError(arguments)
        #expect(line == expected)
        #expect(hint == "Run 'attachkit help \(arguments[0])' for usage.")
    }

    @Test("an option of another verb says whose it is", arguments: [
        (["prepare", "--thumbnails", "x.jpg"], "attachkit prepare: unknown option --thumbnails (did you mean --thumbnail? --thumbnails is an option of batch)"),
        (["batch", "in", "--out", "o", "--thumbnail"], "attachkit batch: unknown option --thumbnail (did you mean --thumbnails? --thumbnail is an option of prepare and sign)"),
        (["prepare", "--jobs", "2", "x.jpg"], "attachkit prepare: unknown option --jobs (--jobs is an option of batch, http and serve)"),
        (["validate", "--max-bytes", "5MB", "x.jpg"], "attachkit validate: unknown option --max-bytes (--max-bytes is an option of batch, prepare and sign)"),
    ])
    func otherVerb(arguments: [String], expected: String) throws {
        #expect(try Self.usageError(arguments).line == expected)
    }

    @Test("nothing is suggested when nothing is close")
    func noSuggestion() throws {
        #expect(try Self.usageError(["prepare", "--zebra", "x.jpg"]).line == "attachkit prepare: unknown option --zebra")
        #expect(try Self.usageError(["prepare", "-x", "x.jpg"]).line == "attachkit prepare: unknown option -x")
        #expect(try Self.usageError(["frobnicate"]).line == "attachkit: unknown command \"frobnicate\"")
    }

    @Test("a bad value names the flag, the value and the accepted form or range", arguments: [
        (["prepare", "--max-edge", "abc", "x.jpg"], "attachkit prepare: --max-edge must be a number of pixels in 16...65535, not \"abc\""),
        (["prepare", "--trim", "slow", "x.jpg"], "attachkit prepare: --trim must be \"fast\" or \"exact\", not \"slow\""),
        (["prepare", "--max-duration", "-1", "x.jpg"], "attachkit prepare: --max-duration must be a number of seconds in 0.1...14400, not \"-1\""),
        (["batch", TestEnvironment.fixture("images"), "--out", "/tmp/x", "--jobs", "0"], "attachkit batch: --jobs must be an integer in 1...256, not \"0\""),
        (["prepare", "--max-bytes", "5Mb", "x.jpg"], "attachkit prepare: --max-bytes must be a byte count in 1000...2000000000000 (a number of bytes, or a number and a unit B, KB, MB, GB or TB: powers of 1000, such as 5000000, 500KB, 1.5MB), not \"5Mb\" (Mb means megabits; write 5MB for megabytes)"),
        (["prepare", "--json=yes", "x.jpg"], "attachkit prepare: --json takes no value"),
        (["prepare", "x.jpg", "--max-edge"], "attachkit prepare: --max-edge needs a value"),
    ])
    func badValue(arguments: [String], expected: String) throws {
        #expect(try Self.usageError(arguments).line == expected)
    }

    @Test("an unknown command suggests the nearest; help of an unknown command too", arguments: [
        (["prepar", "x.jpg"], "attachkit: unknown command \"prepar\" (did you mean prepare?)"),
        (["vaildate", "x.jpg"], "attachkit: unknown command \"vaildate\" (did you mean validate?)"),
        (["--verison"], "attachkit: unknown command \"--verison\" (did you mean --version?)"),
        (["hepl"], "attachkit: unknown command \"hepl\" (did you mean help?)"),
        (["help", "bacth"], "attachkit help: no command \"bacth\" to explain (did you mean batch?)"),
    ])
    func unknownCommand(arguments: [String], expected: String) throws {
        let (line, hint) = try Self.usageError(arguments)
        #expect(line == expected)
        #expect(hint == "Run 'attachkit --help' for the commands.")
    }

    @Test("a name holding control characters is escaped in the one line")
    func escaped() throws {
        let (line, _) = try Self.usageError(["prepare", "--max\u{1B}[2J", "x.jpg"])
        #expect(!line.contains("\u{1B}"), "\(line.debugDescription)")
        #expect(line.contains("--max\\u{1B}[2J"), "\(line)")
    }

    @Test("help, --help and -h still print the whole usage on stdout, exit 0", arguments: [
        ["help", "prepare"], ["prepare", "--help"], ["prepare", "-h"], ["batch", "--help"], ["--help"], ["help"],
    ])
    func help(arguments: [String]) throws {
        let result = try TestEnvironment.runAttachKit(arguments)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(arguments): \(result.stderr)")
        #expect(result.stdout.contains("usage: attachkit"), "\(arguments): \(result.stdout.prefix(200))")
    }

    @Test("valid invocations are unchanged")
    func valid() throws {
        let out = TestEnvironment.temporaryFolder("usagevalid").path
        let input = TestEnvironment.fixture("images/gif_static_320x240.gif")
        let prepared = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out, "--max-bytes=500KB", "--max-edge", "256", input])
        #expect(prepared.status == 0, "\(prepared.stderr)")
        #expect(TestEnvironment.errorCode(prepared.stdout) == nil && prepared.stdout.contains("\"ok\":true"), "\(prepared.stdout)")
        let probed = try TestEnvironment.runAttachKit(["probe", "--json", input])
        #expect(probed.status == 0 && probed.stderr.isEmpty)
        let version = try TestEnvironment.runAttachKit(["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("attachkit "))
    }

    @Test("the distance: transpositions count once; the threshold is a third of the word")
    func distance() throws {
        // The CLI's UsageHint lives in the executable; its rules are exercised through it above.
        // Here: a transposition is one edit (--jsno → --json), two edits are too many for a
        // four-letter word (--jbos is not --json... but is --jobs for batch).
        #expect(try Self.usageError(["batch", "in", "--out", "o", "--jbos", "2"]).line == "attachkit batch: unknown option --jbos (did you mean --jobs?)")
        #expect(try Self.usageError(["validate", "--xyzw", "x.jpg"]).line == "attachkit validate: unknown option --xyzw")
    }
}
