import Foundation
import Testing
import VidorientTestSupport

/// FFmpeg and libheif are opened on first use (Sources/CFFmpeg/FFmpegLoader.c,
/// Sources/CLibHeif/LibHeifLoader.c), never when the program starts. The dynamic loader itself
/// says what a run mapped: `LD_DEBUG=files` prints one `file=<name>` line per shared object it
/// loads, whether a `DT_NEEDED` entry or a `dlopen` asked for it.
///
/// `VIDORIENT_LIBRARY_DIR` makes the loaders look for the libraries in one directory only; one
/// that does not exist is a machine without FFmpeg or libheif.
enum LoadedObjects {
    /// The shared objects a run of `arguments` mapped, by the names the loader was given. The
    /// loader writes them to `LD_DEBUG_OUTPUT.<pid>`, not stderr: FFmpeg's ~140 libraries would
    /// fill the stderr pipe while the test still reads stdout.
    static func of(_ arguments: [String], environment: [String: String] = [:]) throws -> (run: Run, objects: [String]) {
        let folder = try scratchFolder("ld-debug")
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = environment
        environment["LD_DEBUG"] = "files"
        environment["LD_DEBUG_OUTPUT"] = folder.appendingPathComponent("files").path
        let run = try Run.vidorient(arguments, environment: environment)
        // One file per process the run started (vidorient starts none: one).
        let text = try FileManager.default.contentsOfDirectory(atPath: folder.path).map {
            try String(contentsOfFile: folder.appendingPathComponent($0).path, encoding: .utf8)
        }.joined(separator: "\n")
        let objects = text.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "file=") else { return nil }
            return String(line[range.upperBound...].prefix(while: { $0 != " " }))
        }
        return (run, objects)
    }

    /// FFmpeg's and libheif's own libraries (their codec dependencies come only through them).
    static func heavy(_ objects: [String]) -> [String] {
        objects.filter { $0.contains("libav") || $0.contains("libswscale") || $0.contains("libheif") }
    }

    static let missing = ["VIDORIENT_LIBRARY_DIR": "/nonexistent/vidorient-no-libraries"]

    /// The smaller libraries, opened on first use too: libjpeg-turbo, libpng, libwebp, FreeType, SQLite.
    static let small = ["libturbojpeg", "libpng16", "libwebp", "libfreetype", "libsqlite3"]

    /// Which of `small` a run mapped, by the stems of their sonames.
    static func smallOnes(_ objects: [String]) -> Set<String> {
        Set(
            small.filter { stem in
                objects.contains { ($0.split(separator: "/").last ?? "").hasPrefix(stem + ".so.") }
            })
    }

    /// A folder of links to every library vidorient opens (the installed ones, as `ldconfig -p`
    /// lists them) but `stem`'s: `VIDORIENT_LIBRARY_DIR` there is a machine without that one alone.
    static func allBut(_ stem: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vidorient-libraries-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let listing = try ProcessOutput.run(URL(fileURLWithPath: "/sbin/ldconfig"), ["-p"])
        let opened = ["libavformat", "libavcodec", "libavutil", "libswscale", "libheif"] + small
        var linked: Set<String> = []
        for line in String(decoding: listing.stdout, as: UTF8.self).split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let name = words.first.map(String.init), let target = words.last.map(String.init),
                target.hasPrefix("/"), let dot = name.range(of: ".so.")
            else { continue }
            let library = String(name[..<dot.lowerBound])
            guard opened.contains(library), library != stem, !linked.contains(name) else { continue }
            try FileManager.default.createSymbolicLink(
                atPath: folder.appendingPathComponent(name).path, withDestinationPath: target)
            linked.insert(name)
        }
        return folder
    }
}

