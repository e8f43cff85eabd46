/// Pixel caps: the long edge (after orientation), width × height, and the decoded size of one frame
/// at 4 bytes per pixel against the service extension's memory budget. Video has a long-edge cap.
struct PixelRule: ValidationRule {
    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        let info = subject.info
        guard let width = info.displayWidth, let height = info.displayHeight, width > 0, height > 0 else { return [] }
        let longEdge = max(width, height)
        var out: [Diagnostic] = []
        switch info.kind {
        case .image:
            let rules = profile.image
            if let cap = rules.maxLongEdge, longEdge > cap {
                out.append(Diagnostic(.dimensionsTooLarge, "\(width)×\(height) px: long edge \(longEdge) px is over \(cap) px",
                                      fix: "downscale to \(cap) px"))
            }
            // Saturating: a header may claim 2³¹-pixel sides; the products are only compared and shown.
            let pixels = Int64(width).saturatingMultiply(Int64(height))
            if let cap = rules.maxPixels, pixels > cap {
                out.append(Diagnostic(.tooManyPixels, "\(width)×\(height) = \(pixels) px, over \(cap) px",
                                      fix: "downscale to ≤ \(Self.longEdge(fitting: cap, width: width, height: height)) px long edge"))
            }
            let decoded = pixels.saturatingMultiply(4)
            if let cap = rules.maxDecodedBytes, decoded > cap {
                out.append(Diagnostic(.decodedSizeTooLarge,
                                      "decodes to \(decoded) bytes (\(width)×\(height)×4), over the \(cap)-byte memory budget",
                                      fix: "downscale to ≤ \(Self.longEdge(fitting: cap / 4, width: width, height: height)) px long edge"))
            }
        case .video:
            if let cap = profile.video.maxLongEdge, longEdge > cap {
                out.append(Diagnostic(.dimensionsTooLarge, "\(width)×\(height) px video: long edge \(longEdge) px is over \(cap) px",
                                      fix: "downscale to \(cap) px"))
            }
        default:
            break
        }
        return out
    }

    /// The largest long edge whose image, keeping the aspect ratio, has at most `pixels` pixels.
    static func longEdge(fitting pixels: Int64, width: Int, height: Int) -> Int {
        let scale = (Double(pixels) / (Double(width) * Double(height))).squareRoot()
        // Clamped: a zero side (no area) gives an infinite scale, which no long edge fits.
        return (Double(max(width, height)) * scale).clampedInteger(in: 0...Int.max, rounding: .down)
    }
}
