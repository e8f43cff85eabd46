import Foundation
import Synchronization
import Testing
@testable import AttachKit

/// Someone who can write inside an allowed root swaps a name between something inside and a
/// symbolic link to the outside while requests run. The file checked must be the file read, and
/// the folder checked the folder written: not one byte from, and not one file into, the outside.
@Suite("Containment: names swapped for links while requests run", .serialized)
struct AccessRaceTests {
    static let requests = 500

    @Test("an input swapped with a link to an outside file: no output ever holds the outside bytes")
    func inputSwap() async throws {
        // Given: root/inside.jpg (a JPEG that passes through) swapped again and again with
        // root/.swap, a link to outside/secret.jpg (another JPEG)
        let place = try RacePlace()
        try FileManager.default.createSymbolicLink(atPath: place.swap, withDestinationPath: place.secret)
        let service = try AttachKitService(allow: [place.root.path], jobs: 2)
        let watch = try FolderWatch(place.outside.path)

        // When
        let reports = try await place.whileSwapping(place.inside, with: place.swap) {
            try await Self.prepare(service, path: place.inside, into: place.root.appendingPathComponent("out").path)
        }

        // Then
        let secretBytes = try Data(contentsOf: URL(fileURLWithPath: place.secret))
        let insideBytes = try Data(contentsOf: TestEnvironment.testMedia.appendingPathComponent(RacePlace.insideFixture))
        var fromInside = 0, fromOutside = 0, refused = 0
        for report in reports {
            if let output = report.output {
                // Compared as booleans: a failed == on two byte arrays makes Swift Testing diff them.
                let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
                if bytes == secretBytes { fromOutside += 1 } else if bytes == insideBytes { fromInside += 1 }
            } else {
                #expect(Self.refusal(report) == "access-denied", "\(report.error?.message ?? "")")
                refused += 1
            }
        }
        #expect(fromOutside == 0, "outputs holding the outside file's bytes")
        #expect(fromInside + refused == reports.count)
        #expect(watch.created() == [])
        print("input swap: \(reports.count) prepares, \(fromInside) from inside, \(fromOutside) from outside, \(refused) refused")
        #expect(service.ledger.report.isClean)
    }

    @Test("an output folder swapped with a link to an outside folder: no file ever appears outside")
    func outputFolderSwap() async throws {
        // Given: root/outA (a folder) swapped again and again with root/.swap, a link to outside/
        let place = try RacePlace()
        let folder = try place.root.appendingPathComponent("outA", isDirectory: true).creatingFolder().path
        try FileManager.default.createSymbolicLink(atPath: place.swap, withDestinationPath: place.outside.path)
        let service = try AttachKitService(allow: [place.root.path], jobs: 2)
        let watch = try FolderWatch(place.outside.path)

        // When
        let reports = try await place.whileSwapping(folder, with: place.swap) {
            try await Self.prepare(service, path: place.inside, into: folder)
        }

        // Then: every output is inside the root (the real folder moves between the two names)
        let root = try #require(PathResolver.realPath(place.root.path))
        var written = 0
        for report in reports {
            if let output = report.output {
                #expect(output.hasPrefix(root + "/"), "\(output)")
                written += 1
            } else {
                #expect(Self.refusal(report) == "access-denied", "\(report.error?.message ?? "")")
            }
        }
        let created = watch.created()
        #expect(created == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: place.outside.path) == ["secret.jpg"])
        print("output folder swap: \(reports.count) prepares, \(written) written inside, \(reports.count - written) refused, \(created.count) files created outside")
        #expect(service.ledger.report.isClean)
    }

    /// The code of a refusal: the service's (carried in a `processing` error by ``prepare``) or
    /// the report's own.
    static func refusal(_ report: PrepareReport) -> String? {
        if case .processing(let step, _) = report.error { return step }
        return report.error?.code.rawValue
    }

