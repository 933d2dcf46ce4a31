import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientTestSupport

/// Issue 23's second round: `fix` and `normalize` on hostile variants of a photo of every format
/// fix supports (`PhotoMutations`: cut short, bytes flipped in the EXIF/IFD and in the HEIF boxes,
/// repeated tags and segments, huge counts and sizes, an IFD loop, the byte order swapped), and on
/// JPEGs that are progressive, have restart markers, a size off the MCU, an MPF preview, 4:2:2 or
/// 4:4:0 chroma, or a frame header claiming far more pixels than the scan codes (a bomb). Run as
/// a user runs them. After every fix that reports success, the file still decodes in the reference
/// decoder as it did, to the same pixels, and shows the target per exiftool (per libheif and the
/// item's bytes for HEIF); every refusal is one line, a non-zero exit, the file untouched, nothing
/// left beside it. The counts are in docs/hostile-input.md.
@Suite struct MutatedPhotoTests {
    /// A photo to mutate: a TestMedia file, or one made from it with jpegtran or exiftool.
    struct Base: Sendable, CustomTestStringConvertible {
        let label: String
        let format: String
        let ext: String
        /// Makes the photo at the path given (the folder is its own).
        let make: @Sendable (String) throws -> Void
        var testDescription: String { label }

        static func media(_ name: String, _ format: String) -> Base {
            Base(label: name, format: format, ext: (name as NSString).pathExtension) { path in
                try FileManager.default.copyItem(atPath: Run.media(name), toPath: path)
            }
        }

        static func jpegtran(_ label: String, _ options: [String]) -> Base {
            Base(label: label, format: "jpeg", ext: "jpg") { path in
                try NormalizeFixture.shell(
                    "jpegtran -copy all \(options.joined(separator: " ")) '\(Run.media("orient-6.jpg"))' > '\(path)'")
            }
        }

        /// orient-6.jpg's picture coded again with other chroma sampling (cjpeg `-sample`: 2x1 is
        /// 4:2:2, 1x2 is 4:4:0), tagged 6 again by exiftool.
        static func sampled(_ label: String, _ sampling: String) -> Base {
            Base(label: label, format: "jpeg", ext: "jpg") { path in
                try NormalizeFixture.shell(
                    "djpeg -ppm '\(Run.media("orient-6.jpg"))' | cjpeg -quality 90 -sample \(sampling) > '\(path)'"
                        + " && exiftool -q -overwrite_original -Orientation#=6 '\(path)'")
            }
        }

        static let all: [Base] = [
            .media("orient-6.jpg", "jpeg"),
            .sampled("sampled-422.jpg", "2x1"), .sampled("sampled-440.jpg", "1x2"),
            .jpegtran("progressive.jpg", ["-progressive"]),
            .jpegtran("restart-markers.jpg", ["-restart", "1B"]),
            // 90×150 of a 96×160 4:2:0 picture: neither side a multiple of the 16×16 MCU.
            .jpegtran("off-mcu.jpg", ["-crop", "90x150+0+0"]),
            Base(label: "mpf.jpg", format: "jpeg", ext: "jpg") { path in
                let folder = URL(fileURLWithPath: (path as NSString).deletingLastPathComponent)
                let rich = try NormalizeCommandTests.richJPEG(6, in: folder).path
                try FileManager.default.moveItem(atPath: rich, toPath: path)
                for made in ["thumb.jpg", "preview.jpg"] {
                    try? FileManager.default.removeItem(at: folder.appendingPathComponent(made))
                }
            },
            .media("orient-6.png", "png"), .media("orient-6.webp", "webp"), .media("orient-6-ii.tif", "tiff"),
            .media("orient-6-mm.tif", "tiff"), .media("orient-6.heic", "heif"), .media("heic-meta-last.heic", "heif"),
            .media("orient-6.avif", "heif"),
        ]
    }

    /// What a round did, for the table in docs/hostile-input.md.
    struct Tally: CustomStringConvertible {
        var attempts = 0, successes = 0, refusals = 0, undecodableBefore = 0, unreadableByExiftool = 0
        /// Counts a run on a mutant: a refusal, checked as `checkRefusal` checks one, or a success
        /// that left no temporary file. True for a success.
        mutating func count(_ run: Run, path: String, original: Data, folder: URL, what: String) throws -> Bool {
            guard run.status == 0 else {
                refusals += 1
                try MutatedPhotoTests.checkRefusal(run, path: path, original: original, folder: folder, what: what)
                return false
            }
            successes += 1
            #expect(try FixFixture.leftovers(folder).isEmpty, "\(what)")
            return true
        }

