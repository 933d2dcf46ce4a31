// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "vidorient",
    products: [
        .executable(name: "vidorient", targets: ["vidorient"]),
        .library(name: "VidorientCore", targets: ["VidorientCore"]),
        .library(name: "VidorientFFmpeg", targets: ["VidorientFFmpeg"]),
        .library(name: "VidorientISOBMFF", targets: ["VidorientISOBMFF"]),
        .library(name: "VidorientPhoto", targets: ["VidorientPhoto"]),
        .library(name: "VidorientAudit", targets: ["VidorientAudit"]),
        .library(name: "VidorientText", targets: ["VidorientText"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        // FFmpeg's C libraries, found through pkg-config.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswscale",
            providers: [
                .apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "pkg-config"])
            ]
        ),
        // libheif and libjpeg-turbo, found through pkg-config.
        .systemLibrary(name: "CLibHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev", "pkg-config"])]),
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev", "pkg-config"])]),
        // zlib, for PNG's CRC-32 and compressed text chunks; used only by VidorientPhoto.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The system's SQLite, for the audit cache (docs/audit.md says why not a Swift wrapper).
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // FreeType, for caption text, found through pkg-config.
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        // Orientation algebra, matrices, conversions and report types. No FFmpeg.
        .target(name: "VidorientCore"),
        // Owns every FFmpeg pointer; its public API speaks only VidorientCore types.
        .target(
            name: "VidorientFFmpeg",
            dependencies: [
                "VidorientCore", "VidorientISOBMFF", "VidorientPhoto", "VidorientPhotoDecoding", "VidorientText", "CFFmpeg",
            ]),
        // Draws caption text through FreeType for Core's layout (Core draws no glyphs itself).
        .target(name: "VidorientText", dependencies: ["VidorientCore", "CFreeType"]),
        // Reads MP4/QuickTime box headers and rewrites display matrices in place. Pure Swift, no FFmpeg.
        .target(name: "VidorientISOBMFF", dependencies: ["VidorientCore"]),
        // Reads photos' orientation evidence from their own bytes: EXIF/TIFF, JPEG, PNG, WebP,
        // TIFF/raw, HEIF/AVIF items, XMP and sidecars. Pure Swift, no FFmpeg.
        .target(name: "VidorientPhoto", dependencies: ["VidorientCore", "VidorientISOBMFF", "CZlib"]),
        // Decodes photos' stored pixels: HEIF/AVIF through libheif (its own transformations off),
        // JPEG through libjpeg-turbo with DCT scaling. Owns every libheif and turbojpeg pointer.
        .target(name: "VidorientPhotoDecoding", dependencies: ["VidorientCore", "CLibHeif", "CTurboJPEG"]),
        // Walks a library, probes files in parallel, applies the audit rules, writes the results.
        .target(
            name: "VidorientAudit",
            dependencies: ["VidorientCore", "VidorientFFmpeg", "VidorientISOBMFF", "VidorientPhoto", "CSQLite"]),
        // Argument parsing, printing and exit codes.
        .executableTarget(
            name: "vidorient",
            dependencies: [
                "VidorientCore", "VidorientFFmpeg", "VidorientISOBMFF", "VidorientAudit", "VidorientText",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "VidorientCoreTests", dependencies: ["VidorientCore"]),
        .testTarget(name: "VidorientFFmpegTests", dependencies: ["VidorientFFmpeg", "VidorientCore", "VidorientISOBMFF"]),
        .testTarget(name: "VidorientISOBMFFTests", dependencies: ["VidorientISOBMFF", "VidorientCore"]),
        .testTarget(name: "VidorientPhotoTests", dependencies: ["VidorientPhoto", "VidorientCore", "VidorientISOBMFF"]),
        .testTarget(name: "VidorientTextTests", dependencies: ["VidorientText", "VidorientCore"]),
        .testTarget(name: "VidorientAuditTests", dependencies: ["VidorientAudit", "VidorientCore"]),
        // Runs the built `vidorient` binary end to end.
        .testTarget(name: "vidorientTests", dependencies: ["vidorient", "VidorientCore", "VidorientISOBMFF"]),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
