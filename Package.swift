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
        .library(name: "VidorientFix", targets: ["VidorientFix"]),
        // The content engine (dlib, OpenCV's DNN module), a shared library of its own that the
        // program opens on first use (CContentEngine); no target links it.
        .library(name: "VidorientContentEngine", type: .dynamic, targets: ["VidorientContentEngine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        // FFmpeg and libheif are opened on first use, never linked: these C targets include their
        // headers (found on the compiler's include path: see docs/install.md) and define the
        // functions Swift calls, by the libraries' own names, as trampolines resolved with dlopen.
        // A command that needs neither (`--version`, `orientation`, a photo's `inspect`)
        // never maps their ~140 shared libraries. CLibraryLoader is the one place that opens them.
        .target(name: "CLibraryLoader"),
        .target(name: "CFFmpeg", dependencies: ["CLibraryLoader"]),
        .target(name: "CLibHeif", dependencies: ["CLibraryLoader"]),
        // The content engine's C surface, and the trampolines that open libVidorientContentEngine.so
        // (and with it dlib and OpenCV) the first time content is judged.
        .target(name: "CContentEngine", dependencies: ["CLibraryLoader"]),
        // The content engine itself: C++ over dlib's HOG face detector and OpenCV's DNN module,
        // owning every C++ object behind vidorient_content.h. Linked with -static-stdlib so that
        // the library needs no Swift runtime (it holds no Swift; see ContentEngine.cpp).
        .target(
            name: "VidorientContentEngine",
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4", "-O2"])],
            linkerSettings: [
                .linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core"),
                .linkedLibrary("dlib"), .unsafeFlags(["-static-stdlib"]),
            ]),
        // libjpeg-turbo, found through pkg-config.
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev", "pkg-config"])]),
        // libwebp, for normalize's lossless WebP decode and exact re-encode (FFmpeg's wrapper cannot set `exact`).
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
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
                "VidorientCore", "VidorientISOBMFF", "VidorientPhoto", "VidorientPhotoDecoding", "VidorientText",
                "VidorientContent", "CFFmpeg",
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
        .target(name: "VidorientPhotoDecoding", dependencies: ["VidorientCore", "CLibHeif", "CTurboJPEG", "CWebP"]),
        // Judges which way is up from the pixels: owns the content engine, turns its faces and
        // scene features into Core's ContentEvidence. No FFmpeg: it is given pictures.
        .target(name: "VidorientContent", dependencies: ["VidorientCore", "CContentEngine"]),
        // Walks a library, probes files in parallel, applies the audit rules, writes the results.
        .target(
            name: "VidorientAudit",
            dependencies: [
                "VidorientCore", "VidorientFFmpeg", "VidorientISOBMFF", "VidorientPhoto", "VidorientContent", "CSQLite",
            ]),
        // What a fix leaves behind and how it is taken back: the journal, its checksums, undo, and
        // the fixes an audit suggests. No FFmpeg: it works on bytes and `FileEdit`s.
        .target(name: "VidorientFix", dependencies: ["VidorientCore", "VidorientISOBMFF", "VidorientPhoto", "CZlib"]),
        // Argument parsing, printing and exit codes.
        .executableTarget(
            name: "vidorient",
            dependencies: [
                "VidorientCore", "VidorientFFmpeg", "VidorientISOBMFF", "VidorientAudit", "VidorientText", "VidorientFix",
                "VidorientContent", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What every test target shares: TestMedia and its manifest, ../shared/media, the process
        // runner (tools and the built binary), a seeded random generator, temporary folders.
        .target(name: "VidorientTestSupport", path: "Tests/VidorientTestSupport"),
        .testTarget(name: "VidorientCoreTests", dependencies: ["VidorientCore", "VidorientTestSupport"]),
        .testTarget(name: "VidorientFFmpegTests", dependencies: ["VidorientFFmpeg", "VidorientContent", "VidorientCore", "VidorientISOBMFF", "VidorientTestSupport"]),
        .testTarget(
            name: "VidorientISOBMFFTests", dependencies: ["VidorientISOBMFF", "VidorientCore", "VidorientTestSupport"]),
        .testTarget(
            name: "VidorientPhotoTests",
            dependencies: ["VidorientPhoto", "VidorientCore", "VidorientISOBMFF", "VidorientTestSupport"]),
        .testTarget(name: "VidorientTextTests", dependencies: ["VidorientText", "VidorientCore"]),
        .testTarget(name: "VidorientAuditTests", dependencies: ["VidorientAudit", "VidorientCore", "VidorientTestSupport"]),
        .testTarget(
            name: "VidorientFixTests", dependencies: ["VidorientFix", "VidorientCore", "VidorientISOBMFF", "VidorientTestSupport"]),
        // Runs the built `vidorient` binary end to end.
        .testTarget(
            name: "vidorientTests", dependencies: ["vidorient", "VidorientCore", "VidorientISOBMFF", "VidorientTestSupport"]),
    ],
    cxxLanguageStandard: .cxx17
)

for target in package.targets where target.type != .system && target.name != "VidorientContentEngine" {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
