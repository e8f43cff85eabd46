import Foundation
import Testing
@testable import AttachKit

/// Landlock confinement cannot be undone, so it is tried in a child process: this test binary run
/// again with `--filter sandboxChildBody` and `ATTACHKIT_SANDBOX_CHILD=FOLDER` in its environment.
/// The child confines itself to FOLDER/in (read) and FOLDER/out (read-write), tries what a worker
/// does and what it must not, and writes one `key=value` line per attempt to FOLDER/out/results.
@Suite("Sandbox: Landlock confinement")
struct SandboxTests {
    static let childVariable = "ATTACHKIT_SANDBOX_CHILD"

    @Test("rights the running ABI does not know are left out")
    func rightsFollowTheABI() {
        let one = LandlockRights(abi: 1), three = LandlockRights(abi: 3), five = LandlockRights(abi: 5)
        #expect(one.handledFileSystem == (1 << 13) - 1)
        #expect(three.handledFileSystem == (1 << 15) - 1)
        #expect(five.handledFileSystem == (1 << 16) - 1)
        #expect(one.handledNetwork == 0 && three.handledNetwork == 0 && five.handledNetwork == 3)
        // A rule may not grant what the ruleset does not handle: confine() masks with it.
        #expect(one.readWrite & ~one.handledFileSystem != 0)
        #expect(SandboxStatus.landlock(abi: 7).name == "landlock" && SandboxStatus.none(reason: "x").name == "none")
    }

    @Test("private temporary folders of processes that are gone are removed, others kept")
    func stalePrivateFolders() throws {
        // Given: a gone process's folder (a pid over pid_max) with a file in it; this process's,
        // pid 1's, and names that only look alike
        let base = TestEnvironment.temporaryFolder("private")
        let gone = try base.appendingPathComponent("attachkit-2147483646-Ab12Cd", isDirectory: true).creatingFolder()
        try Data([1]).write(to: gone.appendingPathComponent("vips-0-XXXX.v"))
        let kept = ["attachkit-\(getpid())-Ab12Cd", "attachkit-1-Ab12Cd", "attachkit-2147483646-Ab12C", "attachkit-x-Ab12Cd"]
        for name in kept { _ = try base.appendingPathComponent(name, isDirectory: true).creatingFolder() }

        // When
        PrivateTemporary.removeStale(in: base.path)

        // Then
        #expect(try FileManager.default.contentsOfDirectory(atPath: base.path).sorted() == kept.sorted())
    }

    @Test("a confined process reads its inputs and the system, writes its outputs, and nothing else")
    func confinedChild() throws {
        // Given: in/ (a JPEG, a WebM), out/, and outside/secret.txt beside them
        let base = TestEnvironment.temporaryFolder("sandbox")
        let input = try base.appendingPathComponent("in", isDirectory: true).creatingFolder()
        _ = try base.appendingPathComponent("out", isDirectory: true).creatingFolder()
        let outside = try base.appendingPathComponent("outside", isDirectory: true).creatingFolder()
        try FileManager.default.copyItem(at: TestEnvironment.testMedia.appendingPathComponent("images/jpeg_large_4032x3024.jpg"),
                                         to: input.appendingPathComponent("photo.jpg"))
        try FileManager.default.copyItem(at: TestEnvironment.testMedia.appendingPathComponent("video/webm_vp9_opus_320x240_2s.webm"),
                                         to: input.appendingPathComponent("clip.webm"))
        try Data("secret".utf8).write(to: outside.appendingPathComponent("secret.txt"))

        // When
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        child.arguments = ["--testing-library", "swift-testing", "--filter", "sandboxChildBody"]
        child.environment = ProcessInfo.processInfo.environment.merging([Self.childVariable: base.path]) { $1 }
        let log = Pipe()
        child.standardOutput = log
        child.standardError = log
        try child.run()
        let output = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()

        // Then
        let text = try String(contentsOf: base.appendingPathComponent("out/results"), encoding: .utf8)
        var results: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { results[parts[0]] = parts[1] }
        }
        guard let abi = Sandbox.availableABI else {
            #expect(results["status"]?.hasPrefix("none") == true, "\(output)")
            return
        }
        #expect(results["status"] == "landlock(abi: \(abi))", "\(output)")
        for key in ["readInput", "writeOutput", "reopenInput", "temporaryFolder", "probe", "prepareImage", "prepareVideo"] {
            #expect(results[key] == "ok", "\(key): \(results[key] ?? "missing")\n\(output)")
        }
        for key in ["readOutside", "writeInput", "writeOutside", "reopenOutside", "listOutside"] {
            #expect(results[key] == "EACCES", "\(key): \(results[key] ?? "missing")")
        }
        if abi >= 4 { #expect(results["connect"] == "EACCES") }
        #expect(child.terminationStatus == 0, "\(output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["secret.txt"])
    }

