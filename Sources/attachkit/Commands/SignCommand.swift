import AttachKit

/// `attachkit sign --key-file FILE --base URL [prepare options] [--ext EXT] [--json] SOURCE_URL`:
/// a signed URL-mode URL (``AttachURL``), with `--json` inside an APNs payload skeleton.
struct SignCommand: Command {
    static let name = "sign"
    static let summary = "print a signed URL-mode URL for an original on your media origin"
    static let usage = """
        \(UsageText.synopsis(name, ["--key-file FILE", "--base URL"] + UsageText.items(.sign) + ["[--ext EXT]", "[--json]", "SOURCE_URL"]))

        Prints the URL of `attachkit http`'s URL mode that prepares SOURCE_URL (fetched from an
        --origin of the server) with the options given (docs/url-mode.md). The options are checked
        as the server checks them; what they change is signed, so a client cannot change them.
        \(UsageText.lines([
            ("--key-file FILE", ["the server's --signing-key-file: its first key signs"]),
            ("--base URL", ["the service's URL as phones reach it (https://attach.example.com)"]),
        ] + UsageText.entries(.sign) + [
            ("--ext EXT", ["end the path with .EXT (for clients that want an extension in the URL)"]),
            ("--json", ["print {url, payload}: the URL and an APNs payload skeleton",
                        "(aps.mutable-content 1, the URL under attachment-url)"]),
        ]))
        Exit status: 0, or 64 for options, a key file or a source URL that are refused.
        """
    static let options = Arguments.options(.sign).union(["key-file", "base", "ext"])
    static let flags = Arguments.flags(.sign).union(["json"])

    let url: String
    let json: Bool

    init(_ arguments: Arguments) throws(UsageError) {
        guard arguments.positional.count == 1, let source = arguments.positional.first else { throw UsageError("give one SOURCE_URL") }
        guard let keyFile = arguments.value("key-file") else { throw UsageError("give --key-file FILE (the server's --signing-key-file)") }
        guard let base = arguments.value("base") else { throw UsageError("give --base URL (https://attach.example.com)") }
        let given = arguments.optionSource
        let options = given.keys.map { key -> (key: String, value: String?) in
            if case .text(let text) = given.value(key) { return (key, text) }
            return (key, nil)
        }
        do throws(ServiceError) {
            let keys = try SigningKeys(file: keyFile)
            url = try AttachURL.make(base: base, source: source, options: options, key: keys.signing, fileExtension: arguments.value("ext"))
        } catch {
            throw UsageError(error.message)
        }
        json = arguments.flag("json")
    }

    func run() -> ExitCode {
        guard json else {
            Output.line("\(rendered: url)")
            return .success
        }
        Output.json(AttachURL.payload(url).serialized)
        return .success
    }
}