@Suite struct LazyLibraryTests {
    /// A scratch copy, so that a `fix` (even a dry run) never meets the shared TestMedia file.
    static func copy(_ name: String) throws -> String {
        let folder = try scratchFolder("lazy")
        let copy = folder.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: Run.media(name), toPath: copy)
        return copy
    }

    @Test(arguments: [
        ["--version"],
        ["orientation", "--exif", "6"],
        ["inspect", "--json", Run.media("orient-6.jpg")],
        ["inspect", "--json", Run.media("orient-6.heic")],
        ["inspect", Run.media("orient-6.png")],
        ["inspect", "--json", Run.media("orient-6.mp4")],
        ["inspect", "--json", Run.media("orient-6-hevc.mov")],
        ["inspect", "--json", Run.media("sei-90.mp4")],
    ])
    func commandsThatNeedNoPixelsLoadNeitherFFmpegNorLibheif(arguments: [String]) throws {
        let (run, objects) = try LoadedObjects.of(arguments)
        #expect(run.status == 0)
        // The loader did report: libc is always among the objects.
        #expect(objects.contains { $0.hasPrefix("libc.so") })
        #expect(LoadedObjects.heavy(objects) == [])
    }

    @Test func fixOfAnMP4LoadsNoFFmpeg() throws {
        let path = try LazyLibraryTests.copy("orient-6.mp4")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let (run, objects) = try LoadedObjects.of(["fix", "--dry-run", "--orientation", "1", path])
        #expect(run.status == 0)
        #expect(objects.contains { $0.hasPrefix("libc.so") })
        #expect(LoadedObjects.heavy(objects) == [])
        #expect(LoadedObjects.smallOnes(objects).isEmpty)
    }

    /// libjpeg-turbo, libwebp, FreeType and SQLite are not mapped at start either: a start-up
    /// maps only libc, libm, libstdc++, libgcc_s and zlib.
    @Test(arguments: [
        ["--version"],
        ["orientation", "--exif", "6"],
        ["inspect", "--json", Run.media("orient-6.jpg")],
        ["inspect", "--json", Run.media("orient-6.webp")],
        ["inspect", "--json", Run.media("orient-6.mp4")],
        ["audit", "--jsonl", "--no-progress", Run.media("orient-6.jpg"), Run.media("orient-6.mp4")],
    ])
    func commandsThatNeedNoneMapNoneOfTheSmallerLibraries(arguments: [String]) throws {
        let (run, objects) = try LoadedObjects.of(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(objects.contains { $0.hasPrefix("libc.so") })
        #expect(LoadedObjects.smallOnes(objects).isEmpty, "\(objects)")
    }

    /// Each is opened by what needs it, and by nothing else.
    @Test func eachSmallerLibraryIsOpenedByWhatNeedsIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vidorient-lazy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = { (name: String) in folder.appendingPathComponent(name).path }
        // FFmpeg's own libraries need libwebp and FreeType: a run that loads FFmpeg maps them too.
        let cases: [(arguments: [String], opens: Set<String>, loadsFFmpeg: Bool)] = [
            // A photo's thumbnail needs no FFmpeg: decoded by its own library, shrunk by
            // `Picture.resized`, written by zlib (PNG) or libjpeg-turbo (JPEG).
            (["thumbnail", Run.media("orient-6.jpg"), "-o", out("jpeg.png")], ["libturbojpeg"], false),
            (["thumbnail", Run.media("orient-6.jpg"), "-o", out("jpeg.jpg")], ["libturbojpeg"], false),
            (["thumbnail", Run.media("orient-6.webp"), "-o", out("webp.png")], ["libwebp"], false),
            (["thumbnail", Run.media("orient-6.png"), "-o", out("png.png")], ["libpng16"], false),
            (["thumbnail", Run.media("orient-6.webp"), "-o", out("webp.jpg")], ["libwebp", "libturbojpeg"], false),
            (["thumbnail", "--grid", "2x1", Run.media("orient-6.mp4"), "-o", out("sheet.png")], ["libfreetype"], true),
            (
                ["audit", "--jsonl", "--no-progress", "--cache-path", out("cache.sqlite"), Run.media("orient-6.jpg")],
                ["libsqlite3"], false
            ),
            (["normalize", Run.media("orient-6.webp"), "-o", out("upright.webp")], ["libwebp"], false),
        ]
        for (arguments, opens, loadsFFmpeg) in cases {
            let (run, objects) = try LoadedObjects.of(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            let mapped = LoadedObjects.smallOnes(objects)
            #expect(loadsFFmpeg ? opens.isSubset(of: mapped) : mapped == opens, "\(arguments): \(mapped)")
            #expect(LoadedObjects.heavy(objects).isEmpty != loadsFFmpeg, "\(arguments)")
        }
    }

    /// `fix` plans against `inspect`'s view, and only H.264 and HEVC carry an orientation SEI that
    /// FFmpeg alone would see: a movie whose video is anything else (uncompressed `2vuy`, as the
    /// fix benchmark's 1 GiB file) is read from its boxes, so its fix maps no FFmpeg, and is still
    /// verified as `inspect` reads it back. (Before, the box layer's refusal to describe `2vuy`
    /// sent the fix to FFmpeg: 35 ms of loading for a 4 ms fix.)
    @Test func fixOfAMovieNoSEICanTurnMapsNoFFmpeg() throws {
        let folder = try scratchFolder("lazy-fix")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("uncompressed.mov").path
        let made = try run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=64x48:r=10", "-frames:v", "3",
                "-c:v", "rawvideo", "-pix_fmt", "uyvy422", clip,
            ])
        try #require(made.status == 0, "\(made.stderr)")
        let (run, objects) = try LoadedObjects.of(["fix", clip, "--rotate", "90", "--in-place", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(LoadedObjects.heavy(objects).isEmpty, "\(LoadedObjects.heavy(objects))")
        #expect(run.stdout.contains("\"verified\": true"), "\(run.stdout)")
        // FFmpeg's own reading agrees: the container now says 90° clockwise.
        let shown = try Run.vidorient(["inspect", "--deep", "--json", clip])
        #expect(shown.stdout.contains("\"exif_orientation\": 6"), "\(shown.stdout)")
        // An H.264 file is still read for its SEI (by the box layer's description of its NAL units).
        let h264 = folder.appendingPathComponent("h264.mp4").path
        try FileManager.default.copyItem(atPath: Run.media("orient-1.mp4"), toPath: h264)
        let fixed = try LoadedObjects.of(["fix", h264, "--rotate", "90", "--in-place", "--json"])
        #expect(fixed.run.status == 0, "\(fixed.run.stderr)")
        #expect(fixed.run.stdout.contains("\"verified\": true"), "\(fixed.run.stdout)")
    }

    /// Without one of them, what needs it is one clear line naming it (a picture, a normalize), or
    /// a warning and the work done without it (the cache, captions); everything else is unchanged.
    @Test func withoutASmallerLibraryWhatNeedsItSaysSo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vidorient-lazy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = { (name: String) in folder.appendingPathComponent(name).path }
        func without(_ stem: String, _ arguments: [String]) throws -> Run {
            let libraries = try LoadedObjects.allBut(stem)
            defer { try? FileManager.default.removeItem(at: libraries) }
            return try Run.vidorient(arguments, environment: ["VIDORIENT_LIBRARY_DIR": libraries.path])
        }

        // What needs the library missing is one line naming it, exit status 2, and nothing written.
        func refused(_ stem: String, _ title: String, _ arguments: [String], output: String) throws {
            let run = try without(stem, arguments + ["-o", output])
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderrLines.count == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("\(title) is not installed ("), "\(arguments): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(arguments)")
        }
        try refused("libturbojpeg", "libturbojpeg", ["thumbnail", Run.media("orient-6.jpg")], output: out("jpeg.png"))
        // A movie's frame is written by libjpeg-turbo too: without it, a JPEG is one line, a PNG is made.
        try refused("libturbojpeg", "libturbojpeg", ["thumbnail", Run.media("orient-6.mp4")], output: out("movie.jpg"))
        let moviePNG = try without("libturbojpeg", ["thumbnail", Run.media("orient-6.mp4"), "-o", out("movie.png")])
        #expect(moviePNG.status == 0, "\(moviePNG.stderr)")
        try refused("libpng16", "libpng", ["thumbnail", Run.media("orient-6.png")], output: out("png.png"))
        try refused("libwebp", "libwebp", ["normalize", Run.media("orient-6.webp")], output: out("upright.webp"))

        let cache = out("cache.sqlite")
        let audit = try without(
            "libsqlite3", ["audit", "--jsonl", "--no-progress", "--cache-path", cache, Run.media("orient-1.jpg")])
        #expect(audit.status == 0)
        #expect(audit.stderrLines.count == 1)
        #expect(audit.stderr.contains("cache '\(cache)' not used: SQLite is not installed ("), "\(audit.stderr)")
        #expect(audit.stderr.contains("; auditing without it"))
        #expect(audit.stdout.split(separator: "\n").count == 1, "the file is audited all the same")

        let sheet = try without(
            "libfreetype", ["thumbnail", "--grid", "2x1", Run.media("orient-6.mp4"), "-o", out("sheet.png")])
        #expect(sheet.status == 0)
        #expect(sheet.stderrLines.count == 1)
        #expect(sheet.stderr.contains("captions need FreeType: FreeType is not installed ("), "\(sheet.stderr)")
        #expect(FileManager.default.fileExists(atPath: out("sheet.png")), "the sheet is made, without captions")
    }

    @Test func pixelsStillLoadFFmpegAndLibheif() throws {
        let folder = try scratchFolder("lazy")
        defer { try? FileManager.default.removeItem(at: folder) }

        // --deep decodes the first frame, so it needs FFmpeg.
        let inspect = try LoadedObjects.of(["inspect", "--deep", "--json", Run.media("orient-6.mp4")])
        #expect(inspect.run.status == 0)
        #expect(inspect.objects.contains { $0.contains("libavcodec.so.") })
        let video = (inspect.run.json as? [String: Any])?["video"] as? [String: Any]
        #expect(video?["exif_orientation"] as? Int == 6)

        let movie = folder.appendingPathComponent("movie.png").path
        let thumbnail = try LoadedObjects.of(["thumbnail", Run.media("orient-6.mp4"), "-o", movie])
        #expect(thumbnail.run.status == 0)
        #expect(thumbnail.objects.contains { $0.contains("libavcodec.so.") })
        #expect(thumbnail.objects.contains { $0.contains("libswscale.so.") })
        #expect(FileManager.default.fileExists(atPath: movie))

        let photo = folder.appendingPathComponent("photo.png").path
        let heif = try LoadedObjects.of(["thumbnail", Run.media("orient-6.heic"), "-o", photo])
        #expect(heif.run.status == 0)
        #expect(heif.objects.contains { $0.contains("libheif.so.") })
        #expect(FileManager.default.fileExists(atPath: photo))
    }

    /// Without FFmpeg and libheif, what needs no pixels gives the same answers.
    @Test func withoutTheLibrariesWhatNeedsNoPixelsStillWorks() throws {
        let orientation = try Run.vidorient(
            ["orientation", "--exif", "6", "--json"], environment: LoadedObjects.missing)
        #expect(orientation.status == 0)
        #expect((orientation.json as? [String: Any])?["rotation"] as? Int == 90)

        for name in ["orient-6.jpg", "orient-6.heic", "orient-6.png"] {
            let run = try Run.vidorient(["inspect", "--json", Run.media(name)], environment: LoadedObjects.missing)
            #expect(run.status == 0, "\(name): \(run.stderr)")
            let photo = (run.json as? [String: Any])?["photo"] as? [String: Any]
            #expect(photo?["exif_orientation"] as? Int == 6, "\(name)")
        }
    }

    /// What needs pixels fails with one line that names the missing library, and a batch goes on.
    @Test(arguments: [
        ("orient-6.mp4", "FFmpeg is not installed (/nonexistent/vidorient-no-libraries/libavformat.so."),
        ("orient-6.heic", "libheif is not installed (/nonexistent/vidorient-no-libraries/libheif.so.1: "),
    ])
    func withoutTheLibrariesPixelsAreOneClearLine(name: String, reason: String) throws {
        let folder = try scratchFolder("lazy")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("thumbnail.png").path
        let run = try Run.vidorient(["thumbnail", Run.media(name), "-o", output], environment: LoadedObjects.missing)
        #expect(run.status == 2)
        #expect(run.stderrLines.count == 1)
        #expect(run.stderr.contains("'\(Run.media(name))': \(reason)"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
