/// A camera raw's layout: the TIFF structure of a TIFF-based raw (``TIFFStructure``, without
/// asking IFD0 for a picture of its own: a Panasonic RW2's has none), and whatever the raw's
/// header points to past the end of the file (``CameraRawLayout/cut``: the SubIFDs
/// ``TIFFStructure`` does not walk, a CR3's boxes, a RAF's sensor data), then the embedded JPEG
/// preview it is shown as (``JPEGStructure`` on the preview alone, the one ``CameraRawPreview``
/// chooses). Damage to the preview is the raw's damage (`corrupt`); damage elsewhere (the sensor
/// data cut short, an IFD past the end of the file) with the preview whole is
/// ``StructureVerdict/recoverable(reason:)``, the same for every raw: the attachment is made from
/// the preview alone.
enum CameraRawStructure {
    static func check(_ reader: borrowing FileReader, container: Container, limits: SafetyLimits = SafetyLimits()) -> StructureVerdict {
        let tiffBased = container != .raf && container != .cr3
        let layoutVerdict = tiffBased ? TIFFStructure.check(reader, maxPages: limits.maxFrames, requiresPicture: false) : .notChecked
        if case .overCap = layoutVerdict { return layoutVerdict }
        guard let layout = CameraRawLayout.read(reader, container: container),
              let chosen = CameraRawPreview.candidates(layout, reader: reader).first,
              let window = reader.window(at: chosen.jpeg.offset, count: chosen.jpeg.length) else { return layoutVerdict }
        let preview = JPEGStructure.check(window, maxPixels: limits.maxPixels, whole: "the preview")
        switch preview {
        case .intact:
            break
        case .corrupt(let reason):
            return .corrupt(reason: "its embedded JPEG preview (\(chosen.jpeg.length) bytes at byte \(chosen.jpeg.offset)): \(reason)")
        default:
            return preview
        }
        if case .corrupt(let reason) = layoutVerdict {
            return .recoverable(reason: "\(reason); the embedded JPEG preview the attachment is made from is whole")
        }
        if let cut = layout.cut {
            return .recoverable(reason: "\(cut); the embedded JPEG preview the attachment is made from is whole")
        }
        return layoutVerdict == .notChecked ? .intact : layoutVerdict
    }
}