        var description: String {
            "\(attempts) attempts, \(successes) successes, \(refusals) refusals (\(undecodableBefore) mutants the reference decoder refused before any fix; \(unreadableByExiftool) fixed whose orientation exiftool reads neither before nor after)"
        }
    }

    static let target = 3

    /// One mutant in `share` is run by default, a different share for each base so that every
    /// kind of mutation still meets every format across the bases, and the whole test run stays
    /// within its four minutes; `.ci/run` runs every mutant (`LargeRounds`), and the counts
    /// docs/hostile-input.md gives are from that run.
    static let share = LargeRounds.mutationShare

    /// A new folder (`fix-LABEL`) holding the base made pristine, and the mutants of it this run takes.
    static func mutants(of base: Base, in label: String) throws -> (folder: URL, mutants: [PhotoMutation]) {
        let folder = try FixFixture.folder(label)
        let pristine = folder.appendingPathComponent("pristine.\(base.ext)").path
        try base.make(pristine)
        return (folder, mutants(of: [UInt8](try FixFixture.contents(pristine)), format: base.format, base: base))
    }

    /// The mutants of `bytes` this run takes, for the base at `position` in `Base.all`.
    static func mutants(of bytes: [UInt8], format: String, base: Base) -> [PhotoMutation] {
        let phase = (Base.all.firstIndex { $0.label == base.label } ?? 0) % max(1, share)
        return PhotoMutations.all(of: bytes, format: format).enumerated().filter { $0.offset % max(1, share) == phase }
            .map(\.element)
    }

    static func tools() -> Bool {
        ["exiftool", "ffmpeg", "jpegtran", "djpeg", "heif-convert", "python3"].allSatisfy(isInstalled)
    }

