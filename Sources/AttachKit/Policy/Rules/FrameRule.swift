/// Animation frame cap.
struct FrameRule: ValidationRule {
    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        let info = subject.info
        guard info.kind == .image, let frames = info.frames, let cap = profile.image.maxFrames, frames > cap else { return [] }
        return [Diagnostic(.tooManyFrames, "\(frames) frames, over \(cap)", fix: "drop frames evenly to \(cap)")]
    }
}
