extension MediaInfo {
    /// The probe fields as an ordered JSON object, keys as documented in the README
    /// (`path`, `bytes`, `kind`, `container`, `codec`, `audioCodec`, `width`, `height`, `frames`,
    /// `duration`, ...). Absent fields are left out.
    public var json: JSONValue { JSONValue.object(jsonFields) }

    /// The same fields as key/value pairs, for reports that embed them.
    public var jsonFields: [(String, JSONValue)] {
        var o = JSONObjectBuilder()
        o.set("path", path)
        o.set("bytes", bytes)
        o.set("kind", kind.rawValue)
        o.set("container", container.rawValue)
        o.set("codec", codec?.rawValue)
        o.set("audioCodec", audioCodec?.rawValue)
        o.set("width", width)
        o.set("height", height)
        if quarterTurned {
            o.set("displayWidth", displayWidth)
            o.set("displayHeight", displayHeight)
        }
        o.set("frames", frames)
        o.set("duration", duration.map { ($0 * 1000).rounded() / 1000 })
        if durationIsEstimate == true { o.set("durationEstimated", true) }
        o.set("orientation", orientation)
        o.set("rotation", rotation)
        if let disabledMedia { o.set("disabledMedia", .array(disabledMedia.map { .string($0) })) }
        o.set("alpha", hasAlpha)
        o.set("bitDepth", bitDepth)
        o.set("pixelFormat", pixelFormat)
        // Not "profile": a validation report carries its policy under that key beside these fields.
        o.set("codecProfile", profileName)
        o.set("level", level)
        o.set("chroma", chroma)
        if let hdr {
            o.set("hdr", hdr.format.rawValue)
            o.set("dolbyVision", hdr.dolbyVision)
            o.set("masteringLuminance", hdr.masteringLuminance.map { JSONValue.array([.number($0.lowerBound), .number($0.upperBound)]) })
            o.set("maxCLL", hdr.maxCLL)
            o.set("maxFALL", hdr.maxFALL)
        }
        o.set("bands", bands)
        o.set("iccProfile", hasICCProfile)
        o.set("interlaced", interlaced)
        o.set("loop", loop)
        o.set("bitRate", bitRate)
        o.set("videoBitRate", videoBitRate)
        o.set("audioBitRate", audioBitRate)
        o.set("frameRate", frameRate.map { ($0 * 1000).rounded() / 1000 })
        o.set("sampleRate", sampleRate)
        o.set("channels", channels)
        o.set("channelLayout", channelLayout)
        o.set("streams", streams)
        o.set("attachedPictures", attachedPictures.flatMap { $0 > 0 ? $0 : nil })
        if let undecodableStreams {
            o.set("undecodableStreams", .array(undecodableStreams.map {
                JSONValue.object([("id", .number(Double($0.id))), ("kind", .string($0.kind.rawValue)),
                                  ("codec", .string($0.codec.rawValue)), ("reason", .string($0.reason))])
            }))
        }
        if let cameraRaw { o.set("cameraRaw", cameraRaw.json) }
        if let type = uniformType {
            o.set("uti", type.identifier)
            o.set("extension", type.preferredExtension)
        }
        return o.pairs
    }
}