    /// `requests` passthrough prepares, two at a time, each with its own output name: the report,
    /// or the service's refusal turned into one.
    static func prepare(_ service: AttachKitService, path: String, into folder: String) async throws -> [PrepareReport] {
        await withTaskGroup(of: PrepareReport.self) { group in
            for index in 0..<requests {
                group.addTask {
                    do throws(ServiceError) {
                        return try await service.prepare(path: path, options: PrepareOptions(outputFolder: folder), outputStem: "r\(index)")
                    } catch {
                        var report = PrepareReport(input: path)
                        report.error = .processing(step: error.code.rawValue, reason: error.message)
                        return report
                    }
                }
            }
            var reports: [PrepareReport] = []
            for await report in group { reports.append(report) }
            return reports
        }
    }
}

/// root/ (inside.jpg, out/) and outside/ (secret.jpg) in a fresh temporary folder.
struct RacePlace {
    static let insideFixture = "images/jpeg_greyscale_640x480.jpg"
    static let outsideFixture = "images/jpeg_progressive_800x600.jpg"
    let root: URL
    let outside: URL

    init() throws {
        let base = TestEnvironment.temporaryFolder("race")
        root = try base.appendingPathComponent("root", isDirectory: true).creatingFolder()
        outside = try base.appendingPathComponent("outside", isDirectory: true).creatingFolder()
        _ = try root.appendingPathComponent("out", isDirectory: true).creatingFolder()
        try FileManager.default.copyItem(at: TestEnvironment.testMedia.appendingPathComponent(Self.insideFixture), to: URL(fileURLWithPath: inside))
        try FileManager.default.copyItem(at: TestEnvironment.testMedia.appendingPathComponent(Self.outsideFixture), to: URL(fileURLWithPath: secret))
    }

    var inside: String { root.appendingPathComponent("inside.jpg").path }
    var swap: String { root.appendingPathComponent(".swap").path }
    var secret: String { outside.appendingPathComponent("secret.jpg").path }

    /// Runs `body` while a thread exchanges `name` and `other` atomically every ~0.1 ms
    /// (`renameat2(RENAME_EXCHANGE)`: the name never goes missing, it only changes what it is).
    func whileSwapping<T>(_ name: String, with other: String, _ body: () async throws -> T) async throws -> T {
        let swapper = Swapper(name, other)
        let thread = Thread { swapper.run() }
        thread.start()
        defer { swapper.stop.store(true, ordering: .relaxed) }
        let result = try await body()
        swapper.stop.store(true, ordering: .relaxed)
        while !swapper.finished.load(ordering: .acquiring) { usleep(1000) }
        #expect(swapper.swaps > 100, "the swapping thread barely ran")
        return result
    }
}

private final class Swapper: @unchecked Sendable {
    typealias Renameat2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    let name: String
    let other: String
    let stop = Atomic<Bool>(false)
    let finished = Atomic<Bool>(false)
    private(set) var swaps = 0
    static let pause: UInt32 = 100

    init(_ name: String, _ other: String) {
        self.name = name
        self.other = other
    }

    func run() {
        // renameat2 is not in Swift's Glibc module (it needs _GNU_SOURCE): take it from libc.
        let exchange = unsafeBitCast(dlsym(nil, "renameat2")!, to: Renameat2.self)
        while !stop.load(ordering: .relaxed) {
            if exchange(AT_FDCWD, name, AT_FDCWD, other, 2 /* RENAME_EXCHANGE */) == 0 { swaps += 1 }
            // Paced, so that a name often stays one thing for the whole of a check and changes
            // before a later open: the window a resolve-then-reopen design leaves.
            usleep(Self.pause)
        }
        finished.store(true, ordering: .releasing)
    }
}

/// Every name created in (or moved into) a folder from now on, through inotify: nothing that
/// appears and vanishes between two looks is missed.
final class FolderWatch {
    private let descriptor: Int32

    init(_ folder: String) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0, inotify_add_watch(descriptor, folder, UInt32(IN_CREATE | IN_MOVED_TO)) >= 0 else {
            throw CocoaError(.fileReadUnknown)
        }
    }

    deinit { close(descriptor) }

    /// The names created or moved in since the watch began (or since the last call).
    func created() -> [String] {
        var names: [String] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            guard count > 0 else { return names }
            var offset = 0
            while offset + 16 <= count {
                let length = Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8 | Int(buffer[offset + 14]) << 16
                let raw = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
                names.append(String(decoding: raw, as: UTF8.self))
                offset += 16 + length
            }
        }
    }
}
