import CFFmpeg

extension FFmpegLibrary {
    /// libavcodec's name for `profile` of `codec` (`avcodec_profile_name`, the name `ffprobe`
    /// prints: "High 10", "Main 10", "Profile 2", "Advanced Simple Profile", "HE-AAC"); `nil` when
    /// libavcodec names none or FFmpeg cannot be loaded.
    static func profileName(_ profile: Int, codec: Codec) -> String? {
        guard isAvailable, let descriptor = avcodec_descriptor_get_by_name(codec.rawValue),
              let name = avcodec_profile_name(descriptor.pointee.id, Int32(clamping: profile)) else { return nil }
        return String(cString: name)
    }
}
