import CFFmpeg

extension AVInput {
    /// The high dynamic range of video stream `index` (``HDRInfo``), from its transfer tag and its
    /// side data: the Dolby Vision configuration record (`AV_PKT_DATA_DOVI_CONF`, `dvcC`/`dvvC`),
    /// mastering display (`AV_PKT_DATA_MASTERING_DISPLAY_METADATA`, `mdcv`) and content light level
    /// (`AV_PKT_DATA_CONTENT_LIGHT_LEVEL`, `clli`). `nil` for standard dynamic range.
    func hdr(of index: Int) -> HDRInfo? {
        guard index >= 0, index < streamCount, let stream = context.pointee.streams[index],
              let parameters = stream.pointee.codecpar else { return nil }
        let dolbyVision = Self.sideData(stream, AV_PKT_DATA_DOVI_CONF, as: AVDOVIDecoderConfigurationRecord.self)
            .map { (profile: Int($0.dv_profile), compatibility: Int($0.dv_bl_signal_compatibility_id)) }
        guard let format = HDRInfo.format(transfer: Int(parameters.pointee.color_trc.rawValue), dolbyVision: dolbyVision) else {
            return nil
        }
        var hdr = HDRInfo(format: format, dolbyVision: dolbyVision.map {
            $0.compatibility == 0 ? "\($0.profile)" : "\($0.profile).\($0.compatibility)"
        })
        if let display = Self.sideData(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, as: AVMasteringDisplayMetadata.self),
           display.has_luminance != 0, display.min_luminance.den > 0, display.max_luminance.den > 0 {
            let low = Double(display.min_luminance.num) / Double(display.min_luminance.den)
            let high = Double(display.max_luminance.num) / Double(display.max_luminance.den)
            if low.isFinite, high.isFinite, low >= 0, low <= high { hdr.masteringLuminance = low...high }
        }
        if let light = Self.sideData(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, as: AVContentLightMetadata.self) {
            hdr.maxCLL = Int(light.MaxCLL)
            hdr.maxFALL = Int(light.MaxFALL)
        }
        return hdr
    }

    /// A copy of the stream's side data of `kind`, when present and at least as large as `T`.
    private static func sideData<T>(_ stream: UnsafeMutablePointer<AVStream>, _ kind: AVPacketSideDataType, as type: T.Type) -> T? {
        var size = 0
        guard let data = av_stream_get_side_data(stream, kind, &size), size >= MemoryLayout<T>.size else { return nil }
        return UnsafeRawPointer(data).loadUnaligned(as: T.self)
    }
}
