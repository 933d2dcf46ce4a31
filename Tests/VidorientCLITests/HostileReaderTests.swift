import Foundation
import Testing
import VidorientTestSupport

/// Issue 28's reader items through the built binary: files whose numbers are hostile or merely
/// unusual, each of which killed the process, was misnamed, or was read otherwise than the
/// viewers read it.
enum HostileFiles {
    /// A little-endian TIFF structure: each IFD a list of (tag, type, count, value) entries whose
    /// value fits in the entry, linked one after the other; `magic` replaces the 42.
    static func tiff(_ ifds: [[(UInt16, UInt16, UInt32, UInt32)]], magic: [UInt8] = [0x2A, 0x00]) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var bytes: [UInt8] = [0x49, 0x49] + magic + u32(8)
        for (index, entries) in ifds.enumerated() {
            let next = index + 1 < ifds.count ? UInt32(bytes.count + 2 + 12 * entries.count + 4) : 0
            bytes += u16(UInt16(entries.count))
            for (tag, type, count, value) in entries { bytes += u16(tag) + u16(type) + u32(count) + u32(value) }
            bytes += u32(next)
        }
        return bytes
    }

    /// Issue 28 item 1's 68 bytes: two IFDs whose LONG width and height are each 0xFFFFFFFF.
    static func hugeTIFF(magic: [UInt8] = [0x2A, 0x00]) -> [UInt8] {
        let entries: [(UInt16, UInt16, UInt32, UInt32)] = [(256, 4, 1, 0xFFFF_FFFF), (257, 4, 1, 0xFFFF_FFFF)]
        return tiff([entries, entries], magic: magic)
    }

    static func write(_ bytes: [UInt8], _ name: String, in folder: TemporaryFolder) throws -> String {
        let path = folder.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

@Suite struct HostileNumberTests {
    /// Each trapped in `TIFFFileReader.Image.area` (SIGILL, exit 132): the TIFF itself and the
    /// same bytes with Olympus ORF's and Panasonic RW2's magic numbers.
    @Test(arguments: [("tiff", [0x2A, 0x00]), ("orf", [0x52, 0x4F]), ("rw2", [0x55, 0x00])] as [(String, [UInt8])])
    func aTIFFWithHugeLongDimensionsIsReadNotTrapped(name: String, magic: [UInt8]) throws {
        let folder = try TemporaryFolder("huge-\(name)")
        defer { folder.remove() }
        let path = try HostileFiles.write(HostileFiles.hugeTIFF(magic: magic), "x.\(name)", in: folder)
        let run = try Run.vidorient(["inspect", "--json", path])
        #expect(run.status == 0 || run.status == 2, "\(run.status): \(run.stderr)")
        if run.status == 2 { #expect(run.stderrLines.count == 1) }
        if run.status == 0 { #expect(run.json != nil) }
    }

    /// The audit of a folder holding the bad TIFF and a good JPEG printed nothing at all: the
    /// trap killed every worker's records. Both are reported now.
    @Test func anAuditOfTheHugeTIFFAndAGoodJPEGReportsBoth() throws {
        let folder = try TemporaryFolder("huge-audit")
        defer { folder.remove() }
        _ = try HostileFiles.write(HostileFiles.hugeTIFF(), "x.tif", in: folder)
        _ = try folder.copy(Run.media("orient-6.jpg"), as: "good.jpg")
        let run = try Run.vidorient(["audit", "--jsonl", folder.path])
        #expect(run.status == 0 || run.status == 1 || run.status == 2, "\(run.status): \(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.contains { $0.contains("good.jpg") })
        #expect(lines.contains { $0.contains("x.tif") })
    }
}

extension HostileFiles {
    /// `no-exif.jpg` with an APP1 right after SOI: `identifier` (6 bytes), then a big-endian TIFF
    /// whose IFD0 holds only an Orientation of `type` with `count` values, the first `value`.
    static func jpeg(identifier: [UInt8] = Array("Exif\0\0".utf8), type: UInt16 = 3, count: UInt32 = 1, value: Int)
        throws -> [UInt8]
    {
        let base = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.media("no-exif.jpg"))))
        func be(_ v: Int, _ size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: v >> (8 * (size - 1 - $0))) }
        }
        let field: [UInt8] =
            switch (type, count) {
            case (3, 1), (8, 1): be(value, 2) + [0, 0]
            case (3, 2): be(value, 2) + be(value, 2)
            case (1, 1): [UInt8(value), 0, 0, 0]
            default: be(value, 4)
            }
        let tiff: [UInt8] =
            Array("MM".utf8) + be(42, 2) + be(8, 4) + be(1, 2) + be(0x0112, 2) + be(Int(type), 2) + be(Int(count), 4)
            + field + be(0, 4)
        let payload = identifier + tiff
        return Array(base[0..<2]) + [0xFF, 0xE1] + be(payload.count + 2, 2) + payload + Array(base[2...])
    }

    static func inspected(_ path: String) throws -> (orientation: Int?, findings: [String]) {
        let run = try Run.vidorient(["inspect", "--json", path])
        let object = try #require(run.json as? [String: Any], "\(run.status): \(run.stderr)")
        let shown = (object["orientation"] as? [String: Any])?["exif_orientation"] as? Int
        let findings = (object["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        return (shown, findings)
    }

    /// `inspect` shows `shown` with the finding `finding`; `fix --orientation target` succeeds,
    /// and `inspect` then shows `target` without it.
    static func expectFixed(_ path: String, shown: Int, finding: String, to target: Int) throws {
        let before = try inspected(path)
        #expect(before.orientation == shown)
        #expect(before.findings.contains(finding))
        let fix = try Run.vidorient(["fix", "--orientation", "\(target)", path])
        #expect(fix.status == 0, "\(fix.stderr)")
        let after = try inspected(path)
        #expect(after.orientation == target)
        #expect(!after.findings.contains(finding))
    }
}

@Suite struct ViewerReadingTests {
    /// `Exif\0\xff`: the sixth byte is a fill byte to Chromium and exiftool, which both read 6;
    /// vidorient said 1, "decided by nothing".
    @Test func anEXIFIdentifierWithAnOddFillByteIsRead() throws {
        let folder = try TemporaryFolder("exif-fill")
        defer { folder.remove() }
        let path = try HostileFiles.write(
            try HostileFiles.jpeg(identifier: Array("Exif\0".utf8) + [0xFF], value: 6), "ff.jpg", in: folder)
        #expect(try HostileFiles.inspected(path).orientation == 6)
        // And fix finds the same block to change.
        let fix = try Run.vidorient(["fix", "--orientation", "3", path])
        #expect(fix.status == 0, "\(fix.stderr)")
        #expect(try HostileFiles.inspected(path).orientation == 3)
    }

    /// An Orientation stored as LONG, SSHORT, BYTE, or as two SHORTs: Chromium shows the picture
    /// as stored (checked: headless Chromium's `naturalWidth`), vidorient said 6. Now 1, with a
    /// finding naming the type; and `fix` writes one SHORT, which every viewer reads: it said
    /// "verified" on the LONG file while Chromium still showed it unrotated.
    @Test(arguments: [(4, 1), (8, 1), (1, 1), (3, 2)] as [(UInt16, UInt32)])
    func anOrientationNotOneShortIsWhatViewersShowAndFixWritesAShort(type: UInt16, count: UInt32) throws {
        let folder = try TemporaryFolder("orientation-type")
        defer { folder.remove() }
        let path = try HostileFiles.write(
            try HostileFiles.jpeg(type: type, count: count, value: 6), "typed.jpg", in: folder)
        try HostileFiles.expectFixed(path, shown: 1, finding: "orientation-type", to: 8)
        // The entry is one SHORT now: type 3, count 1, value 8, in the same 12 bytes.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let entry = try #require(
            (0..<bytes.count - 12).first { bytes[$0] == 0x01 && bytes[$0 + 1] == 0x12 && bytes[$0 + 2] == 0 })
        #expect(Array(bytes[entry..<entry + 10]) == [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8])
    }

    /// A PNG `eXIf` that starts `Exif\0\0` (TestMedia/png-exif-prefix.png): Chromium ignores it
    /// (exiftool reads it with a warning). Reported as shown, 1, with a finding; `fix` writes the
    /// chunk without the prefix.
    @Test func aPrefixedPNGExifIsWhatViewersShowAndFixDropsThePrefix() throws {
        let folder = try TemporaryFolder("png-prefix")
        defer { folder.remove() }
        let path = try folder.copy(Run.media("png-exif-prefix.png"), as: "p.png")
        try HostileFiles.expectFixed(path, shown: 1, finding: "png-exif-prefix", to: 6)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let chunk = try #require((0..<bytes.count - 8).first { bytes[$0..<$0 + 4].elementsEqual("eXIf".utf8) })
        #expect(bytes[chunk + 4] == UInt8(ascii: "M") || bytes[chunk + 4] == UInt8(ascii: "I"))
        if isInstalled("exiftool") {
            let tool = try run("exiftool", ["-n", "-s3", "-Orientation", "-Warning", path])
            #expect(String(decoding: tool.stdout, as: UTF8.self).split(separator: "\n") == ["6"])
        }
    }
}

