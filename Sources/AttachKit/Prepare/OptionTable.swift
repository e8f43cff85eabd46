/// Every preparation and thumbnail option, each declared once: its key, its command-line flag,
/// what its value is (checked against its range in ``OptionLimits``), the field it sets (whose
/// default is the one ``PrepareOptions`` and ``ThumbnailRequest`` state), the help the usage text
/// gives it, the commands that take it, and whether it changes what `prepare` produces.
///
/// The rest follows from this table, as libvips' `VIPS_ARG_*` declarations drive its command line:
/// ``OptionsDecoder`` reads each option into its field; the keys each operation accepts
/// (``keys(for:)``); the command line's flags, each command's accepted set and the option lines
/// of its usage text (so the manual page and the bash completion); the JSON a batch sends its
/// workers (``PrepareOptions/requestOptions``) and the batch fingerprint
/// (``PrepareOptions/fingerprint``). Adding an option is one entry here and its use.
package enum OptionTable {
    /// In the order the usage text lists them and the JSON writes them.
    package static let specs: [OptionSpec] = [
        OptionSpec(.text("out"), flag: "out", verbs: [.prepare, .batch, .thumbnail], changesOutput: false,
                   help: OptionHelp("DIR", "output folder (default ./prepared, created if missing)"),
                   helpByVerb: [.batch: OptionHelp("OUT_DIR", required: true, "output folder (required)"),
                                .thumbnail: OptionHelp("PATH", required: true, "the JPEG to write (atomically)")]),
        OptionSpec(.profile, flag: "profile", verbs: [.prepare, .batch, .validate, .budget, .serve, .http, .sign],
                   help: OptionHelp("P", synopsis: "NAME|PATH.json", "apple | ios (default) | path to a JSON policy (schema in docs/policy.md)"),
                   helpByVerb: [.serve: requestDefault, .http: requestDefault,
                                .sign: OptionHelp("P", synopsis: "NAME", "apple | ios (default): a URL names a built-in profile only")]),
        OptionSpec(.bytes(OptionLimits.maxBytes, \PrepareOptions.maxBytes), flag: "max-bytes", verbs: prepare,
                   help: OptionHelp("N", "byte budget tighter than the profile's (5000000, 500KB, 5MB)")),
        OptionSpec(.whole(OptionLimits.maxEdge, \PrepareOptions.maxEdge), flag: "max-edge", verbs: prepare,
                   help: OptionHelp("PX", "long-edge cap for images and video")),
        OptionSpec(.whole(OptionLimits.maxFrames, \PrepareOptions.maxFrames), flag: "max-frames", verbs: prepare,
                   help: OptionHelp("N", "animation frame cap, checked from the header before decoding")),
        OptionSpec(.seconds(OptionLimits.maxDuration, \PrepareOptions.maxDuration), flag: "max-duration", verbs: prepare,
                   help: OptionHelp("S", "duration budget for audio and video, seconds")),
        OptionSpec(.seconds(OptionLimits.start, \PrepareOptions.start), flag: "start", verbs: prepare,
                   help: OptionHelp("S", "where a trimmed clip starts")),
        OptionSpec(.choice("trim", \PrepareOptions.trim), flag: "trim", verbs: prepare,
                   help: OptionHelp("MODE", synopsis: "fast|exact", "fast: stream copy from a keyframe (default); exact: re-encode to the frame")),
        OptionSpec(.seconds(OptionLimits.deadline, \PrepareOptions.deadline), flag: "deadline", verbs: prepare.union([.http, .budget]),
                   help: OptionHelp("S", "time budget per file; work stops cleanly when it runs out"),
                   helpByVerb: [.http: OptionHelp("S", "the longest time a prepare may take (requests may ask less)"),
                                .budget: OptionHelp("S", "the time budget the last column is computed for (default 30, the",
                                                    "Notification Service Extension's)")]),
        OptionSpec(.whole(OptionLimits.qualityFloor, \PrepareOptions.qualityFloor), flag: "quality-floor", verbs: prepare,
                   help: OptionHelp("Q", "lowest JPEG quality byte fitting may use before shrinking")),
        OptionSpec(.flag("keepMetadata", \PrepareOptions.keepMetadata), flag: "keep-metadata", verbs: prepare,
                   help: .flag("keep EXIF/XMP in re-encoded images (default: stripped)")),
        OptionSpec(.seconds(OptionLimits.verifySeconds, \PrepareOptions.verifySeconds), flag: "verify-seconds", verbs: prepare,
                   help: OptionHelp("S", "seconds of video decoded to verify a copied output: a longer video is",
                                    "checked GOP by GOP, GOPs spread evenly; the note says so")),
        OptionSpec(.choice("verify", \PrepareOptions.verify), flag: "verify", verbs: prepare,
                   help: OptionHelp("MODE", synopsis: "fast|full", "how a copied output is decoded before it is handed back: fast (default):",
                                    "every packet, in-loop filters skipped; full: as validate --deep")),
        OptionSpec(.flag("thumbnail", \PrepareOptions.thumbnail), flag: "thumbnail", spellings: [.batch: "thumbnails"], verbs: prepare,
                   help: .flag("also write STEM.thumbnail.jpg beside each output and report its options")),
        OptionSpec(.whole(OptionLimits.thumbnailSize, \ThumbnailRequest.size), flag: "size", verbs: thumbnail, refines: "thumbnail",
                   help: OptionHelp("PX", "the thumbnail's long edge")),
        OptionSpec(.clip("clip", \ThumbnailRequest.clip), flag: "clip", verbs: thumbnail, refines: "thumbnail",
                   help: OptionHelp("x,y,w,h", "the region the thumbnail shows, normalized: 0...1 as ThumbnailClippingRectKey",
                                    "(e.g. .25,.25,.5,.5 is the centre)")),
        OptionSpec(.whole(OptionLimits.thumbnailQuality, \ThumbnailRequest.quality), flag: "thumbnail-quality", verbs: thumbnail,
                   refines: "thumbnail", help: OptionHelp("Q", "the thumbnail's JPEG quality, 1-100")),
        OptionSpec(.whole(OptionLimits.frame, \ThumbnailRequest.frame), flag: "frame", verbs: thumbnail, refines: "thumbnail",
                   help: OptionHelp("N", "the frame of an animated image the thumbnail shows, from 0 (as ThumbnailTimeKey)")),
        OptionSpec(.seconds(OptionLimits.at, \ThumbnailRequest.time), flag: "at", verbs: thumbnail, refines: "thumbnail",
                   help: OptionHelp("S", "the time in a movie the thumbnail shows (as ThumbnailTimeKey; default 1 s,",
                                    "or the middle of a clip shorter than 2 s)")),
        OptionSpec(.text("report"), flag: "report", verbs: [.batch, .report], changesOutput: false,
                   help: OptionHelp("FILE", "also write an HTML report of the batch there when it ends (see attachkit help",
                                    "report); refused at once when FILE is a file no report of AttachKit's wrote"),
                   helpByVerb: [.report: OptionHelp("FILE", "the HTML file to write (default OUT_DIR/report.html)")]),
        OptionSpec(.flag("deep"), flag: "deep", verbs: [.validate], changesOutput: false,
                   help: .flag("also decode every frame/sample (finds damage a structural check cannot see)")),
    ]

    /// The commands that take a preparation option.
    private static let prepare: Set<OptionVerb> = [.prepare, .batch, .sign]
    /// The commands that take a thumbnail option.
    private static let thumbnail: Set<OptionVerb> = [.prepare, .batch, .thumbnail, .sign]
    /// `serve`'s and `http`'s `--profile`.
    private static let requestDefault = OptionHelp("P", synopsis: "NAME|PATH.json",
                                                   "the profile of requests that name none: apple | ios (default) | a policy file")

    /// The options `verb` takes, in the table's order.
    package static func specs(for verb: OptionVerb) -> [OptionSpec] { specs.filter { $0.verbs.contains(verb) } }

    /// The keys `verb` (an operation of `serve`: `prepare`, `thumbnail`, `validate`) accepts.
    package static func keys(for verb: OptionVerb) -> Set<String> { Set(specs(for: verb).map(\.key)) }
}

