import Foundation
import Testing
@testable import AttachKit

/// The symlink races of `AccessRaceTests`, through worker processes (sandboxed with Landlock
/// where the kernel has it) as `serve` runs them: nothing read from or written outside the root.
@Suite("worker processes under symlink races", .serialized)
struct WorkerRaceTests {
    static let requests = 200

    @Test("an input swapped with a link to an outside file, prepared by sandboxed workers: no output holds the outside bytes")
    func inputSwapInWorkers() async throws {
        let place = try RacePlace()
        try FileManager.default.createSymbolicLink(atPath: place.swap, withDestinationPath: place.secret)
        let service = try AttachKitService(allow: [place.root.path], jobs: 2, isolation: .workers(WorkerLimits()))
        let watch = try FolderWatch(place.outside.path)
        let out = place.root.appendingPathComponent("out").path
        for index in 0..<Self.requests {
            try FileManager.default.createDirectory(atPath: "\(out)/\(index)", withIntermediateDirectories: true)
        }
        let answers = try await place.whileSwapping(place.inside, with: place.swap) {
            await withTaskGroup(of: String.self) { group in
                for index in 0..<Self.requests {
                    group.addTask {
                        await service.respond(to: #"{"id": \#(index), "op": "prepare", "path": "\#(place.inside)", "options": {"out": "\#(out)/\#(index)"}}"#)
                    }
                }
                var all: [String] = []
                for await answer in group { all.append(answer) }
                return all
            }
        }
        let secret = try Data(contentsOf: URL(fileURLWithPath: place.secret))
        var fromOutside = 0, prepared = 0, refused = 0
        for line in answers {
            let answer = try JSONValue.parse(line)
            #expect(answer["sandbox"]?.stringValue == service.isolationSummary.components(separatedBy: "sandbox: ").last)
            if let output = answer["result"]?["output"]?.stringValue, answer["ok"] == .bool(true) {
                prepared += 1
                if try Data(contentsOf: URL(fileURLWithPath: output)) == secret { fromOutside += 1 }
            } else {
                #expect(answer["error"]?["code"]?.stringValue == "access-denied", "\(line.prefix(300))")
                refused += 1
            }
        }
        #expect(answers.count == Self.requests)
        #expect(fromOutside == 0, "outputs holding the outside file's bytes")
        #expect(watch.created() == [])
        print("input swap through workers (\(service.isolationSummary)): \(prepared) prepared, \(fromOutside) from outside, \(refused) refused")
    }
}
