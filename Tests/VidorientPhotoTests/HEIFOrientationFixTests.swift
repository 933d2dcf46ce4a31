import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientPhoto
import VidorientTestSupport

/// `HEIFOrientationFix` on real files: each plan is applied in memory, written, and read back by
/// our reader, by libheif (heif-convert's picture against the original's, turned by hand), by
/// exiftool, and compared byte for byte with the original.
@Suite struct HEIFOrientationFixTests {
    /// The generated HEICs and AVIFs with their orientation (manifest.json): both of each
    /// orientation in a large round (`LargeRounds`), else the HEIC of the odd ones and the AVIF of
    /// the even ones; the four built for a case of their own always.
    static let generated: [FixCase] =
        (1...8).flatMap { n in
            (LargeRounds.enabled ? ["heic", "avif"] : [n % 2 == 1 ? "heic" : "avif"]).map {
                FixCase(path: TestMedia.path("orient-\(n).\($0)"), orientation: n)
            }
        } + [
            FixCase(path: TestMedia.path("heic-meta-last.heic"), orientation: 6),
            FixCase(path: TestMedia.path("heic-exif-conflict.heic"), orientation: 6, exif: true),
            FixCase(path: TestMedia.path("heic-thumbnail-6.heic"), orientation: 6),
            FixCase(path: TestMedia.path("heic-thumbnail-shared-5.heic"), orientation: 5),
        ]

    @Test(.enabled(if: isInstalled("heif-convert") && isInstalled("ffmpeg")), arguments: generated, LargeRounds.targets)
    func generatedFilesShowEachTarget(file: FixCase, target: Int) throws {
        try check(file, target: target, exif: file.exif)
    }

