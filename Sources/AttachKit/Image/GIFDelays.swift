/// GIF frame delays are whole centiseconds; animations read elsewhere (WebP, APNG, HEIF sequences)
/// carry milliseconds. Rounding each delay on its own drifts: 30 WebP frames of 66.7 ms (2.00 s)
/// become 30 × 70 ms = 2.10 s. Here each frame ends at its source end time rounded to the nearest
/// centisecond, so the error is carried into the next frame and the whole animation lasts the
/// source's duration to within 5 ms.
enum GIFDelays {
    /// The delays (ms, each a multiple of 10) a GIF shows for frames of `delays` ms. A negative
    /// delay counts as 0. Frames that end within the same centisecond as the previous one get 0.
    static func centisecondDelays(_ delays: [Int]) -> [Int] {
        var sourceEnd = 0
        var shownEnd = 0
        return delays.map { delay in
            sourceEnd += max(0, delay)
            let end = Int((Double(sourceEnd) / 10).rounded()) * 10
            defer { shownEnd = end }
            return end - shownEnd
        }
    }

    /// Whether ``centisecondDelays(_:)`` changes any delay (some source delay is not whole centiseconds).
    static func needsRounding(_ delays: [Int]) -> Bool { delays.contains { $0 % 10 != 0 } }
}
