extension ErrorCode {
    /// What would get a file refused with this code through, in one sentence for people: the batch
    /// report's "fix" beside each refusal's code and message. The report's diagnostics say more for
    /// a given file (the exact size or duration to aim for); this is the same advice for every file
    /// refused with the code.
    public var fix: String {
        switch self {
        case .notFound: return "check the path: nothing is there"
        case .accessDenied: return "keep the file inside the folder or roots the command was given, not behind a link out of them"
        case .unreadable: return "make it a regular file the user running attachkit can read"
        case .empty: return "re-export or re-download it: the file has no bytes"
        case .unrecognizedType: return "attach a media file: the bytes are no image, sound or movie format"
        case .corrupt: return "re-export or re-download the original; a broken file cannot be fitted"
        case .overCap: return "make it smaller before attaching (fewer pixels, frames or seconds), or raise the safety cap it names"
        case .cannotFit: return "raise the byte budget, lower --quality-floor, or allow a shorter clip (--max-duration)"
        case .unsupported: return "attach a version in a format and codec AttachKit can read (JPEG, PNG, HEIC; H.264 or HEVC; AAC or MP3)"
        case .encrypted: return "attach a clear (unencrypted) export of the media"
        case .deadlineExceeded: return "allow more time (--deadline), or attach a shorter or smaller file"
        case .processingFailed: return "run it again; if it fails again, re-export the file (a decoder or encoder failed on it)"
        case .writeFailed: return "free space or fix permissions in the output folder, then run again"
        case .outputInvalid: return "report it: an output failed its own re-check and was not kept"
        case .outputCollision: return "choose another output path: the one given is an input or a file AttachKit did not write"
        case .crashed: return "re-export the file: it crashed a decoder (in an isolated worker; nothing else was affected)"
        case .overMemory: return "attach a smaller file, or raise --worker-memory"
        case .timedOut: return "attach a shorter or smaller file, or raise --worker-cpu or --worker-timeout"
        case .malformedRequest, .unknownOp, .badOptions: return "correct the request or options named in the message"
        case .unknownProfile, .invalidProfile: return "name apple, ios or a valid JSON policy file (docs/policy.md)"
        case .busy: return "try again shortly"
        case .unavailable: return "try again once the service is ready"
        case .originFailed: return "try again once the media origin answers; check the source URL and the origin's logs"
        case .unsupportedCoding, .unsupportedVersion, .headerTooLarge: return "send a plain HTTP/1.1 request with a smaller head"
        case .doubleRelease, .handleLeak: return "report it: an access handle was misused (a bug)"
        }
    }
}