/// A command that takes options from ``OptionTable``; `prepare`, `thumbnail` and `validate` are
/// also `serve`'s operations, which accept the same keys.
package enum OptionVerb: String, CaseIterable, Sendable {
    case prepare, batch, thumbnail, validate
    /// `serve`, `http`: the profile of requests that name none; `http`'s longest deadline.
    case serve, http
    /// `budget`: the profile and the deadline it measures for.
    case budget
    /// `report`: where the batch report goes.
    case report
    /// `sign`: the options a URL-mode URL carries (`attachkit sign`, ``AttachOptions``): `prepare`'s
    /// without `out`.
    case sign
}

/// One option of ``OptionTable``.
package struct OptionSpec: Sendable {
    /// What it sets and how its value is read.
    package let field: OptionField
    /// The command line's flag, without `--` (`quality-floor`).
    package let flag: String
    /// The flag where a command spells it otherwise (`batch`'s `--thumbnails`).
    let spellings: [OptionVerb: String]
    package let verbs: Set<OptionVerb>
    /// Whether it changes what `prepare` produces, so the batch fingerprint hashes it (`out`,
    /// where outputs go, does not).
    package let changesOutput: Bool
    /// The key of the flag whose meaning it refines (`size` refines `thumbnail`): the synopsis of a
    /// command taking both shows it within that flag's brackets.
    package let refines: String?
    private let help: OptionHelp
    private let helpByVerb: [OptionVerb: OptionHelp]

    init(_ field: OptionField, flag: String, spellings: [OptionVerb: String] = [:], verbs: Set<OptionVerb>,
         changesOutput: Bool = true, refines: String? = nil, help: OptionHelp, helpByVerb: [OptionVerb: OptionHelp] = [:]) {
        self.field = field
        self.flag = flag
        self.spellings = spellings
        self.verbs = verbs
        self.changesOutput = changesOutput
        self.refines = refines
        self.help = help
        self.helpByVerb = helpByVerb
    }

    package var key: String { field.key }

    /// The flag `verb` takes it under, without `--`.
    package func flag(for verb: OptionVerb) -> String { spellings[verb] ?? flag }

    /// How `verb`'s usage text shows it: the help ends with the default where the field has one
    /// worth stating (a number), as ``PrepareOptions`` and ``ThumbnailRequest`` give it.
    package func help(for verb: OptionVerb) -> OptionHelp {
        if let special = helpByVerb[verb] { return special }
        guard [.bytes, .whole, .seconds].contains(field.kind), let standard = field.defaultValue else { return help }
        return OptionHelp(help.value, synopsis: help.synopsisValue, required: help.required,
                          lines: help.lines.dropLast() + [(help.lines.last ?? "") + " (default \(standard.serialized))"])
    }
}

