import Foundation
import Testing
@testable import AttachKit

@Suite("Atomic outputs: temporary names, descriptors")
struct AtomicOutputTests {
    let folder: URL
    let ledger: AccessLedger

    init() throws {
        folder = TestEnvironment.temporaryFolder("atomic")
        ledger = try AccessLedger.forTests([folder])
    }

    @Test("the temporary file is created in the folder and written through its descriptor")
    func temporaryFile() throws {
        let output = try AtomicOutput(folder: folder.path, stem: "a.b", ledger: ledger)
        #expect(AtomicOutput.isTemporary(output.temporaryName, stem: "a.b"))
        #expect(output.temporaryPath.hasPrefix("/proc/self/fd/"))
        #expect(FileManager.default.fileExists(atPath: folder.path + "/" + output.temporaryName))
    }

    @Test("a scratch file lives beside the output, replaces its content on move and is deleted after")
    func scratch() throws {
        // Given
        let output = try AtomicOutput(folder: folder.path, stem: "clip", ledger: ledger)
        try output.write(Array("first".utf8))
        do {
            let scratch = try ScratchFile(beside: output)
            #expect(FileManager.default.fileExists(atPath: folder.path + "/" + output.temporaryName.dropLast(4) + ".retry.tmp"))
            try Data("second, longer".utf8).write(to: URL(fileURLWithPath: scratch.path))

            // When
            try scratch.move(over: output)
        }

        // Then: one file, the output's, with the scratch content
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [output.temporaryName])
        #expect(try Data(contentsOf: URL(fileURLWithPath: output.temporaryPath)) == Data("second, longer".utf8))
        #expect(try output.commit(named: "clip.mp4").hasSuffix("/clip.mp4"))
        #expect(try Data(contentsOf: folder.appendingPathComponent("clip.mp4")) == Data("second, longer".utf8))
        #expect(ledger.report.isClean)
    }

    @Test("a temporary name replaced behind the output's back is not renamed into place")
    func replacedTemporary() throws {
        let output = try AtomicOutput(folder: folder.path, stem: "a", ledger: ledger)
        try output.write(Array("mine".utf8))
        let name = folder.path + "/" + output.temporaryName
        try FileManager.default.removeItem(atPath: name)
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: name))
        do {
            _ = try output.commit(named: "a.jpg")
            Issue.record("committed a file it did not write")
        } catch {
            #expect(error.description.contains("was replaced"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/a.jpg"))
    }

    @Test("dropping an uncommitted output deletes its temporary file")
    func dropDeletes() throws {
        do {
            let output = try AtomicOutput(folder: folder.path, stem: "a", ledger: ledger)
            try output.write([1, 2, 3])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
    }
}
