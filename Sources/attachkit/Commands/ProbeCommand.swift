import AttachKit

/// `attachkit probe [--json] FILE...`
struct ProbeCommand: Command {
    static let name = "probe"
    static let summary = "identify files by their bytes and print their header facts"
    static let usage = """
        usage: attachkit probe [--json] FILE|DIR...

        Identifies each file by its bytes (never its name) and reads its header only.
          --json    one JSON object per file per line (keys: path, bytes, kind, container, codec,
                    audioCodec, width, height, frames, duration, ...); a file that cannot be
                    probed gets {"path", "error": {"code", "message"}}
        Exit status: 0 all probed, 1 any file could not be probed, 64 usage error.
        """
    static let options: Set<String> = []
    static let flags: Set<String> = ["json"]

    let inputs: InputSet
    let json: Bool

    init(_ arguments: Arguments) throws(UsageError) {
        inputs = try InputSet(arguments.positional)
        json = arguments.flag("json")
    }

    func run() -> ExitCode {
        let prober = Prober()
        var status = ExitCode.success
        var table = Table(["FILE", "KIND", "CONTAINER", "CODEC", "SIZE", "FRAMES", "DURATION", "BYTES"])
        for path in inputs.paths {
            let result = inputs.withAccess(path, refused: { .failure(.access($0)) }) { handle in
                Result { () throws(ProbeError) in try prober.probe(handle) }
            }
            switch result {
            case .success(let info):
                if json {
                    Output.json(info.json.serialized)
                } else {
                    let codec = [info.codec?.rawValue, info.audioCodec?.rawValue].compactMap { $0 }.joined(separator: "+")
                    table.add([path, info.kind.rawValue, info.container.rawValue, codec,
                               Format.dimensions(info.width, info.height), info.frames.map(String.init) ?? "",
                               Format.seconds(info.duration), Format.bytes(info.bytes)])
                }
            case .failure(let error):
                status = status.worse(ExitCode(error.code))
                if json {
                    Output.json(JSONValue.object([
                        ("path", .string(path)),
                        ("error", error.json),
                    ]).serialized)
                } else {
                    table.add([path, "error", error.code.rawValue, "", "", "", "", ""], notes: [error.message])
                }
            }
        }
        if !json { Output.line(table.render()) }
        if let problem = inputs.checkLedger() { return problem }
        return status
    }
}