    /// The reference decoder's pixels, nil when it refuses the file: djpeg for JPEG, ffmpeg for
    /// PNG, WebP and TIFF (no orientation applied), libheif's heif-convert for HEIF (its output
    /// is the displayed picture: compared by the item's bytes instead).
    static func pixels(_ path: String, format: String, in folder: URL) throws -> Data? {
        switch format {
        case "jpeg":
            let result = try run("djpeg", ["-ppm", path])
            return result.status == 0 && !result.stdout.isEmpty ? result.stdout : nil
        case "heif":
            let out = folder.appendingPathComponent("decoded.png").path
            defer { try? FileManager.default.removeItem(atPath: out) }
            let result = try run("heif-convert", [path, out])
            guard result.status == 0, let data = try? Data(contentsOf: URL(fileURLWithPath: out)) else { return nil }
            return data
        default:
            let result = try run(
                "ffmpeg",
                ["-nostdin", "-v", "error", "-noautorotate", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
            return result.status == 0 && !result.stdout.isEmpty ? result.stdout : nil
        }
    }

    /// A refusal as the issue asks: exit 2, one line naming the file, nothing on stdout, the file
    /// as it was, nothing beside it.
    static func checkRefusal(_ run: Run, path: String, original: Data, folder: URL, what: String) throws {
        #expect(run.status == 2, "\(what): exit \(run.status)")
        #expect(run.stderrLines.count == 1, "\(what): \(run.stderr)")
        #expect(run.stderr.hasPrefix("vidorient: ") && run.stderr.contains(path), "\(what): \(run.stderr)")
        #expect(try FixFixture.contents(path) == original, "\(what): the refused file changed")
        #expect(try FixFixture.leftovers(folder).isEmpty, "\(what): a temporary file left")
    }

    @Test(.enabled(if: tools()), arguments: Base.all)
    func fixOnMutants(base: Base) throws {
        let (folder, mutants) = try Self.mutants(of: base, in: "mutants")
        defer { try? FileManager.default.removeItem(at: folder) }
        var tally = Tally()
        var fixed: [(path: String, what: String, before: String)] = []
        for (index, mutant) in mutants.enumerated() {
            let what = "\(base.label) \(mutant.name)"
            let path = folder.appendingPathComponent("m\(index).\(base.ext)").path
            let original = Data(mutant.bytes)
            try original.write(to: URL(fileURLWithPath: path))
            let before = try Self.pixels(path, format: base.format, in: folder)
            let heifBefore = base.format == "heif" ? try? HEIFStructure(path: path) : nil
            tally.attempts += 1
            if before == nil { tally.undecodableBefore += 1 }
            let run = try Run.vidorient(["fix", path, "--orientation", "\(Self.target)"])
            guard try tally.count(run, path: path, original: original, folder: folder, what: what) else { continue }
            let after = try Self.pixels(path, format: base.format, in: folder)
            if base.format == "heif" {
                // libheif decodes it as it did, and the coded picture is the same bytes.
                #expect(
                    (after == nil) == (before == nil),
                    "\(what): libheif decodes before \(before != nil), after \(after != nil)")
                let heif = try HEIFStructure(path: path)
                #expect(heif.orientation?.exif == Self.target, "\(what): shows \(heif.orientation)")
                if let heifBefore {
                    let old = MemoryBytes([UInt8](original)), new = try FileBytes(path: path)
                    #expect(
                        try heifBefore.data(of: heifBefore.primaryItemID, in: old)
                            == heif.data(of: heif.primaryItemID, in: new), "\(what): the picture's bytes changed")
                }
            } else {
                #expect(after == before, "\(what): the decoded pixels changed (decoded before \(before != nil))")
                let kept = folder.appendingPathComponent("before-\(index).\(base.ext)").path
                try original.write(to: URL(fileURLWithPath: kept))
                fixed.append((path, what, kept))
            }
            // Reading it again shows the target (per vidorient, as inspect does).
            let inspect = try Run.vidorient(["inspect", "--json", path])
            let shown = ((inspect.json as? [String: Any])?["photo"] as? [String: Any])?["exif_orientation"] as? Int
            #expect(shown == Self.target, "\(what): inspect shows \(String(describing: shown))")
        }
        if !fixed.isEmpty {
            // exiftool shows the target, unless it read no orientation in the mutant either: it
            // stops reading an IFD at the first entry it cannot read (a count past the end),
            // where libtiff and vidorient step over that entry.
            let before = try FixScratchTool.exiftool(fixed.map(\.before))
            for (index, read) in try FixScratchTool.exiftool(fixed.map(\.path)).enumerated() {
                if read == nil && before[index] == nil {
                    tally.unreadableByExiftool += 1
                    continue
                }
                #expect(read == Self.target, "\(fixed[index].what): exiftool reads \(String(describing: read))")
            }
        }
        print("mutated fix \(base.label) (1 mutant in \(Self.share)): \(tally)")
        #expect(tally.attempts == mutants.count && tally.attempts > 20 / max(1, Self.share))
    }

    /// normalize on the mutants of the formats it turns losslessly (JPEG, PNG, lossless WebP):
    /// a success shows orientation 1 and holds the pixels the original displayed (jpegtran's for
    /// JPEG, the decoded picture turned here for PNG and WebP); a refusal is one line.
    @Test(.enabled(if: tools()), arguments: Base.all.filter { ["jpeg", "png", "webp"].contains($0.format) })
    func normalizeOnMutants(base: Base) throws {
        let (folder, mutants) = try Self.mutants(of: base, in: "normalize-mutants")
        defer { try? FileManager.default.removeItem(at: folder) }
        var tally = Tally()
        for (index, mutant) in mutants.enumerated() {
            let what = "\(base.label) \(mutant.name)"
            let path = folder.appendingPathComponent("n\(index).\(base.ext)").path
            let original = Data(mutant.bytes)
            try original.write(to: URL(fileURLWithPath: path))
            let copy = folder.appendingPathComponent("original.\(base.ext)").path
            try? FileManager.default.removeItem(atPath: copy)
            try original.write(to: URL(fileURLWithPath: copy))
            tally.attempts += 1
            let run = try Run.vidorient(["normalize", "--json", path])
            guard try tally.count(run, path: path, original: original, folder: folder, what: what) else { continue }
            let object = try #require(run.json as? [String: Any], "\(what): \(run.stdout)")
            guard object["status"] as? String == "normalized", let n = object["orientation_before"] as? Int else {
                // Already upright: nothing written.
                #expect(try FixFixture.contents(path) == original, "\(what): \(object)")
                continue
            }
            let orientation = try NormalizeFixture.exifOrientation(path)
            #expect(orientation == "1" || orientation.isEmpty, "\(what): exiftool reads \(orientation)")
            if base.format == "jpeg" {
                let reference = folder.appendingPathComponent("jpegtran.jpg").path
                // jpegtran warns (exit 2) about stray bytes it steps over, as normalize does;
                // about anything else (damaged compressed data) normalize must have refused.
                let options = NormalizeFixture.jpegtran[n]!.joined(separator: " ")
                let made = try VidorientTestSupport.run(
                    "sh", ["-c", "jpegtran -perfect -copy none \(options) '\(copy)' > '\(reference)'"])
                #expect(
                    made.status == 0
                        || made.stderr.split(separator: "\n").allSatisfy { $0.contains("extraneous bytes") },
                    "\(what): normalized, but jpegtran says \(made.stderr)")
                #expect(
                    try VidorientTestSupport.run("djpeg", ["-ppm", path]).stdout
                        == (try VidorientTestSupport.run("djpeg", ["-ppm", reference]).stdout), "\(what)"
                )
            } else {
                let stored = try NormalizeFixture.decode(copy, pixelFormat: "rgba")
                let now = try NormalizeFixture.decode(path, pixelFormat: "rgba")
                #expect(now.pixels == NormalizeFixture.displayed(n, stored, bytesPerPixel: 4), "\(what)")
            }
        }
        print(
            "mutated normalize \(base.label) (1 mutant in \(Self.share)): \(tally.attempts) attempts, \(tally.successes) successes, \(tally.refusals) refusals"
        )
        #expect(tally.attempts == mutants.count && tally.attempts > 20 / max(1, Self.share))
    }
}

