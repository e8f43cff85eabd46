// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "AttachKit",
    products: [
        .library(name: "AttachKit", targets: ["AttachKit"]),
        .executable(name: "attachkit", targets: ["attachkit"]),
    ],
    targets: [
        // C bridges: Debian's libvips-dev and FFmpeg 5.1 -dev packages, found with pkg-config.
        // Each module map carries a thin header shim (fixed-arity wrappers for libvips' variadic
        // calls, FFmpeg's macros as functions); no policy lives in C.
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        // FFmpeg's headers only: FFmpeg is not linked but opened with dlopen on first use by
        // CFFmpegLoader, so image-only processes never map it. No `pkgConfig:` here, because SwiftPM
        // would link `pkg-config --libs` (-lavformat); Debian's FFmpeg headers are in the compiler's
        // default multiarch include path (README, "How FFmpeg is loaded").
        .systemLibrary(name: "CFFmpeg"),
        // FFmpeg's functions under their own names, forwarding to the libraries opened on first use.
        .target(name: "CFFmpegLoader"),
        // zlib's CRC-32 (PNG chunks), already mapped in every process through libpng and libvips.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libjpeg-turbo (libvips links it too): where an arithmetic-coded JPEG's data run out,
        // which libvips cannot say (Structure/JPEGStructure.swift).
        .systemLibrary(
            name: "CJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]
        ),
        // Linux system calls glibc only reaches through variadic syscall(2): openat2, Landlock.
        .systemLibrary(name: "CSystem"),
        // libmicrohttpd (Debian's libmicrohttpd-dev 0.9.75), the embedded HTTP server behind
        // `attachkit http`; the shim only fixes the arity of its variadic calls.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // libcurl (Debian's libcurl4-openssl-dev 7.88), which fetches URL mode's originals from the
        // media origin; the shim only fixes the arity of curl_easy_setopt and curl_easy_getinfo.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // The commit the binary is built from: `-Xcc -DATTACHKIT_COMMIT='"…"'` (scripts/package.sh),
        // "unknown" without it.
        .target(name: "CBuildCommit"),
        .target(
            name: "AttachKit",
            dependencies: ["CVips", "CFFmpeg", "CFFmpegLoader", "CZlib", "CJPEG", "CSystem", "CMicroHTTPD", "CCurl", "CBuildCommit"]
        ),
        .executableTarget(
            name: "attachkit",
            dependencies: ["AttachKit"]
        ),
        // The benchmark harness: AttachKit side by side with vipsthumbnail, ImageMagick, Pillow and
        // ffmpeg/ffprobe, and the transcoding budget table (swift run -c release attachkit-bench).
        .executableTarget(
            name: "attachkit-bench",
            dependencies: ["AttachKit"],
            path: "Benchmarks/Sources/attachkit-bench"
        ),
        .testTarget(
            name: "AttachKitTests",
            dependencies: ["AttachKit"]
        ),
    ]
)
