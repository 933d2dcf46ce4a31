import Foundation
import Testing
import VidorientTestSupport

/// Issue 24, item 3: a file cut short is said in every command (`file-truncated`), from real
/// files cut at several places; whole files, with whatever follows their end, are never said
/// truncated.
@Suite struct TruncatedFileTests {
    /// The files cut here: TestMedia's, and the real phone files of `../shared/media` when present.
    static let sources: [String] =
        ["orient-6.jpg", "orient-3.png", "orient-6.heic", "orient-6.mp4"].map(TestMedia.path)
        + (SharedMedia.isPresent ? ["Landscape_6.jpg", "IMG_2682.heic", "sample.mp4"].map(SharedMedia.path) : [])

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// A JPEG cut halfway through its first scan's entropy-coded data (after SOS): whole headers,
    /// half a picture. Halfway through the file would cut a small JPEG before its scan.
    static func cutInsideTheScan(_ data: Data) throws -> Data {
        let bytes = [UInt8](data)
        let sos = try #require(bytes.indices.dropLast().first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        return data.prefix(sos + (bytes.count - sos) / 2)
    }

    /// Where each file is cut: inside its header (a JPEG's APP1, a PNG's text, a HEIF's mdat
    /// early), inside the image data, and just before the end (a JPEG's EOI, a PNG's IEND).
    static func cuts(_ path: String, size: Int) throws -> [(label: String, at: Int)] {
        let data = try bytes(path)
        switch path.split(separator: ".").last?.lowercased() {
        case "jpg":
            // APP1 starts at the first FF E1; cut ten bytes into its payload.
            let app1 = try #require(data.indices.first { data[$0] == 0xFF && data[$0 + 1] == 0xE1 })
            return [
                ("inside app1", app1 + 14), ("inside the scan", size * 2 / 3), ("before eoi", size - 2),
                ("inside eoi", size - 1),
            ]
        case "png": return [("inside idat", size - 20), ("before iend", size - 12)]
        case "heic": return [("inside mdat", size * 2 / 3), ("just before the end", size - 1)]
        default: return [("inside mdat", size * 2 / 3), ("just before the end", size - 1)]
        }
    }

    static func truncated(_ report: [String: Any]) -> [String] {
        ((report["findings"] as? [[String: Any]]) ?? []).filter { $0["code"] as? String == "file-truncated" }
            .compactMap { $0["message"] as? String }
    }

    /// Every file of TestMedia (but the two made cut) and of ../shared/media: no `file-truncated`.
    @Test func wholeFilesAreNotTruncated() throws {
        let run = try Run.vidorient(
            ["inspect", "--json", TestMedia.folder.path] + (SharedMedia.isPresent ? [SharedMedia.folder.path] : []))
        let reports = try #require(run.json as? [[String: Any]], "\(run.stderr)")
        // Every file walked is reported (TestMedia alone is over 90 files).
        #expect(reports.count >= 90)
        let said = reports.filter { !Self.truncated($0).isEmpty }.compactMap { $0["path"] as? String }
            .map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        // Made cut on purpose: an IDAT that claims 1 GiB, an iloc extent past the end.
        #expect(Set(said) == ["bad-png-length.png", "bad-iloc-past-end.heic"], "\(said)")
    }

    /// A whole JPEG followed by what phones put after its end: a motion photo's MP4, padding, a
    /// Samsung-like trailer. None is truncation; the same file cut inside its scan is.
    @Test func dataAfterTheEndOfImageIsNotTruncation() throws {
        let folder = try TemporaryFolder("trailers")
        defer { folder.remove() }
        let jpeg = try Self.bytes(SharedMedia.existingPath("Landscape_6.jpg") ?? TestMedia.path("orient-6.jpg"))
        let movie = try Self.bytes(SharedMedia.existingPath("sample.mp4") ?? TestMedia.path("orient-6.mp4"))
        let trailers: [String: Data] = [
            "motion.jpg": jpeg + movie, "zeros.jpg": jpeg + Data(count: 4096),
            "ff.jpg": jpeg + Data(repeating: 0xFF, count: 7),
            "seft.jpg": jpeg + Data("\0\0SEFH".utf8) + Data(repeating: 0x41, count: 100) + Data([100, 0, 0, 0])
                + Data("SEFT".utf8),
            "twice.jpg": jpeg + jpeg,
        ]
        for (name, data) in trailers { try data.write(to: URL(fileURLWithPath: folder.path(name))) }
        try (jpeg + movie).prefix(jpeg.count / 2).write(to: URL(fileURLWithPath: folder.path("cut.jpg")))
        let run = try Run.vidorient(["inspect", "--json", folder.path])
        let reports = try #require(run.json as? [[String: Any]], "\(run.stderr)")
        #expect(reports.count == trailers.count + 1)
        for report in reports {
            let name = (report["path"] as? String)?.split(separator: "/").last.map(String.init) ?? ""
            #expect(Self.truncated(report).isEmpty == (name != "cut.jpg"), "\(name): \(Self.truncated(report))")
        }
    }