extension MutatedPhotoTests {
    /// The two defects this round found, named: normalize kept the made-up blocks of a JPEG whose
    /// compressed data libjpeg reports damaged; fix wrote an orientation exiftool cannot see
    /// behind an APP1 of length 1.
    @Test(arguments: [
        (
            "normalize", "flipped-anywhere-4",
            "the jpeg's compressed data is damaged (libjpeg: corrupt jpeg data: bad huffman code)"
        ),
        ("fix", "jpeg-app1-length-1", "the file is damaged: the app1 segment at offset 2 has length 1"),
    ])
    func damagedJPEGsAreRefused(command: String, mutation: String, reason: String) throws {
        let folder = try FixFixture.folder("damaged-jpeg")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sample = [UInt8](try FixFixture.contents(Run.media("orient-6.jpg")))
        let mutant = try #require(PhotoMutations.all(of: sample, format: "jpeg").first { $0.name == mutation })
        let path = folder.appendingPathComponent("damaged.jpg").path
        try Data(mutant.bytes).write(to: URL(fileURLWithPath: path))
        let run = try Run.vidorient([command, path] + (command == "fix" ? ["--orientation", "3"] : []))
        try Self.checkRefusal(run, path: path, original: Data(mutant.bytes), folder: folder, what: mutation)
        #expect(run.stderr.contains(reason), "\(run.stderr)")
    }
}

extension MutatedPhotoTests {
    /// Decompression bombs: orient-6.jpg whose frame header claims `side`×`side` pixels while its
    /// scan codes 96×160. Not among the mutants' bases, as the reference decoder would write the
    /// whole claimed picture. fix changes a tag and decodes nothing: it succeeds and the tag reads
    /// back, or refuses in one line. normalize refuses in one line, the file untouched: over the
    /// decoders' pixel limit before anything is allocated (60000²), or for the data's premature
    /// end (8000²), never writing a picture made up of grey.
    @Test(arguments: [60000, 8000])
    func decompressionBombs(side: Int) throws {
        let folder = try FixFixture.folder("bomb")
        defer { try? FileManager.default.removeItem(at: folder) }
        var bytes = [UInt8](try FixFixture.contents(Run.media("orient-6.jpg")))
        let frame = try #require(PhotoMutations.jpegSegment(bytes, marker: 0xC0))
        for at in [frame.lowerBound + 5, frame.lowerBound + 7] {  // the height, then the width
            bytes[at] = UInt8(side >> 8)
            bytes[at + 1] = UInt8(side & 0xFF)
        }
        let path = folder.appendingPathComponent("bomb.jpg").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let inspect = try Run.vidorient(["inspect", "--json", path])
        let photo = (inspect.json as? [String: Any])?["photo"] as? [String: Any]
        #expect(photo?["stored_width"] as? Int == side, "\(inspect.stdout)")

        let normalize = try Run.vidorient(["normalize", path])
        try Self.checkRefusal(normalize, path: path, original: Data(bytes), folder: folder, what: "normalize \(side)")

        let fix = try Run.vidorient(["fix", path, "--orientation", "\(Self.target)"])
        if fix.status == 0 {
            let shown = try FixScratchTool.exiftool([path]).first ?? nil
            #expect(shown == Self.target, "fix \(side): exiftool reads \(String(describing: shown))")
        } else {
            try Self.checkRefusal(fix, path: path, original: Data(bytes), folder: folder, what: "fix \(side)")
        }
    }
}