/// How a command's usage text shows an option.
package struct OptionHelp: Sendable, Equatable {
    /// The value's name in the option lines (`N`, `DIR`); `nil` for a flag.
    package let value: String?
    /// The value's name in the synopsis (`fast|exact`).
    package let synopsisValue: String?
    /// Shown without brackets in the synopsis.
    package let required: Bool
    package let lines: [String]

    init(_ value: String?, synopsis: String? = nil, required: Bool = false, lines: [String]) {
        self.value = value
        self.synopsisValue = synopsis ?? value
        self.required = required
        self.lines = lines
    }

    /// An option taking a value named `value`.
    init(_ value: String, synopsis: String? = nil, required: Bool = false, _ lines: String...) {
        self.init(value, synopsis: synopsis, required: required, lines: lines)
    }

    /// A flag.
    static func flag(_ lines: String...) -> OptionHelp { OptionHelp(nil, lines: lines) }
}

/// What an option's value is and where it goes: the key it is read under, its kind, and (for
/// the options held by ``PrepareOptions`` or ``ThumbnailRequest``) the reading and writing of
/// its field. `out` and `deep` have no field here: whoever takes them reads them.
package struct OptionField: Sendable {
    package let key: String
    package let kind: OptionKind
    let binding: Binding?

    enum Binding: Sendable {
        case prepare(FieldBinding<PrepareOptions>)
        case thumbnail(FieldBinding<ThumbnailRequest>)
    }

    /// The binding within ``PrepareOptions`` (a thumbnail option's within its `thumbnailRequest`).
    var prepareBinding: FieldBinding<PrepareOptions>? {
        switch binding {
        case .prepare(let field): return field
        case .thumbnail(let field): return field.within(\PrepareOptions.thumbnailRequest)
        case nil: return nil
        }
    }

    /// The field's default as JSON; `nil` when it has none (absent, or the front end's).
    var defaultValue: JSONValue? {
        switch binding {
        case .prepare(let field): return field.defaultValue
        case .thumbnail(let field): return field.defaultValue
        case nil: return nil
        }
    }

    /// A byte count in `range` (`5MB`).
    static func bytes<Root: OptionRoot, Slot: OptionSlot>(_ range: OptionRange<Int64>, _ path: WritableKeyPath<Root, Slot> & Sendable) -> OptionField
    where Slot.Value == Int64 {
        OptionField(key: range.key, kind: .bytes, binding: Root.binding(FieldBinding(path) { decoder throws(OptionsError) in try decoder.bytes(range) }))
    }

    /// A whole number in `range`.
    static func whole<Root: OptionRoot, Slot: OptionSlot>(_ range: OptionRange<Int>, _ path: WritableKeyPath<Root, Slot> & Sendable) -> OptionField
    where Slot.Value == Int {
        OptionField(key: range.key, kind: .whole, binding: Root.binding(FieldBinding(path) { decoder throws(OptionsError) in try decoder.integer(range) }))
    }

    /// A number of seconds in `range`.
    static func seconds<Root: OptionRoot, Slot: OptionSlot>(_ range: OptionRange<Double>, _ path: WritableKeyPath<Root, Slot> & Sendable) -> OptionField
    where Slot.Value == Double {
        OptionField(key: range.key, kind: .seconds, binding: Root.binding(FieldBinding(path) { decoder throws(OptionsError) in try decoder.seconds(range) }))
    }

    /// Yes or no: a flag on the command line.
    static func flag<Root: OptionRoot>(_ key: String, _ path: WritableKeyPath<Root, Bool> & Sendable) -> OptionField {
        OptionField(key: key, kind: .flag, binding: Root.binding(FieldBinding(path) { decoder throws(OptionsError) in
            decoder.source.value(key) == nil ? nil : try decoder.bool(key)
        }))
    }

    /// One of a type's cases, by its name (`fast`, `exact`).
    static func choice<Root: OptionRoot, Choice: OptionSlot & CaseIterable & RawRepresentable>(_ key: String, _ path: WritableKeyPath<Root, Choice> & Sendable) -> OptionField
    where Choice.Value == Choice, Choice.RawValue == String {
        OptionField(key: key, kind: .choice, binding: Root.binding(FieldBinding(path) { decoder throws(OptionsError) in try decoder.choice(key) }))
    }

    /// A normalized clipping rect, `x,y,w,h`.
    static func clip<Root: OptionRoot>(_ key: String, _ path: WritableKeyPath<Root, ClippingRect?> & Sendable) -> OptionField {
        OptionField(key: key, kind: .clip, binding: Root.binding(FieldBinding(path) { decoder throws(OptionsError) in try decoder.clip(key) }))
    }

    /// `profile`: the default is the front end's (the options start from it); written always, as
    /// an inline policy.
    static let profile = OptionField(key: "profile", kind: .profile, binding: .prepare(FieldBinding(
        read: { decoder, options throws(OptionsError) in options.profile = try decoder.profile(default: options.profile) },
        write: { $0.profile.json }, defaultValue: nil)))

    /// Text the command reads itself (`out`).
    static func text(_ key: String) -> OptionField { OptionField(key: key, kind: .text, binding: nil) }

    /// A flag the command reads itself (`deep`).
    static func flag(_ key: String) -> OptionField { OptionField(key: key, kind: .flag, binding: nil) }
}

