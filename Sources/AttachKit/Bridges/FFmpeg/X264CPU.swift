#if canImport(Glibc)
import Glibc
#endif

/// The CPU features x264 is allowed: every one it would find itself, except AVX-512.
///
/// x264 0.164 (r3095, Debian 12's libx264-164) reads memory it never wrote in AVX-512 code of its
/// macroblock-tree lookahead: with AVX-512 the same frames and settings give different bytes from
/// run to run, following whatever the heap held before (measured on this machine: a 1 s 320×180
/// tone-mapped clip encoded from identical raw frames by the `ffmpeg` CLI at veryfast, 300 kb/s,
/// one thread, gave three different streams under `MALLOC_PERTURB_=0`, `1` and `85`; the same
/// with `mbtree=0`, `bframes=0`, `rc-lookahead=0`, `asm=0`, or any CPU set without AVX512 gave one).
/// In a batch this made identical runs at the same `--jobs` differ, depending on which file a
/// worker had prepared before. Without AVX-512 the encode is byte-identical from run to run, and
/// as fast within the noise of this shared 2-core machine (1080p veryfast, 120 frames, one thread:
/// 2.7–3.0 s either way).
enum X264CPU {
    /// `asm=NAMES` for `x264-params` on a CPU with AVX-512 (the features `/proc/cpuinfo` lists, in
    /// x264's names); `nil` elsewhere, where x264's own detection is kept.
    static let parameters: String? = {
        guard let flags = cpuFlags(), flags.contains("avx512f") else { return nil }
        let names: [(cpuinfo: String, x264: String)] = [
            ("mmxext", "MMX2"), ("sse", "SSE"), ("sse2", "SSE2"), ("pni", "SSE3"), ("ssse3", "SSSE3"), ("sse4_1", "SSE4.1"),
            ("sse4_2", "SSE4.2"), ("avx", "AVX"), ("xop", "XOP"), ("fma4", "FMA4"), ("abm", "LZCNT"), ("bmi1", "BMI1"),
            ("avx2", "AVX2"), ("fma", "FMA3"), ("bmi2", "BMI2"),
        ]
        return "asm=" + names.filter { flags.contains($0.cpuinfo) }.map(\.x264).joined(separator: ",")
    }()

    /// The `flags` of the first processor in `/proc/cpuinfo`; `nil` when there is none (not x86).
    private static func cpuFlags() -> Set<String>? {
        guard let file = fopen("/proc/cpuinfo", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 8192)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("flags"), let colon = text.firstIndex(of: ":") else { continue }
            return Set(text[text.index(after: colon)...].split(whereSeparator: \.isWhitespace).map(String.init))
        }
        return nil
    }
}
