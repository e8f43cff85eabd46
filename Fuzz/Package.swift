// swift-tools-version: 6.0
// libFuzzer targets for AttachKit, kept out of the main package so normal builds never need the
// fuzzer runtime. Build and run with scripts/fuzz.sh.
import PackageDescription

let package = Package(
    name: "AttachKitFuzz",
    dependencies: [.package(name: "AttachKit", path: "..")],
    targets: [
        .executableTarget(
            name: "attachkit-fuzz",
            dependencies: [.product(name: "AttachKit", package: "AttachKit")]
        ),
    ]
)