/// What an option's value is.
package enum OptionKind: Sendable, Equatable {
    case bytes, whole, seconds, text, flag, profile, choice, clip

    /// Whether it takes a value (`--max-bytes 5MB`) rather than being a flag (`--keep-metadata`).
    package var takesValue: Bool { self != .flag }
}

/// How an option's value gets into its field, and back out as JSON.
struct FieldBinding<Root>: Sendable {
    /// Sets the field from the decoder's value, when one is given.
    let read: @Sendable (OptionsDecoder, inout Root) throws(OptionsError) -> Void
    /// The field as JSON; `nil` at its default, which then goes without saying.
    let write: @Sendable (Root) -> JSONValue?
    /// The default as JSON; `nil` when there is none.
    let defaultValue: JSONValue?

    init(read: @escaping @Sendable (OptionsDecoder, inout Root) throws(OptionsError) -> Void,
         write: @escaping @Sendable (Root) -> JSONValue?, defaultValue: JSONValue?) {
        self.read = read
        self.write = write
        self.defaultValue = defaultValue
    }

    /// The field at `path`, given what `value` reads (`nil` when the option is absent).
    init<Slot: OptionSlot>(_ path: WritableKeyPath<Root, Slot> & Sendable,
                           value: @escaping @Sendable (OptionsDecoder) throws(OptionsError) -> Slot.Value?) where Root: OptionRoot {
        let standard = Root.optionDefaults[keyPath: path]
        self.init(read: { decoder, root throws(OptionsError) in
                      if let given = try value(decoder) { root[keyPath: path] = Slot(option: given) }
                  },
                  write: { root in root[keyPath: path] == standard ? nil : root[keyPath: path].optionJSON },
                  defaultValue: standard.optionJSON)
    }

