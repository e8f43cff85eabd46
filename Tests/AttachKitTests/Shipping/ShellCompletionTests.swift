import Foundation
import Testing
@testable import AttachKit

/// `attachkit completion bash`, sourced into bash and asked as bash asks it: command names, a
/// command's options, file names for the rest.
@Suite("Shell completion")
struct ShellCompletionTests {
    /// What the script completes for the words typed so far (the last one being completed).
    static func complete(_ words: [String], in folder: URL) throws -> [String] {
        let script = folder.appendingPathComponent("attachkit.bash")
        let generated = try TestEnvironment.runAttachKit(["completion", "bash"])
        try #require(generated.status == 0)
        try generated.stdout.write(to: script, atomically: true, encoding: .utf8)
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let shell = "cd \"$1\" && source \"$2\" && COMP_WORDS=(\(quoted)) && COMP_CWORD=\(words.count - 1) && { _attachkit; printf '%s\\n' \"${COMPREPLY[@]}\"; }"
        let result = try TestEnvironment.run("bash", ["-c", shell, "bash", folder.path, script.path])
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }.sorted()
    }

    @Test("commands, each command's own options, and file names")
    func completes() throws {
        let folder = TestEnvironment.temporaryFolder("completion")
        defer { try? FileManager.default.removeItem(at: folder) }
        FileManager.default.createFile(atPath: folder.appendingPathComponent("photo.heic").path, contents: Data())
        #expect(try Self.complete(["attachkit", "pr"], in: folder) == ["prepare", "probe", "profile"])
        #expect(try Self.complete(["attachkit", "--v"], in: folder) == ["--version"])
        #expect(try Self.complete(["attachkit", "batch", "--sh"], in: folder) == ["--shard"])
        #expect(try Self.complete(["attachkit", "http", "--worker-m"], in: folder) == ["--worker-memory"])
        #expect(try Self.complete(["attachkit", "probe", "--sh"], in: folder).isEmpty, "probe has no --shard")
        #expect(try Self.complete(["attachkit", "help", "ba"], in: folder) == ["batch"])
        #expect(try Self.complete(["attachkit", "prepare", "ph"], in: folder) == ["photo.heic"])
    }
}