    /// Which generated files change bytes only: those whose irot/imir can express the target
    /// (written from the files' construction, not from the planner): any rotation needs an irot,
    /// a mirror needs an imir and an unmirrored target needs none.
    @Test(arguments: 1...8, 1...8)
    func sameLengthExactlyWhenThePropertiesSuffice(start: Int, target: Int) throws {
        let hasIrot = [3, 5, 6, 7, 8].contains(start), hasImir = [2, 4, 5, 7].contains(start)
        let targetMirrored = [2, 4, 5, 7].contains(target)
        let reachable = hasIrot || (hasImir ? [2, 4] : [1]).contains(target)
        let expected = targetMirrored == hasImir && reachable
        for container in ["heic", "avif"] {
            let bytes = try Array(
                Data(contentsOf: URL(fileURLWithPath: TestMedia.path("orient-\(start).\(container)"))))
            let plan = try HEIFOrientationFix.plan(MemoryBytes(bytes), target: try #require(Orientation(exif: target)))
            #expect(plan.edit.keepsLength == expected, "\(container) \(start) -> \(target): \(plan.places)")
            #expect(plan.before == Orientation(exif: start))
            #expect(plan.edit.isEmpty == (start == target))
            if expected { #expect(plan.edit.bytesChanged <= 2, "\(plan.places)") }
        }
    }

    /// exiftool adds an Exif item (IFD0 Orientation) and an XMP item (tiff:Orientation) to copies
    /// of the generated HEICs; the fix keeps both equal to the target. Item 1's data there has a
    /// non-zero base_offset and the others extent offsets: both kinds of iloc shift are exercised.
    @Test(
        .enabled(if: isInstalled("heif-convert") && isInstalled("ffmpeg") && isInstalled("exiftool")),
        arguments: [1, 2, 6, 7], LargeRounds.targets)
    func exifAndXMPFollowTheTarget(start: Int, target: Int) throws {
        let folder = try Scratch("heif-exif")
        defer { folder.remove() }
        let path = try folder.copy(TestMedia.path("orient-\(start).heic"), as: "with-metadata.heic")
        let written = try run(
            "exiftool",
            ["-q", "-overwrite_original", "-n", "-IFD0:Orientation=\(start)", "-XMP-tiff:Orientation=\(start)", path])
        #expect(written.status == 0, "\(written.stderr)")
        let file = FixCase(path: path, orientation: start, exif: true, picture: TestMedia.path("orient-\(start).heic"))
        try check(file, target: target, exif: true, xmp: true)
    }

    /// Real phone files (../shared/media): an iPhone grid with irot 0 and a thumbnail, a Samsung
    /// motion photo with meta after mdat, an AVIF without irot or imir.
    static let shared: [FixCase] = [
        FixCase(path: SharedMedia.path("IMG_2682.heic"), orientation: 1, exif: true),
        FixCase(path: SharedMedia.path("samsung-one-ui-6.heic"), orientation: 6, exif: true),
        FixCase(path: SharedMedia.path("8bit-sRGB.avif"), orientation: 1),
    ]

    @Test(
        .enabled(if: SharedMedia.isPresent && isInstalled("heif-convert") && isInstalled("ffmpeg")), arguments: shared,
        LargeRounds.phoneTargets)
    func phoneFilesShowEachTarget(file: FixCase, target: Int) throws {
        try #require(FileManager.default.fileExists(atPath: file.path))
        try check(file, target: target, exif: file.exif, scaled: true)
    }

    /// The samsung file's motion video is still found and read after its meta box grows.
    @Test(.enabled(if: SharedMedia.isPresent)) func motionPhotoKeepsItsVideo() throws {
        let path = SharedMedia.path("samsung-one-ui-6.heic")
        let original = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let plan = try HEIFOrientationFix.plan(MemoryBytes(original), target: .upMirrored)
        #expect(!plan.edit.keepsLength)
        let fixed = plan.edit.applied(to: original)
        let before = try HEIFStructure(MemoryBytes(original)), after = try HEIFStructure(MemoryBytes(fixed))
        let video = try #require(after.motionVideoRange), oldVideo = try #require(before.motionVideoRange)
        #expect(
            fixed[Int(video.lowerBound)..<Int(video.upperBound)]
                == original[Int(oldVideo.lowerBound)..<Int(oldVideo.upperBound)])
        #expect(after.motionVideoProbe(path: path, source: MemoryBytes(fixed)) != nil)
    }

    /// Hostile and broken files: one PhotoFormatError with a reason, never a crash.
    @Test(arguments: [
        "bad-meta-truncated.heic", "bad-iloc-past-end.heic", "bad-random.mp4", "bad-empty.mp4", "orient-6.jpg",
    ])
    func badFilesThrowOneReason(name: String) throws {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: TestMedia.path(name))))
        let error = try #require(throws: PhotoFormatError.self) {
            try HEIFOrientationFix.plan(MemoryBytes(bytes), target: .right)
        }
        #expect(!error.reason.isEmpty)
    }

    /// Every prefix of a HEIC and bytes flipped through its meta box: a reason or a plan whose
    /// splices match the bytes, never a crash.
    @Test func truncatedAndCorruptedFilesAreRefusedOrPlannedSafely() throws {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: TestMedia.path("orient-7.heic"))))
        let meta = try HEIFStructure(MemoryBytes(bytes)).meta
        var refused = 0
        for length in stride(from: 0, to: bytes.count, by: 3) {
            do {
                let plan = try HEIFOrientationFix.plan(MemoryBytes(Array(bytes.prefix(length))), target: .left)
                #expect(plan.edit.matches(Array(bytes.prefix(length))))
            } catch { refused += 1 }
        }
        #expect(refused > 0)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<400 {
            var corrupted = bytes
            for _ in 0..<3 {
                corrupted[Int(meta.offset) + Int.random(in: 0..<Int(meta.size), using: &generator)] = UInt8.random(
                    in: 0...255, using: &generator)
            }
            if let plan = try? HEIFOrientationFix.plan(MemoryBytes(corrupted), target: .upMirrored) {
                #expect(plan.edit.matches(corrupted))
            }
        }
    }

    // MARK: The checks

    /// Plans `target` for `file`, applies it, and checks the written file every way there is.
    func check(_ file: FixCase, target number: Int, exif: Bool = false, xmp: Bool = false, scaled: Bool = false) throws
    {
        let target = try #require(Orientation(exif: number))
        let original = try Array(Data(contentsOf: URL(fileURLWithPath: file.path)))
        let plan = try HEIFOrientationFix.plan(MemoryBytes(original), target: target)
        #expect(plan.before == Orientation(exif: file.orientation))
        #expect(plan.after == target)
        #expect(plan.edit.matches(original))
        let fixed = plan.edit.applied(to: original)
        #expect(plan.edit.inverse.applied(to: fixed) == original)
        #expect(Int64(fixed.count) == Int64(original.count) + plan.edit.sizeChange)
        #expect(plan.edit.isEmpty == plan.places.isEmpty, "\(plan.places)")

        let folder = try Scratch("heif-fix")
        defer { folder.remove() }
        let path = folder.path("fixed-\(number).\((file.path as NSString).pathExtension)")
        try Data(fixed).write(to: URL(fileURLWithPath: path))

        // (a) Our reader shows the target; a second plan has nothing left to do.
        let evidence = try PhotoReader.read(path: path)
        var findings: [Finding] = []
        let report = PhotoReport(evidence: evidence, findings: &findings)
        #expect(report.orientation == target, "\(plan.places)")
        #expect(try HEIFOrientationFix.plan(MemoryBytes(fixed), target: target).edit.isEmpty)

        // (b) libheif shows the original picture turned from its orientation to the target.
        let info = try run("heif-info", [path])
        #expect(info.status == 0, "\(info.stderr)")
        let before = try RGBPicture.original(file.picture ?? file.path, scaled: scaled)
        let after = try RGBPicture(shownBy: path, in: folder, scaled: scaled)
        let expected = before.displayed(undoing: file.orientation).displayed(as: number)
        #expect(after.width == expected.width && after.height == expected.height, "\(plan.places)")
        if after.width == expected.width && after.height == expected.height {
            #expect(after.meanDifference(expected) < (scaled ? 12 : 4), "\(plan.places)")
            if !scaled { #expect(after.quadrants == expected.quadrants) }
        }

        // (c) exiftool reads the target from the Exif item (and the XMP item).
        if exif || xmp {
            let tool = try run("exiftool", ["-j", "-n", "-IFD0:Orientation", "-XMP-tiff:Orientation", path])
            let fields = (try JSONSerialization.jsonObject(with: tool.stdout) as? [[String: Any]])?.first ?? [:]
            if exif { #expect(fields["Orientation"] as? Int == number, "\(fields)") }
            let xmpValue = try run("exiftool", ["-s3", "-n", "-XMP-tiff:Orientation", path])
            if xmp {
                #expect(
                    String(decoding: xmpValue.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                        == "\(number)")
            }
        }

        // (d) Only the planned bytes changed; when the length changed, every item's data and the
        // media data are byte-identical.
        if plan.edit.keepsLength {
            let planned = Set(
                plan.edit.splices.flatMap { splice in
                    splice.old.indices.filter { splice.old[$0] != splice.new[$0] }.map { Int(splice.offset) + $0 }
                })
            let differing = Set(zip(original, fixed).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset))
            #expect(differing == planned)
            // Two transform bytes for the primary item and two for each thumbnail item at most.
            let structure = try HEIFStructure(MemoryBytes(original))
            let items = 1 + structure.referring(to: structure.primaryItemID, type: "thmb").count
            #expect(differing.count <= 2 * items + (exif ? 2 : 0) + (xmp ? 1 : 0), "\(plan.places)")
        } else {
            let old = try HEIFStructure(MemoryBytes(original)), new = try HEIFStructure(MemoryBytes(fixed))
            #expect(old.items.map(\.id) == new.items.map(\.id))
            for item in old.items where item.constructionMethod != 2 {
                let oldData = try old.data(of: item.id, in: MemoryBytes(original), limit: 64 << 20)
                let newData = try new.data(of: item.id, in: MemoryBytes(fixed), limit: 64 << 20)
                // The Exif and XMP items differ only in their orientation bytes.
                let differences = zip(oldData, newData).filter { $0 != $1 }.count
                #expect(
                    oldData.count == newData.count && differences <= (["Exif", "mime"].contains(item.type) ? 2 : 0),
                    "item \(item.id)")
            }
            let oldMdat = try #require(old.topLevelBoxes.first { $0.type == "mdat" })
            let newMdat = try #require(new.topLevelBoxes.first { $0.type == "mdat" })
            #expect(oldMdat.size == newMdat.size)
            let mediaDiffers = zip(
                original[Int(oldMdat.offset)..<Int(oldMdat.offset + oldMdat.size)],
                fixed[Int(newMdat.offset)..<Int(newMdat.offset + newMdat.size)]
            )
            .filter { $0 != $1 }.count
            #expect(mediaDiffers <= (exif ? 2 : 0) + (xmp ? 1 : 0))
        }
    }
}