@Suite struct UnsupportedFormatTests {
    /// Each went to FFmpeg: BigTIFF as a `?x?` video with a camera guess, JPEG XL as a 25 fps
    /// video, a text file as a 640x400 "ansi" video, all exit 0. Now one line, exit 2.
    @Test(
        arguments: [
            ("big.tif", Array("II+\0".utf8) + [8, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0], "bigtiff"),
            ("big-mm.tif", Array("MM\0+".utf8) + [0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16], "bigtiff"),
            ("code.jxl", [0xFF, 0x0A, 0xFA, 0x7F, 0x01, 0x90, 0x08, 0x06, 0x01, 0x00, 0x48, 0x01], "jpeg xl"),
            ("box.jxl", [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A, 0, 0, 0, 0x14], "jpeg xl"),
            ("notes.txt", Array("These are notes, not a video.\nSecond line.\n".utf8), "a text file"),
        ] as [(String, [UInt8], String)])
    func isRefusedInOneLine(name: String, bytes: [UInt8], reason: String) throws {
        let folder = try TemporaryFolder("unsupported")
        defer { folder.remove() }
        let path = try HostileFiles.write(bytes, name, in: folder)
        for command in [["inspect"], ["thumbnail", "-o", folder.path("out.png")]] {
            let run = try Run.vidorient(command + [path])
            #expect(run.status == 2, "\(command): \(run.status) \(run.stdout)")
            #expect(run.stderrLines.count == 1 && run.stderr.contains(reason), "\(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("out.png")))
    }

    /// A `.jxl` file in a folder was passed over by the walk, uncounted; it is named now.
    @Test func theWalkCountsAndNamesJPEGXL() throws {
        let folder = try TemporaryFolder("walk-jxl")
        defer { folder.remove() }
        _ = try HostileFiles.write([0xFF, 0x0A, 0xFA, 0x7F, 0x01, 0x90, 0x08, 0x06], "a.jxl", in: folder)
        _ = try folder.copy(Run.media("orient-1.jpg"), as: "b.jpg")
        let run = try Run.vidorient(["audit", "--jsonl", folder.path])
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(run.stdout)")
        #expect(lines.contains { $0.contains("a.jxl") && $0.contains("jpeg xl") })
    }
}

extension HostileFiles {
    static func be(_ v: Int, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: v >> (8 * (size - 1 - $0))) }
    }

    /// A big-endian TIFF whose IFD0 holds ImageWidth, ImageLength (LONG) and Orientation `n`.
    static func ifd0(orientation n: Int) -> [UInt8] {
        Array("MM".utf8) + be(42, 2) + be(8, 4) + be(3, 2) + be(0x0100, 2) + be(4, 2) + be(1, 4) + be(6000, 4)
            + be(0x0101, 2) + be(4, 2) + be(1, 4) + be(4000, 4) + be(0x0112, 2) + be(3, 2) + be(1, 4) + be(n, 2)
            + [0, 0] + be(0, 4)
    }

    /// A box header and payload; `claimed` makes the header claim more payload than is given.
    static func box(_ type: String, _ payload: [UInt8], claimed: Int? = nil) -> [UInt8] {
        be(8 + (claimed ?? payload.count), 4) + Array(type.utf8) + payload
    }

    static let canonUUID: [UInt8] = [
        0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48,
    ]

    /// A CR3: `ftyp crx `, `moov` holding Canon's `uuid` box with each of `cmt1s` as a `CMT1`,
    /// the last claiming `lastClaims` bytes when given (the file then ends there: sparse).
    static func cr3(_ cmt1s: [[UInt8]], lastClaims: Int? = nil) -> (bytes: [UInt8], length: Int) {
        var inner: [UInt8] = []
        for (index, cmt1) in cmt1s.enumerated() {
            inner += box("CMT1", cmt1, claimed: index == cmt1s.count - 1 ? lastClaims : nil)
        }
        let extra = (lastClaims ?? cmt1s.last!.count) - cmt1s.last!.count
        let uuid = box("uuid", canonUUID + inner, claimed: 16 + inner.count + extra)
        let moov = box("moov", uuid, claimed: uuid.count + extra)
        let bytes = box("ftyp", Array("crx ".utf8) + be(1, 4) + Array("crx isom".utf8)) + moov
        return (bytes, bytes.count + extra)
    }

    /// Writes `bytes` and extends the file to `length` with a hole: a claimed gigabyte costs 4 KiB.
    static func writeSparse(_ bytes: [UInt8], length: Int, _ name: String, in folder: TemporaryFolder) throws -> String
    {
        let path = try write(bytes, name, in: folder)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(length))
        try handle.close()
        return path
    }

    /// Peak resident kilobytes of `inspect --json path`, from GNU time, and the orientation shown.
    static func inspectPeak(_ path: String) throws -> (kilobytes: Int?, orientation: Int?, status: Int32) {
        let run = try Run.vidorient(["inspect", "--json", path], prefix: ["/usr/bin/time", "-f", "%M"])
        let object = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let shown = (object?["orientation"] as? [String: Any])?["exif_orientation"] as? Int
        let peak = run.stderrLines.last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        return (peak, shown, run.status)
    }
}