    /// The same field, within the `Root` held at `path`.
    func within<Outer>(_ path: WritableKeyPath<Outer, Root> & Sendable) -> FieldBinding<Outer> {
        let read = self.read, write = self.write
        return FieldBinding<Outer>(read: { decoder, outer throws(OptionsError) in try read(decoder, &outer[keyPath: path]) },
                                   write: { write($0[keyPath: path]) }, defaultValue: defaultValue)
    }
}

/// A value whose fields options set: its defaults, and the binding kind for its fields.
protocol OptionRoot: Sendable {
    /// The value as built without options: each field's default.
    static var optionDefaults: Self { get }
    static func binding(_ field: FieldBinding<Self>) -> OptionField.Binding
}

extension PrepareOptions: OptionRoot {
    static var optionDefaults: PrepareOptions { PrepareOptions(outputFolder: "") }
    static func binding(_ field: FieldBinding<PrepareOptions>) -> OptionField.Binding { .prepare(field) }
}

extension ThumbnailRequest: OptionRoot {
    static var optionDefaults: ThumbnailRequest { ThumbnailRequest() }
    static func binding(_ field: FieldBinding<ThumbnailRequest>) -> OptionField.Binding { .thumbnail(field) }
}

/// The type of a field an option sets: the value itself, or an optional of it (`nil` unless given).
protocol OptionSlot: Equatable, Sendable {
    associatedtype Value
    init(option value: Value)
    /// The value as a request writes it (`nil` for an absent optional).
    var optionJSON: JSONValue? { get }
}

extension Optional: OptionSlot where Wrapped: OptionSlot {
    init(option value: Wrapped.Value) { self = Wrapped(option: value) }
    var optionJSON: JSONValue? { self?.optionJSON }
}

extension Int: OptionSlot {
    init(option value: Int) { self = value }
    var optionJSON: JSONValue? { .number(Double(self)) }
}

extension Int64: OptionSlot {
    init(option value: Int64) { self = value }
    var optionJSON: JSONValue? { .number(Double(self)) }
}

extension Double: OptionSlot {
    init(option value: Double) { self = value }
    var optionJSON: JSONValue? { .number(self) }
}

extension Bool: OptionSlot {
    init(option value: Bool) { self = value }
    var optionJSON: JSONValue? { .bool(self) }
}

extension TrimMode: OptionSlot {
    init(option value: TrimMode) { self = value }
    var optionJSON: JSONValue? { .string(rawValue) }
}

extension VerifyMode: OptionSlot {
    init(option value: VerifyMode) { self = value }
    var optionJSON: JSONValue? { .string(rawValue) }
}

extension ClippingRect: OptionSlot {
    init(option value: ClippingRect) { self = value }
    /// `x,y,w,h`, as the option is written.
    var optionJSON: JSONValue? { .string("\(x),\(y),\(width),\(height)") }
}