    /// The child's side (skipped in a normal run).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[SandboxTests.childVariable] != nil))
    func sandboxChildBody() throws {
        let base = try #require(ProcessInfo.processInfo.environment[Self.childVariable])
        let input = base + "/in", output = base + "/out", outside = base + "/outside"
        var results: [(String, String)] = []
        // Descriptors opened before confinement, reopened after through /proc/self/fd.
        let before = (input: open(input + "/photo.jpg", Descriptors.pathOnly.rawValue), outside: open(outside + "/secret.txt", Descriptors.pathOnly.rawValue))
        let temporaryBefore = ProcessInfo.processInfo.environment["TMPDIR"]

        let status = Sandbox.confine(readOnly: [input], readWrite: [output])
        results.append(("status", "\(status)"))
        results.append(("readInput", Self.attempt(open(input + "/photo.jpg", O_RDONLY))))
        results.append(("readOutside", Self.attempt(open(outside + "/secret.txt", O_RDONLY))))
        results.append(("listOutside", Self.attempt(open(outside, O_RDONLY | O_DIRECTORY))))
        results.append(("writeOutput", Self.attempt(open(output + "/new.txt", O_CREAT | O_WRONLY, 0o644))))
        results.append(("writeInput", Self.attempt(open(input + "/new.txt", O_CREAT | O_WRONLY, 0o644))))
        results.append(("writeOutside", Self.attempt(open(outside + "/new.txt", O_CREAT | O_WRONLY, 0o644))))
        results.append(("reopenInput", Self.attempt(open(Descriptors.path(of: before.input), O_RDONLY))))
        results.append(("reopenOutside", Self.attempt(open(Descriptors.path(of: before.outside), O_RDONLY))))
        results.append(("connect", Self.connectLocal()))
        let temporary = String(cString: getenv("TMPDIR"))
        results.append(("temporaryFolder", temporary != temporaryBefore
                        ? Self.attempt(open(temporary + "/probe", O_CREAT | O_WRONLY | O_EXCL, 0o600), unlinking: temporary + "/probe")
                        : "TMPDIR unchanged"))
        results += Self.work(input: input, output: output)
        let text = results.map { "\($0.0)=\($0.1)" }.joined(separator: "\n") + "\n"
        try text.write(toFile: output + "/results", atomically: false, encoding: .utf8)
    }

    /// What a worker does, confined: probe through the ledger, prepare an image (re-encoded, with
    /// a thumbnail) and a video (transcoded).
    static func work(input: String, output: String) -> [(String, String)] {
        var results: [(String, String)] = []
        do {
            let ledger = try AccessLedger(scopes: [AccessScope.folder(input), AccessScope.folder(output)])
            let photo = try ledger.acquire(input + "/photo.jpg")
            let info = try Prober().probe(photo)
            results.append(("probe", info.width == 4032 ? "ok" : "width \(info.width ?? 0)"))
            var options = PrepareOptions(outputFolder: output, maxBytes: 100_000)
            options.thumbnail = true
            let image = Preparer(options: options).prepare(photo, ledger: ledger)
            photo.release()
            results.append(("prepareImage", image.ok && image.thumbnail != nil ? "ok" : "\(image.error?.message ?? "no thumbnail")"))
            let clip = try ledger.acquire(input + "/clip.webm")
            let video = Preparer(options: PrepareOptions(outputFolder: output)).prepare(clip, ledger: ledger)
            clip.release()
            results.append(("prepareVideo", video.ok ? "ok" : "\(video.error?.message ?? "")"))
        } catch {
            results.append(("probe", "\(error)"))
        }
        return results
    }

    /// "ok" (closing the descriptor) or the errno's name.
    static func attempt(_ descriptor: Int32, unlinking path: String? = nil) -> String {
        guard descriptor >= 0 else { return name(of: errno) }
        close(descriptor)
        if let path { unlink(path) }
        return "ok"
    }

    /// A TCP connection to 127.0.0.1:9 (discard): refused by Landlock (EACCES) or by the port.
    static func connectLocal() -> String {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return name(of: errno) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(9).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result == 0 ? "ok" : name(of: errno)
    }

    static func name(of code: Int32) -> String {
        switch code {
        case EACCES: return "EACCES"
        case EPERM: return "EPERM"
        case ENOENT: return "ENOENT"
        case ECONNREFUSED: return "ECONNREFUSED"
        default: return String(cString: strerror(code))
        }
    }
}