@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time"))
struct SizedReadTests {
    /// A CR3 whose `CMT1` claims 1 GiB (4 KiB on disk): inspect reached 1.04 GB of memory
    /// reading it whole. The block is read for its first 16 MiB, where IFD0 is.
    @Test func aCR3WhoseCMT1ClaimsAGigabyteStaysSmall() throws {
        let folder = try TemporaryFolder("cr3-gigabyte")
        defer { folder.remove() }
        let (bytes, length) = HostileFiles.cr3([HostileFiles.ifd0(orientation: 6)], lastClaims: 1 << 30)
        let path = try HostileFiles.writeSparse(bytes, length: length, "big.cr3", in: folder)
        let (peak, shown, status) = try HostileFiles.inspectPeak(path)
        #expect(status == 0)
        #expect(shown == 6)
        #expect(try #require(peak) < 200_000, "peak \(peak ?? 0) KiB")
    }

    /// MRW's `TTW` block the same: 1 GiB claimed, read for its first 16 MiB.
    @Test func anMRWWhoseTTWClaimsAGigabyteStaysSmall() throws {
        let folder = try TemporaryFolder("mrw-gigabyte")
        defer { folder.remove() }
        let be = HostileFiles.be
        let tiff = HostileFiles.ifd0(orientation: 8)
        let claimed = 1 << 30
        let prd =
            Array("21810002".utf8) + be(1544, 2) + be(2056, 2) + be(1536, 2) + be(2048, 2) + [12, 12, 0x59, 0] + [
                0, 0, 0, 0,
            ]
        let blocks = [0] + Array("PRD".utf8) + be(prd.count, 4) + prd + [0] + Array("TTW".utf8) + be(claimed, 4) + tiff
        let head = [0] + Array("MRM".utf8) + be(blocks.count - tiff.count + claimed, 4) + blocks
        let path = try HostileFiles.writeSparse(
            head, length: head.count - tiff.count + claimed + 64, "big.mrw", in: folder)
        let (peak, shown, status) = try HostileFiles.inspectPeak(path)
        #expect(status == 0)
        #expect(shown == 8)
        #expect(try #require(peak) < 200_000, "peak \(peak ?? 0) KiB")
    }
}

