import Foundation
import Testing
@testable import AttachKit

/// The one grammar of byte sizes (`OptionRange.check(bytes:)`): decimal units, a lowercase `b`
/// after an uppercase prefix refused as bits, binary units refused, garbage, negatives and
/// overflow refused with the accepted forms; the same from the command line, `serve`'s JSON and
/// the HTTP query (one decoder).
@Suite("byte sizes")
struct ByteSizeGrammarTests {
    @Test("accepted: a number, or a number and a decimal unit; an all-lowercase unit is bytes", arguments: [
        ("5000000", 5_000_000), ("5MB", 5_000_000), ("5M", 5_000_000), ("5m", 5_000_000), ("5mb", 5_000_000), ("5mB", 5_000_000),
        ("500KB", 500_000), ("500kB", 500_000), ("500kb", 500_000), ("500K", 500_000), ("500k", 500_000),
        ("1.5GB", 1_500_000_000), ("2TB", 2_000_000_000_000), ("1000B", 1000), ("1000b", 1000), ("1e3", 1000), ("1.1MB", 1_100_000),
    ] as [(String, Int64)])
    func accepted(text: String, bytes: Int64) throws {
        #expect(try OptionLimits.maxBytes.check(bytes: text) == bytes)
    }

    @Test("refused as bits: Kb, Mb, Gb, Tb, saying what to write", arguments: [
        ("5Mb", "Mb means megabits; write 5MB"), ("500Kb", "Kb means kilobits; write 500KB"), ("1Gb", "Gb means gigabits; write 1GB"),
        ("1Tb", "Tb means terabits; write 1TB"),
    ])
    func bits(text: String, hint: String) {
        #expect {
            _ = try OptionLimits.maxBytes.check(bytes: text)
        } throws: { error in
            let error = error as! OptionError
            return error.hint?.contains(hint) == true && error.description.contains("such as 5000000, 500KB, 1.5MB")
        }
    }

    @Test("refused: binary units, with the bytes they meant and the decimal unit", arguments: ["1GiB", "512MiB", "64KiB", "1gib", "1Gi"])
    func binary(text: String) {
        #expect {
            _ = try OptionLimits.maxBytes.check(bytes: text)
        } throws: { error in
            (error as! OptionError).hint?.contains("binary units (KiB, MiB, GiB) are not accepted") == true
        }
        #expect(throws: OptionError.self) { try WorkerLimits.memoryOption.check(bytes: text) }
    }

    @Test("refused: garbage, negative, overflow, fractions of a byte, spaces, NaN; the message gives the accepted forms", arguments: [
        "", "MB", "abc", "5XB", "5 MB", " 5MB", "5MB ", "-5MB", "-5000000", "99999999999999999999TB", "1e400", "nan", "inf", "0x10",
        "999.5", "0.9999KB", "5MBB", "5MBs", "5_000_000", "5,000,000",
    ])
    func refused(text: String) {
        #expect {
            _ = try OptionLimits.maxBytes.check(bytes: text)
        } throws: { error in
            let error = error as! OptionError
            return error.key == "maxBytes" && error.expected.contains("B, KB, MB, GB or TB") && error.given == text.debugDescription
        }
    }

    @Test("the command line, serve's JSON and the HTTP query read sizes through one decoder: 5Mb is refused by each")
    func everyFrontEnd() throws {
        let text = OptionsDecoder(TextOptions(values: [("out", "/o"), ("maxBytes", "5Mb")]))
        let json = OptionsDecoder(JSONOptions([("out", .string("/o")), ("maxBytes", .string("5Mb"))]))
        for decoder in [text, json] {
            #expect {
                _ = try decoder.prepareOptions(defaultProfile: .standard)
            } throws: { error in
                (error as! OptionsError).message.contains("Mb means megabits; write 5MB")
            }
        }
        let fine = OptionsDecoder(JSONOptions([("out", .string("/o")), ("maxBytes", .string("5mb"))]))
        #expect(try fine.prepareOptions(defaultProfile: .standard).maxBytes == 5_000_000)

        // The built binary: prepare's --max-bytes and batch's --worker-memory (exit 64, one line and a hint).
        let out = TestEnvironment.temporaryFolder("bytesizes").path
        let input = TestEnvironment.fixture("images/gif_static_320x240.gif")
        let prepare = try TestEnvironment.runAttachKit(["prepare", "--out", out, "--max-bytes", "5Mb", input])
        #expect(prepare.status == 64)
        #expect(prepare.stderr.contains("--max-bytes must be a byte count in 1000...2000000000000"), "\(prepare.stderr)")
        #expect(prepare.stderr.contains("not \"5Mb\" (Mb means megabits; write 5MB for megabytes)"), "\(prepare.stderr)")
        let memory = try TestEnvironment.runAttachKit(["batch", TestEnvironment.fixture("images"), "--out", out, "--worker-memory", "1GiB"])
        #expect(memory.status == 64)
        #expect(memory.stderr.contains("--worker-memory must be") && memory.stderr.contains("write 1073741824 (1 GiB in bytes) or 1GB"),
                "\(memory.stderr)")
        let lower = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out, "--max-bytes", "300kb", input])
        #expect(lower.status == 0, "\(lower.stderr)")

        // serve: the request's maxBytes string is refused as bad-options, with the same words.
        let request = #"{"id":1,"op":"prepare","path":"\#(input)","options":{"out":"\#(out)","maxBytes":"5Mb"}}"#
        let served = try TestEnvironment.runAttachKit(["serve", "--allow", TestEnvironment.testMedia.path, "--allow", out, "--in-process"],
                                                     stdin: Data((request + "\n").utf8))
        let answer = try JSONValue.parse(try #require(served.stdout.split(separator: "\n").first.map(String.init)))
        #expect(answer["error"]?["code"]?.stringValue == "bad-options", "\(served.stdout)")
        #expect(answer["error"]?["message"]?.stringValue?.contains("Mb means megabits; write 5MB") == true, "\(served.stdout)")
    }
}