/// A file to fix and the orientation it shows.
struct FixCase: Sendable, CustomTestStringConvertible {
    let path: String
    let orientation: Int
    /// Whether the file has an Exif item with an Orientation tag.
    var exif = false
    /// A file that shows the same picture (decoded once for many copies); nil for `path` itself.
    var picture: String? = nil
    var testDescription: String { (path as NSString).lastPathComponent }
}

/// A fresh folder under the temporary directory.
private struct Scratch {
    let url: URL

    init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vidorient-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func copy(_ source: String, as name: String) throws -> String {
        try FileManager.default.copyItem(atPath: source, toPath: path(name))
        return path(name)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The originals' pictures, decoded once for all their targets.
private final class DecodedOriginals: @unchecked Sendable {
    let lock = NSLock()
    var pictures: [String: RGBPicture] = [:]
    static let shared = DecodedOriginals()

    func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

/// A picture as libheif shows it (heif-convert applies irot, imir and clap), decoded to RGB by
/// ffmpeg; turned by hand, independently of the code under test.
private struct RGBPicture {
    var width: Int, height: Int
    var pixels: [UInt8]

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// heif-convert's picture of `path`; `scaled` shrinks it to at most 96 pixels a side.
    /// `thumbnail`: heif-thumbnailer's picture instead, which is the primary item's thumbnail
    /// item with the thumbnail's own irot/imir applied (libheif 1.15 takes the thumbnail item
    /// whatever its size).
    /// `decodedByFFmpeg`: `path` is a picture ffmpeg reads as it is (a PNG).
    init(shownBy path: String, in folder: Scratch, scaled: Bool, thumbnail: Bool = false, decodedByFFmpeg: Bool = false)
        throws
    {
        var png = path
        if !decodedByFFmpeg {
            png = folder.path("shown-\(UInt32.random(in: 0...UInt32.max)).png")
            let converted =
                try thumbnail
                ? run("heif-thumbnailer", ["-s", "1024", path, png]) : run("heif-convert", [path, png])
            guard converted.status == 0 else {
                throw ToolError(message: "heif-convert \(path): \(converted.stderr)")
            }
        }
        let filter = scaled ? ["-vf", "scale=96:96:force_original_aspect_ratio=decrease:flags=area"] : []
        let decoded = try DecodedRGB(decoding: png, filter: filter)
        self.init(width: decoded.width, height: decoded.height, pixels: decoded.pixels)
    }

    static func original(_ path: String, scaled: Bool) throws -> RGBPicture {
        // The lock is never held while a tool runs (a test waiting on it would hold a thread of
        // the shared pool); two tests may decode the same original at once, which is harmless.
        let cache = DecodedOriginals.shared
        if let picture = cache.withLock({ cache.pictures[path] }) { return picture }
        let folder = try Scratch("heif-original")
        defer { folder.remove() }
        let picture = try RGBPicture(shownBy: path, in: folder, scaled: scaled)
        cache.withLock { cache.pictures[path] = picture }
        return picture
    }

    func pixel(_ x: Int, _ y: Int) -> ArraySlice<UInt8> { pixels[(y * width + x) * 3..<(y * width + x) * 3 + 3] }

    /// Left and right swapped.
    var mirrored: RGBPicture {
        var out: [UInt8] = []
        for y in 0..<height { for x in 0..<width { out += pixel(width - 1 - x, y) } }
        return RGBPicture(width: width, height: height, pixels: out)
    }

    /// Turned a quarter clockwise: the left column becomes the top row.
    var turnedClockwise: RGBPicture {
        var out: [UInt8] = []
        for y in 0..<width { for x in 0..<height { out += pixel(y, height - 1 - x) } }
        return RGBPicture(width: height, height: width, pixels: out)
    }

    /// EXIF orientation n as (mirror first, then clockwise quarter turns): the conventions' table.
    static let table: [Int: (mirror: Bool, turns: Int)] = [
        1: (false, 0), 2: (true, 0), 3: (false, 2), 4: (true, 2), 5: (true, 3), 6: (false, 1), 7: (true, 1),
        8: (false, 3),
    ]

    /// A stored picture as orientation `n` displays it.
    func displayed(as n: Int) -> RGBPicture {
        let (mirror, turns) = Self.table[n]!
        var picture = mirror ? mirrored : self
        for _ in 0..<turns { picture = picture.turnedClockwise }
        return picture
    }

    /// The stored picture that orientation `n` displays as this one.
    func displayed(undoing n: Int) -> RGBPicture {
        let (mirror, turns) = Self.table[n]!
        var picture = self
        for _ in 0..<(4 - turns) % 4 { picture = picture.turnedClockwise }
        return mirror ? picture.mirrored : picture
    }

    func meanDifference(_ other: RGBPicture) -> Double {
        Double(zip(pixels, other.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(max(1, pixels.count))
    }

    /// The colour nearest the centre pixel of each quadrant, [row][column].
    var quadrants: [[String]] {
        let colours: [(String, [Int])] = [
            ("red", [255, 0, 0]), ("green", [0, 255, 0]), ("blue", [0, 0, 255]), ("white", [255, 255, 255]),
        ]
        return (0..<2).map { row in
            (0..<2).map { column in
                let rgb = pixel(width * (2 * column + 1) / 4, height * (2 * row + 1) / 4).map { Int($0) }
                let best = colours.min { a, b in
                    zip(a.1, rgb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
                        < zip(b.1, rgb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
                }!
                return zip(best.1, rgb).allSatisfy { abs($0 - $1) <= 48 } ? best.0 : "unclear"
            }
        }
    }
}

/// Issue 24: a HEIC's thumbnail items (`thmb`) turn with its primary item. Each thumbnail gets its
/// own current orientation followed by the primary's change, whether it has its own `irot`/`imir`
/// (Samsung, `heic-thumbnail-6.heic`) or shares the primary's (iPhone, `IMG_2682.heic`,
/// `heic-thumbnail-shared-5.heic`); checked by our reader, heif-info, heif-thumbnailer (the
/// thumbnail item decoded and turned by libheif), exiftool -a and inspect; undone byte for byte.
@Suite struct HEIFThumbnailFixTests {
    static let tools = isInstalled("heif-info") && isInstalled("heif-thumbnailer") && isInstalled("exiftool")

    static let generated: [FixCase] = [
        FixCase(path: TestMedia.path("heic-thumbnail-6.heic"), orientation: 6),
        FixCase(path: TestMedia.path("heic-thumbnail-shared-5.heic"), orientation: 5),
    ]

    @Test(.enabled(if: tools && isInstalled("ffmpeg")), arguments: generated, LargeRounds.targets)
    func generatedThumbnailsTurnWithThePrimary(file: FixCase, target: Int) throws {
        try checkThumbnails(file, target: target, scaled: false)
    }

    static let shared: [FixCase] = [
        FixCase(path: SharedMedia.path("IMG_2682.heic"), orientation: 1),
        FixCase(path: SharedMedia.path("samsung-one-ui-6.heic"), orientation: 6),
    ]

    @Test(
        .enabled(if: SharedMedia.isPresent && tools && isInstalled("ffmpeg")), arguments: shared,
        LargeRounds.phoneTargets)
    func phoneThumbnailsTurnWithThePrimary(file: FixCase, target: Int) throws {
        try #require(FileManager.default.fileExists(atPath: file.path))
        try checkThumbnails(file, target: target, scaled: true)
    }

    /// The change, not the value: a thumbnail that shows another orientation than its primary
    /// (its own irot made 0 here) keeps its difference: it gets its own orientation followed by
    /// the primary's change.
    @Test(arguments: 1...8)
    func aThumbnailThatDiffersGetsTheSameChange(target: Int) throws {
        let stale = try Self.staleCopy(TestMedia.path("heic-thumbnail-6.heic"))
        let plan = try HEIFOrientationFix.plan(MemoryBytes(stale), target: try #require(Orientation(exif: target)))
        let fixed = try HEIFStructure(MemoryBytes(plan.edit.applied(to: stale)))
        let thumbnail = try #require(fixed.referring(to: fixed.primaryItemID, type: "thmb").first)
        // The primary showed 6 and now shows `target`: the change is 6's inverse followed by it.
        let change = Orientation.right.inverse.followed(by: try #require(Orientation(exif: target)))
        #expect(fixed.item(thumbnail)?.orientation == Orientation.up.followed(by: change), "\(plan.places)")
        #expect(plan.edit.inverse.applied(to: plan.edit.applied(to: stale)) == stale)
    }

    /// inspect's `thumbnail-shape-differs` fires on a file whose thumbnail is shown turned a
    /// quarter from its primary (heif-info agrees that it is), and on none of TestMedia's HEIF
    /// files or the phone files, where libheif shows each thumbnail the primary's shape.
    @Test(.enabled(if: isInstalled("heif-info")))
    func inspectFlagsAThumbnailTurnedTheOldWay() throws {
        var stale = [("heic-thumbnail-6.heic", try Self.staleCopy(TestMedia.path("heic-thumbnail-6.heic")))]
        if SharedMedia.isPresent {
            let samsung = SharedMedia.path("samsung-one-ui-6.heic")
            stale.append(("samsung-one-ui-6.heic", try Self.staleCopy(samsung)))
        }
        let folder = try Scratch("heif-thumbnail-stale")
        defer { folder.remove() }
        for (name, bytes) in stale {
            let path = folder.path("stale-\(name)")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let info = try HeifInfo(path)
            #expect(info.thumbnail.map { ($0.width > $0.height) != (info.primary.width > info.primary.height) } == true)
            let findings = try Self.findings(path)
            let finding = try #require(findings.first { $0.code == "thumbnail-shape-differs" }, "\(name)")
            #expect(finding.severity == .warning)
            let size = try #require(info.thumbnail)
            #expect(finding.message.contains("\(size.width)x\(size.height)"), "\(finding.message)")
        }
        var clean = TestMedia.heif.map(\.path)
        if SharedMedia.isPresent {
            clean += ["IMG_2682.heic", "samsung-one-ui-6.heic", "8bit-sRGB.avif"].map(SharedMedia.path)
        }
        for path in clean {
            #expect(!(try Self.findings(path)).contains { $0.code == "thumbnail-shape-differs" }, "\(path)")
            let info = try HeifInfo(path)
            if let thumbnail = info.thumbnail {
                #expect((thumbnail.width > thumbnail.height) == (info.primary.width > info.primary.height), "\(path)")
            }
        }
    }

    // MARK: The checks

    func checkThumbnails(_ file: FixCase, target number: Int, scaled: Bool) throws {
        let target = try #require(Orientation(exif: number))
        let start = try #require(Orientation(exif: file.orientation))
        let original = try Array(Data(contentsOf: URL(fileURLWithPath: file.path)))
        let plan = try HEIFOrientationFix.plan(MemoryBytes(original), target: target)
        #expect(plan.edit.matches(original))
        let fixed = plan.edit.applied(to: original)
        // Undo restores the original byte for byte.
        #expect(plan.edit.inverse.applied(to: fixed) == original)

        // Our reader: the thumbnails showed what the primary showed, and now show the target.
        let before = try HEIFStructure(MemoryBytes(original)), after = try HEIFStructure(MemoryBytes(fixed))
        let thumbnails = before.referring(to: before.primaryItemID, type: "thmb")
        #expect(!thumbnails.isEmpty)
        // Their auxiliary images (alpha) and the primary's follow too.
        let auxiliary = ([before.primaryItemID] + thumbnails).flatMap { before.referring(to: $0, type: "auxl") }
        for id in thumbnails + auxiliary {
            #expect(before.item(id)?.orientation == start)
            #expect(after.item(id)?.orientation == target, "item \(id): \(plan.places)")
        }
        #expect(after.orientation == target)

        let folder = try Scratch("heif-thumbnail-fix")
        defer { folder.remove() }
        let path = folder.path("fixed-\(number).heic")
        try Data(fixed).write(to: URL(fileURLWithPath: path))

        // heif-info prints the thumbnail as shown (after its own irot): turned as the primary.
        let oldInfo = try HeifInfo(file.path), newInfo = try HeifInfo(path)
        let oldThumbnail = try #require(oldInfo.thumbnail), newThumbnail = try #require(newInfo.thumbnail)
        let swaps = start.swapsDimensions != target.swapsDimensions
        let expectedThumbnail: [Int] =
            swaps ? [oldThumbnail.height, oldThumbnail.width] : [oldThumbnail.width, oldThumbnail.height]
        #expect([newThumbnail.width, newThumbnail.height] == expectedThumbnail)
        #expect((newThumbnail.width > newThumbnail.height) == (newInfo.primary.width > newInfo.primary.height))

        // heif-thumbnailer decodes the thumbnail item and applies its transforms: the thumbnail
        // as it was shown, turned from the old orientation to the target.
        let shownBefore = try RGBPicture(shownBy: file.path, in: folder, scaled: scaled, thumbnail: true)
        let shownAfter = try RGBPicture(shownBy: path, in: folder, scaled: scaled, thumbnail: true)
        let expected = shownBefore.displayed(undoing: file.orientation).displayed(as: number)
        #expect(shownAfter.width == expected.width && shownAfter.height == expected.height, "\(plan.places)")
        if shownAfter.width == expected.width && shownAfter.height == expected.height {
            #expect(shownAfter.meanDifference(expected) < (scaled ? 12 : 6), "\(plan.places)")
            if !scaled {
                #expect(shownAfter.quadrants == expected.quadrants)
            }
        }

        if !auxiliary.isEmpty { try Self.expectAlphaOnTheWhiteQuadrant(path, in: folder) }

        // exiftool -a reads one Rotation per irot box: every one agrees, and without a mirror it
        // is the target's turn (anticlockwise degrees).
        let tool = try run("exiftool", ["-a", "-n", "-s3", "-Rotation", path])
        let rotations = String(decoding: tool.stdout, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        #expect(Set(rotations).count <= 1, "\(rotations)")
        if !target.isMirrored {
            #expect(rotations.allSatisfy { $0 == (360 - target.rotation) % 360 }, "\(rotations)")
        }

        // inspect: the thumbnail's shape agrees with the primary's.
        #expect(!(try Self.findings(path)).contains { $0.code == "thumbnail-shape-differs" })
    }

    /// A HEIC with alpha images (the primary's and its thumbnail's, `auxl`), made here by
    /// heif-enc from an upright RGBA picture whose white quadrant is half transparent: fixed to
    /// each target, every alpha image turns with its master, so libheif keeps the alpha plane (it
    /// drops one that does not come out its master's shape: heif-info said "alpha channel: no"
    /// and heif-convert's picture was opaque) and it stays on the same pixels.
    @Test(
        .enabled(if: isInstalled("heif-enc") && isInstalled("heif-convert") && isInstalled("ffmpeg")),
        arguments: [2, 3, 5, 6, 8])
    func alphaImagesTurnWithTheirMaster(target number: Int) throws {
        let target = try #require(Orientation(exif: number))
        let folder = try Scratch("heif-alpha")
        defer { folder.remove() }
        let png = folder.path("upright.png"), path = folder.path("alpha.heic")
        let quadrant = "s=80x48"
        let drawn = try run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-filter_complex",
                "color=c=0xFF0000:\(quadrant)[a];color=c=0x00FF00:\(quadrant)[b];color=c=0x0000FF:\(quadrant)[c];"
                    + "color=c=0xFFFFFF:\(quadrant)[d];[a][b][c][d]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0,format=rgba,"
                    + "geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(gt(r(X,Y)+g(X,Y)+b(X,Y),600),128,255)'",
                "-frames:v", "1", png,
            ])
        #expect(drawn.status == 0, "\(drawn.stderr)")
        #expect(try run("heif-enc", ["-q", "90", "-t", "48", png, "-o", path]).status == 0)
        let original = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let before = try HEIFStructure(MemoryBytes(original))
        let masters = [before.primaryItemID] + before.referring(to: before.primaryItemID, type: "thmb")
        let alpha = masters.flatMap { before.referring(to: $0, type: "auxl") }
        #expect(alpha.count == 2)

        let plan = try HEIFOrientationFix.plan(MemoryBytes(original), target: target)
        let fixed = plan.edit.applied(to: original)
        #expect(plan.edit.inverse.applied(to: fixed) == original)
        let after = try HEIFStructure(MemoryBytes(fixed))
        for id in masters + alpha { #expect(after.item(id)?.orientation == target, "item \(id): \(plan.places)") }
        try Data(fixed).write(to: URL(fileURLWithPath: path))
        try Self.expectAlphaOnTheWhiteQuadrant(path, in: folder)
        let shown = try RGBPicture(shownBy: path, in: folder, scaled: false)
        let upright = try RGBPicture(shownBy: png, in: folder, scaled: false, decodedByFFmpeg: true)
        #expect(shown.quadrants == upright.displayed(as: number).quadrants)
    }

    /// heif-info says the file has alpha, and in heif-convert's picture the white quadrant (and
    /// it alone) is the half-transparent one.
    fileprivate static func expectAlphaOnTheWhiteQuadrant(_ path: String, in folder: Scratch) throws {
        let text = String(decoding: try run("heif-info", [path]).stdout, as: UTF8.self)
        #expect(text.contains("alpha channel: yes"), "\(text)")
        let png = folder.path("alpha-\(UInt32.random(in: 0...UInt32.max)).png")
        #expect(try run("heif-convert", [path, png]).status == 0)
        let rgba = try RGBA(decoding: png)
        for row in 0..<2 {
            for column in 0..<2 {
                let (x, y) = (rgba.width * (2 * column + 1) / 4, rgba.height * (2 * row + 1) / 4)
                let pixel = rgba.pixel(x, y)
                let white = pixel[0] > 200 && pixel[1] > 200 && pixel[2] > 200
                #expect(white == (pixel[3] < 200), "(\(x), \(y)): \(pixel)")
            }
        }
    }

    /// The photo findings inspect reports for `path`.
    static func findings(_ path: String) throws -> [Finding] {
        var findings: [Finding] = []
        _ = PhotoReport(evidence: try PhotoReader.read(path: path), findings: &findings)
        return findings
    }

    /// A copy of `path` whose first thumbnail item's own irot is set to 0, byte for byte as a
    /// tool that turned only the primary item would leave it (the property must be the
    /// thumbnail's alone).
    static func staleCopy(_ path: String) throws -> [UInt8] {
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let structure = try HEIFStructure(MemoryBytes(bytes)), layout = try HEIFLayout(MemoryBytes(bytes))
        let thumbnail = try #require(structure.referring(to: structure.primaryItemID, type: "thmb").first)
        let indices = layout.associationBoxes.flatMap(\.entries).filter { $0.itemID == thumbnail }
            .flatMap(\.associations).map(\.propertyIndex)
        let primaryIndices = layout.associationBoxes.flatMap(\.entries).filter { $0.itemID == structure.primaryItemID }
            .flatMap(\.associations).map(\.propertyIndex)
        let irot = try #require(
            indices.first { layout.properties[$0 - 1].type == "irot" && !primaryIndices.contains($0) })
        bytes[Int(layout.properties[irot - 1].payloadOffset)] = 0
        return bytes
    }
}

/// A PNG as ffmpeg decodes it to RGBA: the alpha plane libheif wrote.
private struct RGBA {
    var width: Int, height: Int
    var pixels: [UInt8]

    init(decoding png: String) throws {
        let head = try Array(Data(contentsOf: URL(fileURLWithPath: png)).prefix(24))
        guard head.count == 24 else { throw ToolError(message: "\(png) is not a png") }
        width = head[16..<20].reduce(0) { $0 << 8 | Int($1) }
        height = head[20..<24].reduce(0) { $0 << 8 | Int($1) }
        let result = try run(
            "ffmpeg", ["-nostdin", "-v", "error", "-i", png, "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        pixels = [UInt8](result.stdout)
        guard pixels.count == width * height * 4 else { throw ToolError(message: "ffmpeg gave no rgba for \(png)") }
    }

    func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(pixels[(y * width + x) * 4..<(y * width + x) * 4 + 4]) }
}

/// What heif-info prints: the primary item's size and its first thumbnail's, both as shown
/// (after irot).
private struct HeifInfo {
    var primary: (width: Int, height: Int)
    var thumbnail: (width: Int, height: Int)?

    init(_ path: String) throws {
        let result = try run("heif-info", [path])
        let text = String(decoding: result.stdout, as: UTF8.self)
        func size(after label: String) -> (width: Int, height: Int)? {
            guard let range = text.range(of: label) else { return nil }
            let digits = text[range.upperBound...].prefix { $0.isNumber || $0 == "x" }.split(separator: "x")
            guard digits.count == 2, let width = Int(digits[0]), let height = Int(digits[1]) else { return nil }
            return (width, height)
        }
        guard let primary = size(after: "image: ") else {
            throw ToolError(message: "heif-info \(path): no image line: \(text) \(result.stderr)")
        }
        self.primary = primary
        thumbnail = size(after: "thumbnail: ")
    }
}