/// exiftool's IFD0 (else XMP) Orientation of each file, in one run.
enum FixScratchTool {
    static func exiftool(_ paths: [String]) throws -> [Int?] {
        let result = try run("exiftool", ["-j", "-n", "-Orientation"] + paths)
        let list = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        return list.map { $0["Orientation"] as? Int }
    }
}

/// The pixel decoders on hostile bytes (issue 32, round 9: libpng through its own C wrapper, libwebp
/// shrinking as it decodes, libjpeg-turbo): bytes flipped, runs overwritten, bytes inserted and the
/// file cut short, anywhere in a PNG (8-bit, and 16-bit RGBA interlaced), a lossy and a lossless
/// WebP and a JPEG, 40 of each, seeded. Every `thumbnail` either makes a picture of the size asked
/// or says one line naming the file, exit status 2; none crashes or hangs.
@Suite struct MutatedPixelsTests {
    @Test func everyMutantGivesAPictureOrOneLine() throws {
        let folder = try TemporaryFolder("mutated-pixels")
        defer { folder.remove() }
        let kinds = try run("python3", ["-c", PhotoKindsTests.pngKinds, folder.path])
        try #require(kinds.status == 0, "\(kinds.stderr)")
        var sources = [
            Run.media("orient-6.png"), folder.path("rgba-16-interlaced.png"), Run.media("orient-6.webp"),
            Run.media("orient-6.jpg"),
        ]
        let lossless = folder.path("lossless.webp")
        let made = try run("cwebp", ["-quiet", "-lossless", Run.media("orient-6.png"), "-o", lossless])
        try #require(made.status == 0, "\(made.stderr)")
        sources.append(lossless)
        var generator = SplitMix64(state: 32)
        var outcomes: [Int32: Int] = [:]
        for (number, source) in sources.enumerated() {
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
            let ext = (source as NSString).pathExtension
            for index in 0..<40 {
                var bytes = original
                let at = Int.random(in: 8..<bytes.count, using: &generator)
                switch index % 4 {
                case 0:
                    for _ in 0..<Int.random(in: 1...8, using: &generator) {
                        bytes[Int.random(in: 8..<bytes.count, using: &generator)] = UInt8.random(
                            in: 0...255, using: &generator)
                    }
                case 1: bytes.removeSubrange(at...)
                case 2:
                    for offset in at..<min(bytes.count, at + 4) {
                        bytes[offset] = UInt8.random(in: 0...255, using: &generator)
                    }
                default:
                    bytes.insert(
                        contentsOf: (0..<Int.random(in: 1...64, using: &generator)).map { _ in
                            UInt8.random(in: 0...255, using: &generator)
                        }, at: at)
                }
                let path = folder.path("mutant-\(number)-\(index).\(ext)")
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let output = folder.path("mutant-\(number)-\(index)-out.png")
                let thumbnail = try Run.vidorient(["thumbnail", path, "-o", output, "--width", "32"])
                outcomes[thumbnail.status, default: 0] += 1
                let label = "\((source as NSString).lastPathComponent) mutant \(index)"
                #expect(thumbnail.status == 0 || thumbnail.status == 2, "\(label): \(thumbnail.stderr)")
                if thumbnail.status == 0 {
                    let picture = try DecodedRGB(decoding: output)
                    #expect(picture.width == 32, "\(label)")
                } else {
                    #expect(
                        thumbnail.stderrLines.count == 1 && thumbnail.stderr.contains(path),
                        "\(label): \(thumbnail.stderr)")
                    #expect(!FileManager.default.fileExists(atPath: output), "\(label)")
                }
            }
        }
        // Both outcomes happen: damage a decoder steps over, and damage it refuses.
        #expect(outcomes[0, default: 0] > 20 && outcomes[2, default: 0] > 20, "\(outcomes)")
    }
}
