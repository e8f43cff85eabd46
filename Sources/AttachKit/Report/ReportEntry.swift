/// One input as the batch report sees it: its manifest line (``BatchManifest``), read back.
/// Everything here is text from the line, shown escaped (``HTMLText``); a key the line lacks is
/// simply absent.
struct ReportEntry: Sendable {
    /// The media before or after, as the report's `before` and `after` give it.
    struct Media: Sendable {
        var kind: String?
        var container: String?
        var codec: String?
        var audioCodec: String?
        var width: Int?
        var height: Int?
        var duration: Double?
        var bytes: Int64?

        init?(_ json: JSONValue?) {
            guard let json, json.objectValue != nil else { return nil }
            kind = json["kind"]?.stringValue
            container = json["container"]?.stringValue
            codec = json["codec"]?.stringValue
            audioCodec = json["audioCodec"]?.stringValue
            width = json["width"]?.intValue
            height = json["height"]?.intValue
            duration = json["duration"]?.doubleValue
            // A manifest's numbers are anyone's: out of range is clamped, never a trap (1e19 crashed).
            bytes = json["bytes"]?.doubleValue.map { $0.clampedInteger(in: 0...Int64.max) }
        }

        /// `webm vp9+opus 320×240 2.01 s`: the container, the codecs where they differ from it,
        /// the picture size and the duration (the byte count is shown apart).
        var description: String {
            var parts: [String] = []
            parts.append(container ?? kind ?? "?")
            let codecs = [codec, audioCodec].compactMap { $0 }.filter { $0 != container }
            if !codecs.isEmpty { parts.append(codecs.joined(separator: "+")) }
            if let width, let height { parts.append("\(width)×\(height)") }
            if let duration { parts.append(Self.seconds(duration)) }
            return parts.joined(separator: " ")
        }

        /// `2.01 s`, `40 s`: three significant digits at most.
        static func seconds(_ value: Double) -> String {
            let rounded = value >= 100 ? value.rounded() : value >= 10 ? (value * 10).rounded() / 10 : (value * 100).rounded() / 100
            guard rounded.isFinite, abs(rounded) < 1e15 else { return "\(value) s" }
            let text = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
            return text + " s"
        }
    }

    /// A finding on the input: code, message and the fix that would cure it.
    struct Finding: Sendable {
        var code: String
        var message: String
        var fix: String?
        var isWarning: Bool
    }

    /// The input's path relative to the batch's input folder.
    var path: String
    /// The input's absolute path when it was prepared.
    var input: String?
    /// SHA-256 of the input's bytes when it was prepared (empty when it could not be read).
    var inputHash: String
    var ok: Bool
    var action: String?
    var actions: [String]
    var before: Media?
    var after: Media?
    /// The output's path relative to the output folder (prepared inputs).
    var outputPath: String?
    var notes: [String]
    var findings: [Finding]
    /// The refusal's code and message (`corrupt`, ...).
    var errorCode: String?
    var errorMessage: String?
    var elapsedMilliseconds: Double
    /// The attachment options' thumbnail settings: what the notification shows.
    var clip: ClippingRect?
    var thumbnailTime: Double?
    var thumbnailFrame: Int?
    var thumbnailHidden: Bool
    /// The options the line was prepared with (``BatchSettings``), when the line records them.
    var settings: BatchSettings?

    /// The entry a manifest line describes; `nil` for a line that names no input.
    init?(line json: JSONValue) {
        guard let path = json["path"]?.stringValue else { return nil }
        self.path = path
        input = json["input"]?.stringValue
        inputHash = json["inputHash"]?.stringValue ?? ""
        ok = json["ok"]?.boolValue ?? false
        action = json["action"]?.stringValue
        actions = json["actions"]?.arrayValue?.compactMap(\.stringValue) ?? []
        before = Media(json["before"])
        after = Media(json["after"])
        outputPath = ok ? json["outputPath"]?.stringValue : nil
        notes = json["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        findings = json["diagnostics"]?.arrayValue?.compactMap { finding in
            guard let code = finding["code"]?.stringValue else { return nil }
            return Finding(code: code, message: finding["message"]?.stringValue ?? "", fix: finding["fix"]?.stringValue,
                           isWarning: finding["severity"]?.stringValue == "warning")
        } ?? []
        errorCode = json["error"]?["code"]?.stringValue
        errorMessage = json["error"]?["message"]?.stringValue
        elapsedMilliseconds = json["elapsedMs"]?.doubleValue ?? 0
        let options = json["options"]
        clip = options?["UNNotificationAttachmentOptionsThumbnailClippingRectKey"].flatMap { rect in
            guard let x = rect["X"]?.doubleValue, let y = rect["Y"]?.doubleValue,
                  let width = rect["Width"]?.doubleValue, let height = rect["Height"]?.doubleValue else { return nil }
            return try? ClippingRect(x: x, y: y, width: width, height: height)
        }
        let time = options?["UNNotificationAttachmentOptionsThumbnailTimeKey"]?.doubleValue
        // A movie's time is seconds, an animation's a frame number (as iOS reads the key).
        if after?.kind == "video" { thumbnailTime = time } else { thumbnailFrame = time.map { $0.clampedInteger(in: 0...Int(Int32.max)) } }
        thumbnailHidden = options?["UNNotificationAttachmentOptionsThumbnailHiddenKey"]?.boolValue ?? false
        settings = json["settings"].flatMap(BatchSettings.init(json:))
    }

    /// The input's bytes before, as recorded (`before.bytes`); `nil` when the line has none.
    var bytesBefore: Int64? { before?.bytes }

    /// The output's bytes (prepared inputs).
    var bytesAfter: Int64? { ok ? after?.bytes : nil }

    /// The input's kind, from before or after.
    var kind: String? { before?.kind ?? after?.kind }

    /// The file name, the path's last part.
    var name: String { path.split(separator: "/").last.map(String.init) ?? path }
}
