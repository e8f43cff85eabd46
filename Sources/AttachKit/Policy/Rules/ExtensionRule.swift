/// iOS reads an attachment's type from its file extension (unless the app passes a type hint), so
/// the extension must name the type the bytes have. The most reported push-attachment failure.
/// Silent when the content's type is not allowed at all: renaming would not help, converting will
/// (and the converted output gets the right extension).
struct ExtensionRule: ValidationRule {
    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        guard let content = subject.info.uniformType, profile.allowsContent(subject.info) else { return [] }
        let ext = subject.fileExtension
        let rename = "rename to .\(content.preferredExtension) (or pass type hint \(content.identifier))"
        if ext.isEmpty {
            return [Diagnostic(.missingExtension, "no file extension: iOS cannot tell the type", fix: rename)]
        }
        if content.extensions.contains(ext) { return [] }
        guard let claimed = UniformType.forExtension(ext) else {
            return [Diagnostic(.extensionMismatch, "extension .\(ext) names no media type; the bytes are \(subject.info.container)", fix: rename)]
        }
        if content.conforms(to: claimed) { return [] }
        return [Diagnostic(.extensionMismatch,
                           "extension .\(ext) says \(claimed.identifier) but the bytes are \(subject.info.container) (\(content.identifier))",
                           fix: rename)]
    }
}
