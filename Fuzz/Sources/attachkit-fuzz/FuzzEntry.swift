import Foundation
@testable import AttachKit

/// libFuzzer targets for AttachKit, chosen with `ATTACHKIT_FUZZ_TARGET`:
///   - `sniffer`: the byte sniffer (FormatSniffer) on arbitrary file content
///   - `probe`:   sniffer + header probes (libvips, libavformat) + structure checks, as `validate` runs them
///   - `request`: the JSON parser, the serve protocol's request parser and the policy parser
///   - `prepare`: the whole preparation of a small input (``PrepareTarget``), in-process, under a small budget
/// Build and run with `scripts/fuzz.sh` (AddressSanitizer + libFuzzer coverage).
enum FuzzTarget: String {
    case sniffer, probe, request, prepare

    static let current: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["ATTACHKIT_FUZZ_TARGET"] ?? "sniffer"
        guard let target = FuzzTarget(rawValue: name) else { fatalError("ATTACHKIT_FUZZ_TARGET must be sniffer, probe, request or prepare") }
        return target
    }()

    /// The file the byte targets write each input to (one per process; libFuzzer runs inputs serially).
    static let scratchPath: String = {
        let folder = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        return "\(folder)/attachkit-fuzz-\(getpid()).bin"
    }()

    func run(_ bytes: [UInt8]) {
        switch self {
        case .sniffer:
            write(bytes)
            guard let reader = try? FileReader(path: Self.scratchPath) else { return }
            _ = FormatSniffer.sniff(reader)
        case .probe:
            write(bytes)
            guard let (info, sniff) = try? Prober().probeWithSniff(path: Self.scratchPath, displayPath: "fuzz") else { return }
            _ = StructureChecker.check(path: Self.scratchPath, sniff: sniff)
            _ = Validator(profile: .ios).diagnostics(for: info, fileExtension: "bin")
        case .prepare:
            PrepareTarget.run(bytes)
        case .request:
            guard let text = String(validating: bytes, as: UTF8.self) else { return }
            _ = try? ServiceRequest.parse(text)
            if let json = try? JSONValue.parse(text) {
                _ = try? JSONValue.parse(json.serialized)
                _ = try? Profile.parse(json, source: "fuzz")
            }
        }
    }

    private func write(_ bytes: [UInt8]) {
        FileManager.default.createFile(atPath: Self.scratchPath, contents: Data(bytes))
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.current.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

/// SwiftPM names an executable's entry point `<module>_main`; it hands over to libFuzzer's driver.
@_cdecl("attachkit_fuzz_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
}
