// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "vidorient",
    products: [
        .executable(name: "vidorient", targets: ["VidorientCLI"]),
        // The front door: inspect, thumbnails, normalize, fix with its journal and undo, and the
        // audit. It brings VidorientCore's types with it (`import Vidorient` is enough).
        .library(name: "Vidorient", targets: ["Vidorient", "VidorientFix", "VidorientAudit"]),
        // The orientation algebra, matrices and report types alone: no C library.
        .library(name: "VidorientCore", targets: ["VidorientCore"]),
        // The content engine (dlib, OpenCV's DNN module), a shared library of its own that the
        // program opens on first use (CContentEngine); no target links it. Not a Swift API.
        .library(name: "VidorientContentEngine", type: .dynamic, targets: ["VidorientContentEngine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    // Each target's imports are listed once, here and in docs/ARCHITECTURE.md's table, which
    // `ArchitectureTests` holds to this file and to the sources' `import` lines.
    targets: [
        // FFmpeg, libheif, libjpeg-turbo, libwebp, FreeType and SQLite are opened on first use, never
        // linked: these C targets include their headers (found on the compiler's include path;
        // .ci/setup installs the -dev packages) and define the functions Swift calls, by the
        // libraries' own names, as trampolines resolved with dlopen. A command that needs none of them (`--version`,
        // `orientation`, `fix`, a photo's `inspect`, an audit without its cache) maps none.
        // CLibraryLoader is the one place that opens them, and holds the loader they share.
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
        // libjpeg-turbo's TurboJPEG API: DCT-scaled decoding, lossless transforms.
        .target(name: "CTurboJPEG", dependencies: ["CLibraryLoader"]),
        // libpng's simplified API: a PNG's pixels for thumbnails and the content judge, without FFmpeg.
        .target(name: "CLibPNG", dependencies: ["CLibraryLoader"]),
        // libwebp, for normalize's lossless WebP decode and exact re-encode (FFmpeg's wrapper cannot set `exact`),
        // and libwebpdemux, for an animated WebP's first frame (FFmpeg's decoder reads no animation).
        .target(name: "CWebP", dependencies: ["CLibraryLoader"]),
        // zlib, for PNG's CRC-32 and compressed text chunks, and the fix journal's checksums. Linked:
        // small, and already mapped by the Swift runtime's own dependencies.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The system's SQLite, for the audit cache (docs/audit.md says why not a Swift wrapper).
        .target(name: "CSQLite", dependencies: ["CLibraryLoader"]),
        // FreeType, for caption text. Its headers sit in freetype2/, off the default path: only
        // FreeTypeLoader.c includes them (its public header names no FreeType type), given here
        // where Debian, Fedora, Arch and Alpine put them; `make` adds what pkg-config says.
        .target(
            name: "CFreeType", dependencies: ["CLibraryLoader"],
            cSettings: [.unsafeFlags(["-I/usr/include/freetype2"])]),
        // Orientation algebra, matrices, conversions, report types, the one error type. No I/O.
        .target(name: "VidorientCore"),
        // Files: byte sources, regular-file opens, the lock, the one safe writer, output files, the
        // library walk, running work on every core, the system-call wrapper. No format knowledge.
        .target(name: "VidorientIO", dependencies: ["VidorientCore"]),
        // Reads MP4/QuickTime box headers and HEIF items; plans matrix fixes. Pure Swift, no FFmpeg.
        .target(name: "VidorientISOBMFF", dependencies: ["VidorientCore", "VidorientIO"]),
        // Reads photos' orientation evidence from their own bytes: EXIF/TIFF, JPEG, PNG, WebP,
        // TIFF/raw, HEIF/AVIF items, XMP and sidecars; plans tag fixes and normalize's rebuilds.
        .target(name: "VidorientPhoto", dependencies: ["VidorientCore", "VidorientIO", "VidorientISOBMFF", "CZlib"]),
        // Decodes photos' stored pixels: HEIF/AVIF through libheif (its own transformations off),
        // JPEG through libjpeg-turbo with DCT scaling, WebP through libwebp shrinking as it decodes,
        // PNG through libpng; writes JPEGs through libjpeg-turbo. Owns every libheif, turbojpeg,
        // libpng and libwebp pointer.
        .target(
            name: "VidorientPhotoDecoding",
            dependencies: ["VidorientCore", "VidorientIO", "CLibHeif", "CLibPNG", "CTurboJPEG", "CWebP"]),
        // Draws caption text through FreeType for Core's layout (Core draws no glyphs itself).
        .target(name: "VidorientText", dependencies: ["VidorientCore", "CFreeType"]),
        // Owns every FFmpeg pointer: probing, decoding and scaling video, normalize's lossless stills. Used through Vidorient.
        .target(
            name: "VidorientFFmpeg",
            dependencies: ["VidorientCore", "VidorientIO", "VidorientISOBMFF", "CFFmpeg"]),
        // Judges which way is up from the pixels: owns the content engine, turns its faces and
        // scene features into Core's ContentEvidence. No FFmpeg: it is given pictures.
        .target(name: "VidorientContent", dependencies: ["VidorientCore", "CContentEngine"]),
        // The front door: what a file is and which reader answers (inspect), thumbnails, photo
        // frames, the content verdict, normalize, thumbnail batches.
        .target(
            name: "Vidorient",
            dependencies: [
                "VidorientCore", "VidorientIO", "VidorientISOBMFF", "VidorientPhoto", "VidorientPhotoDecoding",
                "VidorientText", "VidorientFFmpeg", "VidorientContent",
            ]),
        // The whole fix: intent, plans, the write and its read-back, batches, the journal, undo.
        .target(
            name: "VidorientFix",
            dependencies: ["Vidorient", "VidorientCore", "VidorientIO", "VidorientISOBMFF", "VidorientPhoto", "CZlib"]),
        // Walks a library, reads files in parallel, applies the audit rules, writes the results.
        .target(
            name: "VidorientAudit",
            dependencies: [
                "Vidorient", "VidorientCore", "VidorientIO", "VidorientContent", "CSQLite",
            ]),
        // Argument parsing, printing and exit codes.
        .executableTarget(
            name: "VidorientCLI",
            dependencies: [
                "Vidorient", "VidorientCore", "VidorientIO", "VidorientAudit", "VidorientFix", "VidorientContent",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What every test target shares: TestMedia and its manifest, ../shared/media, the process
        // runner (tools and the built binary), a seeded random generator, temporary folders.
        .target(name: "VidorientTestSupport", path: "Tests/VidorientTestSupport"),
        .testTarget(name: "VidorientCoreTests", dependencies: ["VidorientCore", "VidorientTestSupport"]),
        .testTarget(name: "VidorientIOTests", dependencies: ["VidorientIO", "VidorientCore", "VidorientTestSupport"]),
        .testTarget(
            name: "VidorientISOBMFFTests",
            dependencies: ["VidorientISOBMFF", "VidorientIO", "VidorientCore", "VidorientTestSupport"]),
        .testTarget(
            name: "VidorientPhotoTests",
            dependencies: ["VidorientPhoto", "VidorientIO", "VidorientCore", "VidorientISOBMFF", "VidorientTestSupport"]),
        .testTarget(name: "VidorientTextTests", dependencies: ["VidorientText", "VidorientCore"]),
        .testTarget(
            name: "VidorientTests",
            dependencies: [
                "Vidorient", "VidorientCore", "VidorientIO", "VidorientISOBMFF", "VidorientPhoto", "VidorientPhotoDecoding",
                "VidorientFFmpeg", "VidorientContent", "VidorientAudit", "VidorientTestSupport",
            ]),
        .testTarget(
            name: "VidorientFixTests",
            dependencies: [
                "VidorientFix", "Vidorient", "VidorientCore", "VidorientIO", "VidorientISOBMFF", "VidorientPhoto",
                "VidorientTestSupport",
            ]),
        .testTarget(
            name: "VidorientAuditTests",
            // CSQLite: a test makes a cache as an older vidorient left it.
            dependencies: ["CSQLite", "VidorientAudit", "VidorientCore", "VidorientIO", "VidorientTestSupport"]),
        // Runs the built `vidorient` binary end to end.
        .testTarget(
            name: "VidorientCLITests",
            dependencies: ["VidorientCLI", "VidorientCore", "VidorientIO", "VidorientISOBMFF", "VidorientTestSupport"]),
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