    @Test(arguments: sources)
    func aCutFileIsSaidTruncatedInEveryCommand(source: String) throws {
        let folder = try TemporaryFolder("truncated")
        defer { folder.remove() }
        let data = try Self.bytes(source)
        let ext = source.split(separator: ".").last.map(String.init) ?? "bin"
        for (label, at) in try Self.cuts(source, size: data.count) {
            let path = folder.path("cut.\(ext)")
            try data.prefix(at).write(to: URL(fileURLWithPath: path))
            let name = "\(source.split(separator: "/").last ?? "") cut \(label) at \(at)"

            let inspect = try Run.vidorient(["inspect", "--json", path])
            #expect(inspect.status == 0, "\(name): \(inspect.stderr)")
            let report = try #require(inspect.json as? [String: Any], "\(name): \(inspect.stderr)")
            let messages = Self.truncated(report)
            #expect(messages.count == 1, "\(name): \(report["findings"] ?? "")")
            #expect(messages.first?.hasPrefix("the file is truncated: ") == true, "\(name)")
            let human = try Run.vidorient(["inspect", path])
            #expect(human.stdout.contains("error       file-truncated: the file is truncated"), "\(name)")

            let audit = try Run.vidorient(["audit", "--jsonl", "--no-progress", path])
            #expect(audit.status == 1, "\(name): \(audit.stderr)")
            #expect(audit.stdout.contains(#""code":"file-truncated""#), "\(name)")
            let csv = try Run.vidorient(["audit", "--csv", "--no-progress", path])
            #expect(csv.stdout.contains("file-truncated"), "\(name)")

            // The picture is written when there is one, and the warning said; a file cut
            // before its picture's header fails, naming the truncation.
            let output = folder.path("thumb.png")
            let thumbnail = try Run.vidorient(["thumbnail", path, "-o", output])
            if thumbnail.status == 0 {
                #expect(
                    thumbnail.stderr.contains("vidorient: warning: '\(path)': file-truncated: the file is truncated"),
                    "\(name): \(thumbnail.stderr)")
                #expect(FileManager.default.fileExists(atPath: output))
            } else {
                #expect(thumbnail.status == 2, "\(name)")
                #expect(thumbnail.stderr.hasPrefix("vidorient: could not read '\(path)': "), "\(name)")
            }
            try? FileManager.default.removeItem(atPath: output)
        }
    }

    /// A movie whose `moov` comes last, cut: nothing describes it any more. One line, exit 2, in
    /// inspect and thumbnail, each naming the cut; the audit's `unreadable` finding names it as
    /// inspect does (audit and thumbnail said only FFmpeg's "invalid data" before issue 30's one reading).
    @Test func aMovieCutBeforeItsDescriptionIsAnError() throws {
        let folder = try TemporaryFolder("truncated-moov")
        defer { folder.remove() }
        // ffmpeg writes the `moov` last unless told otherwise: TestMedia's MOVs have it there.
        let data = try Self.bytes(TestMedia.path("orient-6-hevc.mov"))
        let path = folder.path("cut.mov")
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
        let inspect = try Run.vidorient(["inspect", path])
        #expect(inspect.status == 2)
        #expect(inspect.stderr.contains("the file is cut short: "), "\(inspect.stderr)")
        let thumbnail = try Run.vidorient(["thumbnail", path, "-o", folder.path("x.png")])
        #expect(thumbnail.status == 2)
        #expect(thumbnail.stderr.hasPrefix("vidorient: could not read '\(path)': "), "\(thumbnail.stderr)")
        // The thumbnail reads the file as inspect does: the same reason, not only FFmpeg's "invalid data".
        #expect(thumbnail.stderr.contains("the file is cut short: "), "\(thumbnail.stderr)")
        let audit = try Run.vidorient(["audit", "--jsonl", "--no-progress", path])
        #expect(audit.stdout.contains(#""code":"unreadable""#), "\(audit.stdout)")
        #expect(audit.stdout.contains("the file is cut short: "), "\(audit.stdout)")
    }

    /// fix changes the tag of a JPEG cut inside its picture (the tag comes before it) and says the
    /// file is cut, on stderr and in its JSON's `warnings`; a whole file has none; one cut before
    /// its first scan is refused, untouched (nothing after the cut to splice around safely).
    @Test func aFixOfACutPhotoSaysSo() throws {
        let folder = try TemporaryFolder("truncated-fix")
        defer { folder.remove() }
        let source = SharedMedia.existingPath("Landscape_6.jpg") ?? TestMedia.path("orient-6.jpg")
        let data = try Self.bytes(source)
        let path = folder.path("t.jpg")
        try Self.cutInsideTheScan(data).write(to: URL(fileURLWithPath: path))
        let run = try Run.vidorient(["fix", path, "--orientation", "1", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("vidorient: warning: '\(path)': file-truncated: the file is truncated: "))
        let warnings = try #require((run.json as? [String: Any])?["warnings"] as? [String])
        #expect(warnings.count == 1 && warnings[0].hasPrefix("file-truncated: "), "\(warnings)")
        let whole = folder.path("w.jpg")
        try data.write(to: URL(fileURLWithPath: whole))
        let clean = try Run.vidorient(["fix", whole, "--orientation", "1", "--json"])
        #expect(clean.stderr.isEmpty)
        #expect((clean.json as? [String: Any])?["warnings"] as? [String] == [])
        let early = folder.path("e.jpg")
        let header = data.prefix(200)
        try header.write(to: URL(fileURLWithPath: early))
        let refused = try Run.vidorient(["fix", early, "--orientation", "1"])
        #expect(refused.status == 2 && refused.stderr.hasPrefix("vidorient: could not fix"), "\(refused.stderr)")
        #expect(try Self.bytes(early) == header)
    }

    /// A JPEG cut inside its scan gives a picture: exit 0, the picture written, one warning on
    /// stderr, and the finding in `--json`. (vipsthumbnail: "Premature end of JPEG file".)
    @Test func aThumbnailOfACutJPEGIsWrittenWithAWarning() throws {
        let folder = try TemporaryFolder("truncated-thumbnail")
        defer { folder.remove() }
        let source = SharedMedia.existingPath("Landscape_6.jpg") ?? TestMedia.path("orient-6.jpg")
        let data = try Self.bytes(source)
        let path = folder.path("t.jpg")
        try Self.cutInsideTheScan(data).write(to: URL(fileURLWithPath: path))
        let run = try Run.vidorient(["thumbnail", path, "-o", folder.path("t.png"), "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("file-truncated"), "\(run.stderr)")
        let written = try #require((run.json as? [[String: Any]])?.first)
        let findings = try #require(written["findings"] as? [[String: Any]])
        #expect(findings.map { $0["code"] as? String } == ["file-truncated"])
    }

    /// libjpeg's warning about damaged data (a marker it does not know inside the scan) reaches
    /// the user as `file-damaged`, naming libjpeg; the file is whole, so it is not truncated.
    @Test func aDecoderWarningIsSaid() throws {
        let folder = try TemporaryFolder("decoder-warning")
        defer { folder.remove() }
        let source = SharedMedia.existingPath("Landscape_6.jpg") ?? TestMedia.path("orient-6.jpg")
        var data = try Self.bytes(source)
        let middle = data.count * 2 / 3
        data.replaceSubrange(middle..<middle + 2, with: [0xFF, 0x99])
        let path = folder.path("damaged.jpg")
        try data.write(to: URL(fileURLWithPath: path))
        let run = try Run.vidorient(["thumbnail", path, "-o", folder.path("d.png")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: '\(path)': file-damaged: the file is damaged: "), "\(run.stderr)")
        #expect(run.stderr.contains("(libjpeg: "), "\(run.stderr)")
        #expect(!run.stderr.contains("file-truncated"), "\(run.stderr)")
        // inspect --deep and audit --deep decode the picture, and say it too; without, nothing is decoded.
        let deep = try Run.vidorient(["inspect", "--deep", "--json", path])
        #expect(deep.stdout.contains(#""code": "file-damaged""#), "\(deep.stdout)")
        #expect(deep.stdout.contains("(libjpeg: "), "\(deep.stdout)")
        let audit = try Run.vidorient(["audit", "--deep", "--jsonl", "--no-progress", path])
        #expect(audit.stdout.contains(#""code":"file-damaged""#), "\(audit.stdout)")
        #expect(try !Run.vidorient(["inspect", "--json", path]).stdout.contains("file-damaged"))
    }

    /// FFmpeg's decoder concealing errors in a real clip whose first frame's data is damaged
    /// (sample.mp4 of ../shared/media, bytes flipped in its media data): thumbnail says so.
    @Test(.enabled(if: SharedMedia.isPresent, "needs ../shared/media"))
    func anFFmpegDecoderWarningIsSaid() throws {
        let folder = try TemporaryFolder("ffmpeg-warning")
        defer { folder.remove() }
        var data = try Self.bytes(SharedMedia.path("sample.mp4"))
        // sample.mp4's mdat payload starts at 2269; damage the first frame's slice data.
        for offset in stride(from: 2469, to: 5469, by: 7) { data[offset] ^= 0x5A }
        let path = folder.path("damaged.mp4")
        try data.write(to: URL(fileURLWithPath: path))
        let run = try Run.vidorient(["thumbnail", path, "--at", "0", "-o", folder.path("d.png")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: '\(path)': file-damaged: the file is damaged: "), "\(run.stderr)")
        #expect(run.stderr.contains("(ffmpeg: "), "\(run.stderr)")
    }
}
