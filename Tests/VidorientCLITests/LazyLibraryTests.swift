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
