import Foundation
import Testing
@testable import AttachKit

/// The one planner of every path a run writes (``WritePlan``): names compared as any file system
/// might compare them, files compared by identity, collisions renamed stably or refused.
@Suite("Write plan: every path a run writes, checked before anything is written")
struct WritePlanTests {
    static let precomposed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test("names that differ only in Unicode normalization are one name; byte order decides, on every run")
    func normalizationTwins() throws {
        // Given two inputs whose names are different files on ext4 but one on macOS or SMB
        let paths = [Self.precomposed + ".png", Self.decomposed + ".gif"]
        #expect(Set(paths.map(ExactPath.init)).count == 2)
        #expect(CaselessName.key(paths[0].replacing(".png", with: "")) == CaselessName.key(paths[1].replacing(".gif", with: "")))

        // When laid out in either order
        let forward = try OutputLayout(relativePaths: paths, inputRoot: "/nonexistent-in", outputRoot: "/nonexistent-out")
        let backward = try OutputLayout(relativePaths: paths.reversed(), inputRoot: "/nonexistent-in", outputRoot: "/nonexistent-out")

        // Then they get two stems that stay apart under folding, the same both times
        let stems = paths.map { forward.assignments[ExactPath($0)]!.stem }
        #expect(Set(stems.map(CaselessName.key)).count == 2, "\(stems)")
        #expect(paths.map { backward.assignments[ExactPath($0)]!.stem } == stems)
        // The decomposed name sorts first (0x65 'e' < 0xC3): it keeps the name, the other says why.
        #expect(ExactPath(stems[1]) == ExactPath(Self.decomposed))
        #expect(forward.assignments[ExactPath(paths[0])]!.reason?.contains("ignoring letter case and Unicode normalization") == true)
    }

    @Test("names that differ only in letter case are one name")
    func caseTwins() throws {
        let layout = try OutputLayout(relativePaths: ["Photo.JPG", "photo.jpg", "sub/A.png", "SUB/a.png"], inputRoot: "/nonexistent-in",
                                      outputRoot: "/nonexistent-out")
        let root = ["Photo.JPG", "photo.jpg"].map { layout.assignments[ExactPath($0)]!.stem }
        #expect(Set(root.map(CaselessName.key)).count == 2, "\(root)")
        #expect(root == ["Photo", "photo-jpg"])
        // The folders `sub` and `SUB` are one folder where case folds: the later in byte order is renamed.
        let folders = ["sub/A.png", "SUB/a.png"].map { layout.assignments[ExactPath($0)]!.folder }
        #expect(folders == ["sub-2", "SUB"], "\(folders)")
    }

    @Test("a stem's thumbnail never lands on another input's output, in either order", arguments: [["x.webp", "x.thumbnail.jpg"], ["x.thumbnail.jpg", "x.webp"]])
    func thumbnailNames(paths: [String]) throws {
        let layout = try OutputLayout(relativePaths: paths, inputRoot: "/nonexistent-in", outputRoot: "/nonexistent-out")
        let stems = paths.map { layout.assignments[ExactPath($0)]!.stem }
        // Every file each stem may write: STEM.EXT and STEM.thumbnail.jpg.
        let written = stems.map { stem in Set(WritePlan.outputExtensions.map { "\(stem).\($0)" } + ["\(stem).thumbnail.jpg"]) }
        #expect(written[0].isDisjoint(with: written[1]), "\(stems)")
        #expect(layout.assignments[ExactPath("x.webp")]!.stem == "x-webp")
        #expect(layout.assignments[ExactPath("x.webp")]!.reason == "x.thumbnail.jpg is the output of x.thumbnail.jpg")
    }

    @Test("the manifest, its lock and its compaction temporary are planned paths: a folder of that name is mirrored under another")
    func reservedNames() throws {
        let options = BatchOptions(inputRoot: "/in", outputRoot: "/out", prepare: PrepareOptions(outputFolder: "/out"))
        let layout = try OutputLayout(relativePaths: ["manifest.jsonl/a.png", "manifest.jsonl.lock/b.png", "manifest.jsonl.compact.tmp/c.png"],
                                      inputRoot: "/nonexistent-in", outputRoot: "/nonexistent-out", reserved: options.rootFiles)
        #expect(layout.assignments[ExactPath("manifest.jsonl/a.png")]!.folder == "manifest.jsonl-2")
        #expect(layout.assignments[ExactPath("manifest.jsonl.lock/b.png")]!.folder == "manifest.jsonl.lock-2")
        #expect(layout.assignments[ExactPath("manifest.jsonl.compact.tmp/c.png")]!.folder == "manifest.jsonl.compact.tmp-2")
        #expect(layout.assignments[ExactPath("manifest.jsonl/a.png")]!.reason?.contains("the batch manifest") == true)
        // Every shard of one split plans the same names.
        let shards = try (0..<3).map { index in
            try BatchOptions(inputRoot: "/in", outputRoot: "/out", prepare: PrepareOptions(outputFolder: "/out"), shard: Shard(index: index, count: 3)).rootFiles.map(\.name)
        }
        #expect(Set(shards.map { $0.joined(separator: "|") }).count == 1)
        #expect(shards[0].contains("manifest-shard-2-of-3.jsonl.lock"))
    }

    @Test("an output never replaces an input: by its name in the output folder, or through a hard or symbolic link")
    func inputsProtected() throws {
        // Given an input in the output folder, and a hard link and a symbolic link to it there
        let folder = TestEnvironment.temporaryFolder("plan-protect")
        let input = folder.appendingPathComponent("a.jpg").path
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: input))
        #expect(link(input, folder.appendingPathComponent("hard.jpg").path) == 0)
        #expect(symlink("a.jpg", folder.appendingPathComponent("soft.png").path) == 0)
        var plan = WritePlan(inputs: [input])

        // Then its own stem, and the stems of the links, are moved off those names
        let own = plan.claimOutput(fileName: "a.jpg", in: folder.path, for: "a.jpg")
        #expect(own.stem == "a-jpg" && own.reason == "a.jpg is the input \(input)")
        let hard = plan.claimOutput(stem: "hard", in: folder.path, for: "other")
        #expect(hard.stem == "hard-2" && hard.reason?.contains("the same file as the input") == true, "\(hard)")
        let soft = plan.claimOutput(stem: "soft", in: folder.path, for: "other")
        #expect(soft.stem == "soft-2", "\(soft)")
        // And an exact path onto any of them is refused
        for name in ["a.jpg", "A.JPG", "hard.jpg", "soft.png"] {
            #expect(throws: OutputError.self) { try plan.claimFile(folder.appendingPathComponent(name).path, as: "the thumbnail") }
        }
        try plan.claimFile(folder.appendingPathComponent("b.jpg").path, as: "the thumbnail")
        #expect(throws: OutputError.self) { try plan.claimFile(folder.appendingPathComponent("B.jpg").path, as: "another thumbnail") }
    }

    @Test("a refused exact path is output-collision (HTTP 409), final for a batch, an input's failure at the CLI")
    func collisionCode() {
        let error = OutputError.collision(path: "/x/a.jpg", with: "a.jpg is the input /x/a.jpg")
        #expect(error.code == .outputCollision && error.code.rawValue == "output-collision")
        #expect(error.code.httpStatus == 409 && !error.code.isRetryable && error.code.exitStatus == 1)
        #expect(error.message.contains("a.jpg is the input /x/a.jpg"))
    }
}