@Suite struct RepeatedBoxTests {
    /// Two `CMT1` boxes: the last won silently; exiftool takes the first. The first is read now,
    /// and the repeat is a finding.
    @Test func aCR3WithTwoCMT1ReadsTheFirstAndSaysSo() throws {
        let folder = try TemporaryFolder("cr3-twice")
        defer { folder.remove() }
        let (bytes, _) = HostileFiles.cr3([HostileFiles.ifd0(orientation: 6), HostileFiles.ifd0(orientation: 3)])
        let path = try HostileFiles.write(bytes, "two.cr3", in: folder)
        let inspected = try HostileFiles.inspected(path)
        #expect(inspected.orientation == 6)
        #expect(inspected.findings.contains("cr3-repeated-metadata"))
        if isInstalled("exiftool") {
            let tool = try run("exiftool", ["-n", "-s3", "-Orientation", path])
            #expect(String(decoding: tool.stdout, as: UTF8.self).split(separator: "\n").first == "6")
        }
    }
}

extension RepeatedBoxTests {
    /// A HEIC whose `ipma` lists the primary item twice, the second entry holding `irot 1`:
    /// vidorient and exiftool said 8, libheif reads the first entry only and shows it as
    /// stored; `fix --orientation 3` said verified while libheif still showed it unrotated.
    /// Now the first entry is read (a finding says so) and the fix edits it.
    @Test(.enabled(if: isInstalled("python3"), "needs python3 for TestMedia/heif.py"))
    func aSecondIpmaEntryForThePrimaryIsPassedOverAsLibheifDoes() throws {
        let folder = try TemporaryFolder("heif-second-entry")
        defer { folder.remove() }
        let path = try folder.copy(Run.media("orient-1.heic"), as: "two.heic")
        let made = try run(
            "python3", [Run.packageRoot.appendingPathComponent("TestMedia/heif.py").path, "second-entry", path, "1"])
        try #require(made.status == 0, "\(made.stderr)")
        // The finding stays after the fix: it turns the picture and leaves the repeated entry as it is.
        let before = try HostileFiles.inspected(path)
        #expect(before.orientation == 1)
        #expect(before.findings.contains("heif-repeated-association"))
        let fix = try Run.vidorient(["fix", "--orientation", "3", path])
        #expect(fix.status == 0, "\(fix.stderr)")
        #expect(try HostileFiles.inspected(path).orientation == 3)
    }
}

extension RepeatedBoxTests {
    /// A HEIC whose `thmb` reference comes from an item that is not in `iinf`: libheif never asks
    /// for it and decodes the file (heif-info reads it); vidorient refused it. Now it is read,
    /// and the reference passed over is named.
    @Test func aThumbnailReferenceFromAMissingItemIsPassedOver() throws {
        let folder = try TemporaryFolder("heif-missing-thumbnail")
        defer { folder.remove() }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.media("heic-thumbnail-6.heic"))))
        let thmb = try #require((0..<bytes.count - 6).first { bytes[$0..<$0 + 4].elementsEqual("thmb".utf8) })
        // iref version 0: the reference's 16-bit from_item_ID follows its type.
        bytes.replaceSubrange(thmb + 4..<thmb + 6, with: [0, 99])
        let path = try HostileFiles.write(bytes, "t.heic", in: folder)
        let inspected = try HostileFiles.inspected(path)
        #expect(inspected.orientation == 6)
        #expect(inspected.findings.contains("heif-reference-ignored"))
    }
}

extension HostileFiles {
    /// A HEIC built box by box: a primary `hvc1` item (1) whose data is 16 bytes of `mdat`, a
    /// thumbnail item (2) and an Exif item (3); `iloc` version 1 with 4-byte offsets and 8-byte
    /// lengths. The thumbnail's or the Exif item's data (`hugeItem`) is two extents each
    /// claiming 2⁶⁴ − 1 bytes: kept with the length it claims, as a cut file's extent is.
    static func heicWithHugeExtents(hugeItem: Int) -> [UInt8] {
        func full(_ type: String, _ payload: [UInt8]) -> [UInt8] { box(type, [0, 0, 0, 0] + payload) }
        func infe(_ id: Int, _ type: String, hidden: Bool) -> [UInt8] {
            box("infe", [2, 0, 0, hidden ? 1 : 0] + be(id, 2) + be(0, 2) + Array(type.utf8) + [0])
        }
        let ftyp = box("ftyp", Array("heic".utf8) + be(0, 4) + Array("mif1heic".utf8))
        let tiff = ifd0(orientation: 6)
        let exif = be(6, 4) + Array("Exif\0\0".utf8) + tiff
        let pictureAt = ftyp.count + 8
        let exifAt = pictureAt + 16
        let mdat = box("mdat", [UInt8](repeating: 0xAB, count: 16) + exif)
        func extents(_ id: Int, at offset: Int, _ length: Int) -> [UInt8] {
            let huge: [UInt8] = [UInt8](repeating: 0xFF, count: 8)
            let one = be(offset, 4) + be(length, 8)
            let items = id == hugeItem ? be(2, 2) + be(offset, 4) + huge + be(offset, 4) + huge : be(1, 2) + one
            return be(id, 2) + be(0, 2) + be(0, 2) + items
        }
        let iloc = box(
            "iloc",
            [1, 0, 0, 0, 0x48, 0x00] + be(3, 2) + extents(1, at: pictureAt, 16) + extents(2, at: pictureAt, 16)
                + extents(3, at: exifAt, exif.count))
        let iref = full(
            "iref", box("thmb", be(2, 2) + be(1, 2) + be(1, 2)) + box("cdsc", be(3, 2) + be(1, 2) + be(1, 2)))
        let ipco = box("ipco", full("ispe", be(64, 4) + be(48, 4)) + box("hvcC", [1, 2, 3]))
        let ipma = full("ipma", be(2, 4) + be(1, 2) + [2, 0x81, 0x82] + be(2, 2) + [2, 0x81, 0x82])
        let meta = full(
            "meta",
            full("hdlr", be(0, 4) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13)) + full("pitm", be(1, 2))
                + full(
                    "iinf",
                    be(3, 2) + infe(1, "hvc1", hidden: false) + infe(2, "hvc1", hidden: false)
                        + infe(3, "Exif", hidden: true)) + iloc + iref + box("iprp", ipco + ipma))
        return ftyp + mdat + meta
    }
}

@Suite struct HostileExtentTests {
    /// The lengths of an item's extents were added without a check: two extents each claiming
    /// 2⁶⁴ − 1 bytes (kept at 2⁶³ − 1, as a cut file's are) passed `Int64.max`, and the runtime
    /// trapped (SIGILL, exit 132) in `HEIFStructure.evidence` (a thumbnail item) or
    /// `HEIFStructure.data(of:)` (the Exif item). The lengths saturate now: the file is read.
    @Test(arguments: [("thumbnail", 2), ("exif", 3)])
    func aHEIFItemWithTwoHugeExtentsIsReadNotTrapped(name: String, item: Int) throws {
        let folder = try TemporaryFolder("heif-huge-\(name)")
        defer { folder.remove() }
        let path = try HostileFiles.write(HostileFiles.heicWithHugeExtents(hugeItem: item), "x.heic", in: folder)
        for arguments in [["inspect", "--json", path], ["fix", "--orientation", "3", "--dry-run", path]] {
            let run = try Run.vidorient(arguments)
            #expect([0, 1, 2].contains(run.status), "\(arguments[0]): \(run.status): \(run.stderr)")
            if run.status == 2 { #expect(run.stderrLines.count == 1, "\(run.stderr)") }
        }
        let inspected = try HostileFiles.inspected(path)
        // The primary item has no irot: 1. The Exif item's IFD0 says 6 when it can be read (a
        // conflict with irot); two huge extents are more than the 16 MiB an item is read for.
        #expect(inspected.orientation == 1, "\(inspected)")
        #expect(inspected.findings.contains("file-truncated"))
        #expect(inspected.findings.contains(item == 3 ? "exif-unreadable" : "orientation-conflict"), "\(inspected)")
    }
}

@Suite struct FarFutureTimeTests {
    /// A file's modification time is anyone's to set (`touch -d 2300-01-01`); past 2262 its
    /// seconds times 10⁹ pass `Int64.max`, and the file identity every audit record carries
    /// (`AuditedFile`) and the cache's key trapped (SIGILL, exit 132): the whole audit printed
    /// nothing. The time saturates now: the audit reports the file, with and without `--cache`.
    @Test func anAuditOfAFileDatedInTheYear2300ReportsIt() throws {
        let folder = try TemporaryFolder("far-future")
        defer { folder.remove() }
        let path = try folder.copy(Run.media("orient-6.jpg"), as: "late.jpg")
        _ = try folder.copy(Run.media("orient-1.jpg"), as: "good.jpg")
        let late = Date(timeIntervalSince1970: 10_413_792_000)  // 2300-01-01
        try FileManager.default.setAttributes([.modificationDate: late], ofItemAtPath: path)
        let stored = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        try #require(stored == late, "this file system does not keep the year 2300: \(String(describing: stored))")
        let caches = try TemporaryFolder("far-future-cache")
        defer { caches.remove() }
        for extra in [["--no-progress"], ["--cache-path", caches.path("audit.sqlite"), "--no-progress"]] {
            let run = try Run.vidorient(["audit", "--jsonl"] + extra + [folder.path])
            #expect(run.status == 0 || run.status == 1, "\(extra): \(run.status): \(run.stderr)")
            let lines = run.stdout.split(separator: "\n")
            #expect(lines.contains { $0.contains("late.jpg") } && lines.contains { $0.contains("good.jpg") })
        }
    }
}

extension HostileExtentTests {
    /// A QuickTime sound description of version 2 stores its sample rate as a 64-bit float: one
    /// that is infinite (or NaN, or past `Int`) trapped in `Int(_:)` (SIGILL, exit 132) when the
    /// box reader described the audio track. TestMedia's `audio-first.mov` with two bytes of its
    /// `mp4a` entry's version and eight of its rate changed; such a rate is unknown now.
    @Test func aSoundSampleRateThatIsInfiniteIsNotConverted() throws {
        let folder = try TemporaryFolder("infinite-rate")
        defer { folder.remove() }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.media("audio-first.mov"))))
        let type = try #require((0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual("mp4a".utf8) })
        let payload = type + 4
        bytes.replaceSubrange(payload + 8..<payload + 10, with: [0, 2])
        bytes.replaceSubrange(payload + 32..<payload + 40, with: [0x7F, 0xF0, 0, 0, 0, 0, 0, 0])
        let path = try HostileFiles.write(bytes, "rate.mov", in: folder)
        let run = try Run.vidorient(["inspect", "--json", path])
        #expect(run.status == 0 || run.status == 2, "\(run.status): \(run.stderr)")
        if run.status == 2 { #expect(run.stderrLines.count == 1, "\(run.stderr)") }
        if run.status == 0 { #expect(run.json != nil) }
    }
}
