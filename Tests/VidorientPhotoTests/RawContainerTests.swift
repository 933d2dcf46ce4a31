import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientPhoto
import VidorientTestSupport

/// The raw containers that are not plain TIFF, built here byte by byte for every orientation (as
/// cameras lay them out, reduced to what a reader needs), read by `PhotoReader`, and held against
/// exiftool reading the same bytes: Fujifilm RAF, Canon CR3 and CRW, Minolta MRW, and the TIFF
/// raws with magics of their own (Olympus ORF, Panasonic RW2).
@Suite struct RawContainerTests {
    static let frame = tinyJPEG(width: 320, height: 240)

    static func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
    static func be16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }
    static func le32(_ v: Int) -> [UInt8] { be32(v).reversed() }
    static func le16(_ v: Int) -> [UInt8] { be16(v).reversed() }
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(8 + payload.count) + Array(type.utf8) + payload
    }

    /// A JPEG with an EXIF APP1 whose IFD0 Orientation is `n` (big-endian, Make `Fujifilm`).
    static func jpeg(orientation n: Int) -> [UInt8] {
        let t = TIFFBuilder(little: false)
        let payload = EXIFReader.exifPrefix + t.build([t.ascii(0x010F, "FUJIFILM"), t.short(0x0112, UInt16(n))])
        return [0xFF, 0xD8, 0xFF, 0xE1] + be16(payload.count + 2) + payload + frame.dropFirst(2)
    }

    /// RAF: the 16-byte magic, version, camera ID and name; at 84 the JPEG's offset and length, at
    /// 92 the CFA header's (a count, then tag 0x100: the raw size, height first).
    static func raf(orientation n: Int) -> [UInt8] {
        let jpeg = jpeg(orientation: n)
        let cfa = be32(1) + be16(0x100) + be16(4) + be16(3000) + be16(4000)
        var header = Array("FUJIFILMCCD-RAW 0201FF383501".utf8) + Array("X-T1".utf8)
        header += [UInt8](repeating: 0, count: 60 - header.count) + Array("0100".utf8)
        header += [UInt8](repeating: 0, count: 84 - header.count)
        let jpegOffset = 0x100
        let cfaOffset = jpegOffset + jpeg.count
        header +=
            be32(jpegOffset) + be32(jpeg.count) + be32(cfaOffset) + be32(cfa.count) + be32(cfaOffset)
            + be32(cfa.count)
        header += [UInt8](repeating: 0, count: jpegOffset - header.count)
        return header + jpeg + cfa
    }

    /// MRW: `\0MRM`, the header blocks' length, `\0PRD` (sizes) and `\0TTW` (a TIFF, big-endian).
    static func mrw(orientation n: Int) -> [UInt8] {
        let t = TIFFBuilder(little: false)
        let tiff = t.build([t.ascii(0x010F, "MINOLTA"), t.short(0x0112, UInt16(n))])
        let prd =
            Array("21810002".utf8) + be16(1544) + be16(2056) + be16(1536) + be16(2048) + [12, 12, 0x59, 0, 0, 0, 0, 0]
        let blocks = [0] + Array("PRD".utf8) + be32(prd.count) + prd + [0] + Array("TTW".utf8) + be32(tiff.count) + tiff
        return [0] + Array("MRM".utf8) + be32(blocks.count) + blocks + [UInt8](repeating: 0, count: 64)
    }

    /// CRW (CIFF, little-endian): the header, then a root heap holding ImageProps (0x300A), a heap
    /// holding ImageInfo (0x1810: width, height, aspect ratio, Rotation in degrees).
    static func crw(rotation: Int) -> [UInt8] {
        let info = le32(3072) + le32(2048) + [0, 0, 0x80, 0x3F] + le32(rotation) + le32(8) + le32(24) + le32(0)
        let props = info + le16(1) + le16(0x1810) + le32(info.count) + le32(0) + le32(info.count)
        let root = props + le16(1) + le16(0x300A) + le32(props.count) + le32(0) + le32(props.count)
        return Array("II".utf8) + le32(26) + Array("HEAPCCDR".utf8) + le32(0x0001_0002)
            + [UInt8](repeating: 0, count: 8)
            + root
    }

    /// CR3: `ftyp` `crx `, then `moov` holding Canon's `uuid` box with `CMT1` (IFD0, little-endian).
    static func cr3(orientation n: Int) -> [UInt8] {
        let t = TIFFBuilder(little: true)
        let cmt1 = t.build([
            t.long(0x0100, 6000), t.long(0x0101, 4000), t.ascii(0x010F, "Canon"), t.short(0x0112, UInt16(n)),
        ])
        let canon: [UInt8] = [
            0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48,
        ]
        // THMB: version and flags, width, height, the JPEG's length, 4 bytes, the JPEG.
        let thumbnail = tinyJPEG(width: 160, height: 120)
        let thmb = box(
            "THMB", [0, 0, 0, 0] + be16(160) + be16(120) + be32(thumbnail.count) + [0, 1, 0, 0] + thumbnail)
        let uuid = box(
            "uuid", canon + box("CNCV", Array("CanonCR3_001/00.09.00/00.00.00".utf8)) + box("CMT1", cmt1) + thmb)
        return box("ftyp", Array("crx ".utf8) + be32(1) + Array("crx isom".utf8)) + box("moov", uuid)
    }

    /// ORF and RW2: TIFF with the magic number changed (`IIRO`, `MMOR`, `IIU\0`).
    static func tiffRaw(_ magic: String, orientation n: Int) -> [UInt8] {
        let t = TIFFBuilder(little: magic.hasPrefix("II"))
        var entries = [t.ascii(0x010F, magic == "IIU\0" ? "Panasonic" : "OLYMPUS"), t.short(0x0112, UInt16(n))]
        entries +=
            magic == "IIU\0"
            ? [t.short(0x0002, 4000), t.short(0x0003, 3000)] : [t.long(0x0100, 4000), t.long(0x0101, 3000)]
        entries.sort { $0.tag < $1.tag }
        var bytes = t.build(entries)
        bytes.replaceSubrange(0..<4, with: Array(magic.utf8))
        return bytes
    }

    static func exiftool(_ bytes: [UInt8], name: String, tag: String) throws -> Int? {
        let folder = try scratchFolder("raw")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        let result = try run("exiftool", ["-n", "-j", "-\(tag)", url.path])
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]]
        return json?.first?[tag] as? Int
    }

    static func report(_ bytes: [UInt8]) throws -> (PhotoEvidence, PhotoReport) {
        let format = MediaFormat(signature: Array(bytes.prefix(MediaFormat.signatureLength)))
        let evidence = try PhotoReader.read(MemoryBytes(bytes), path: "x", format: format)
        var findings: [Finding] = []
        return (evidence, PhotoReport(evidence: evidence, findings: &findings))
    }

    @Test(arguments: 1...8)
    func raf(n: Int) throws {
        let bytes = Self.raf(orientation: n)
        #expect(MediaFormat(signature: bytes) == .raw("raf"))
        let (evidence, report) = try Self.report(bytes)
        #expect(report.exifOrientation == n && report.format == "raf")
        #expect(evidence.statements.map(\.location) == ["RAF JPEG APP1 EXIF IFD0"])
        #expect(evidence.storedWidth == 4000 && evidence.storedHeight == 3000)
        #expect(evidence.previews.first?.location == "RAF JPEG" && evidence.previews.first?.width == 320)
        #expect(evidence.exif?.make == "FUJIFILM")
        if isInstalled("exiftool") { #expect(try Self.exiftool(bytes, name: "x.raf", tag: "Orientation") == n) }
    }

    @Test(arguments: 1...8)
    func mrw(n: Int) throws {
        let bytes = Self.mrw(orientation: n)
        #expect(MediaFormat(signature: bytes) == .raw("mrw"))
        let (evidence, report) = try Self.report(bytes)
        #expect(report.exifOrientation == n && report.format == "mrw")
        #expect(evidence.statements.map(\.location) == ["TTW IFD0"])
        #expect(evidence.storedWidth == 2048 && evidence.storedHeight == 1536)
        if isInstalled("exiftool") { #expect(try Self.exiftool(bytes, name: "x.mrw", tag: "Orientation") == n) }
    }

    @Test(arguments: 1...8)
    func cr3(n: Int) throws {
        let bytes = Self.cr3(orientation: n)
        #expect(MediaFormat(signature: bytes) == .raw("cr3"))
        let (evidence, report) = try Self.report(bytes)
        #expect(report.exifOrientation == n && report.format == "cr3")
        #expect(evidence.statements.map(\.location) == ["CMT1 IFD0"])
        #expect(evidence.storedWidth == 6000 && evidence.storedHeight == 4000 && evidence.exif?.make == "Canon")
        #expect(evidence.previews.map(\.location) == ["THMB"] && evidence.previews.first?.width == 160)
        if isInstalled("exiftool") { #expect(try Self.exiftool(bytes, name: "x.cr3", tag: "Orientation") == n) }
    }

    /// CRW has no EXIF: the camera's Rotation decides, as dcraw/LibRaw and exiv2 read it.
    @Test(arguments: [(0, 1), (90, 6), (180, 3), (270, 8), (-90, 8)])
    func crw(rotation: Int, orientation: Int) throws {
        let bytes = Self.crw(rotation: rotation)
        #expect(MediaFormat(signature: bytes) == .raw("crw"))
        let (evidence, report) = try Self.report(bytes)
        #expect(report.exifOrientation == orientation && report.format == "crw")
        #expect(evidence.statements.first?.rawValue == rotation)
        #expect(evidence.storedWidth == 3072 && evidence.storedHeight == 2048)
        if isInstalled("exiftool") {
            #expect(try Self.exiftool(bytes, name: "x.crw", tag: "Rotation") == rotation)
        }
    }

    /// `IIU` stands for `IIU\0` (a NUL would not print in the test's name).
    @Test(arguments: ["IIRO", "MMOR", "IIU"], Array(1...8))
    func tiffMagics(name: String, n: Int) throws {
        let magic = name.count == 3 ? name + "\0" : name
        let bytes = Self.tiffRaw(magic, orientation: n)
        #expect(MediaFormat(signature: bytes) == .tiff)
        let (evidence, report) = try Self.report(bytes)
        #expect(report.exifOrientation == n)
        #expect(evidence.formatDetail == (magic == "IIU\0" ? "rw2" : "orf"))
        #expect(evidence.storedWidth == 4000 && evidence.storedHeight == 3000)
        if isInstalled("exiftool") {
            #expect(try Self.exiftool(bytes, name: magic == "IIU\0" ? "x.rw2" : "x.orf", tag: "Orientation") == n)
        }
    }

    /// Every truncation and 300 random corruptions of each container: a result or a
    /// `PhotoFormatError`, never a crash (the fuzzer's job in small, on every test run).
    @Test(arguments: ["raf", "mrw", "crw", "cr3"])
    func truncationsAndCorruptions(container: String) {
        let good: [UInt8] =
            switch container {
            case "raf": Self.raf(orientation: 6)
            case "mrw": Self.mrw(orientation: 6)
            case "crw": Self.crw(rotation: 90)
            default: Self.cr3(orientation: 6)
            }
        var variants = (0..<good.count).map { Array(good.prefix($0)) }
        var random = SplitMix64(state: 20)
        for _ in 0..<300 {
            var bytes = good
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            variants.append(bytes)
        }
        for bytes in variants {
            _ = try? PhotoReader.read(MemoryBytes(bytes), path: "x", format: .raw(container))
        }
    }

    /// Hostile containers: one clear error, bounded work.
    @Test func hostileContainersAreRefused() {
        var raf = Self.raf(orientation: 6)
        raf.replaceSubrange(84..<88, with: Self.be32(1 << 30))
        var crw = Self.crw(rotation: 90)
        crw.replaceSubrange(crw.count - 4..<crw.count, with: Self.le32(1 << 30))
        var mrw = Self.mrw(orientation: 6)
        mrw.replaceSubrange(4..<8, with: Self.be32(1 << 30))
        let cr3 = Array(Self.cr3(orientation: 6).prefix(40))
        for bytes in [raf, crw, mrw, cr3, Array(raf.prefix(50))] {
            #expect(throws: PhotoFormatError.self) { try Self.report(bytes) }
        }
    }

    /// A JPEG that starts inside the file and runs past its end is said so (issue 28: "outside the
    /// file" was said of it); one that starts past the end, so.
    @Test func aRangeThatRunsPastTheEndIsSaidSo() throws {
        var raf = Self.raf(orientation: 6)
        raf.replaceSubrange(88..<92, with: Self.be32(1 << 20))
        let size = raf.count
        let reason = { (bytes: [UInt8]) -> String? in
            do {
                _ = try Self.report(bytes)
                return nil
            } catch let error as VidorientError { return error.reason } catch { return "\(error)" }
        }
        #expect(reason(raf) == "raf jpeg from 256 to \(256 + (1 << 20)) runs past the end of the file (\(size) bytes)")
        raf.replaceSubrange(84..<88, with: Self.be32(1 << 20))
        #expect(reason(raf) == "raf jpeg starts at \(1 << 20), past the end of the file (\(size) bytes)")
    }

    /// A read the disk refuses inside the file is said, not taken for a part the file lacks: the
    /// RAF's CFA header (its raw size) and the CR3's XMP box were once read with `try?`, and the
    /// file came out whole, its size from the preview and its XMP missing.
    @Test(arguments: ["raf", "cr3"])
    func aReadTheDiskRefusesIsSaid(container: String) throws {
        var bytes: [UInt8]
        let refused: Range<Int>
        if container == "raf" {
            bytes = Self.raf(orientation: 6)
            refused = bytes.count - 12..<bytes.count  // the 12-byte CFA header, last in the file
        } else {
            let xmpBox: [UInt8] = [
                0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC,
            ]
            let packet = Array("<x:xmpmeta><rdf:Description tiff:Orientation=\"6\"/></x:xmpmeta>".utf8)
            bytes = Self.cr3(orientation: 6)
            refused = bytes.count + 8 + 16..<bytes.count + 8 + 16 + packet.count
            bytes += Self.box("uuid", xmpBox + packet)
        }
        // Whole, the file reads; refused there, the read fails with the disk's reason.
        _ = try RawContainerReader.read(MemoryBytes(bytes), path: "x", container: container)
        let source = RefusingBytes(bytes: bytes, refused: refused)
        let error = #expect(throws: VidorientError.self) {
            try RawContainerReader.read(source, path: "x", container: container)
        }
        #expect(error?.reason.contains("input/output error") == true, "\(error?.reason ?? "")")
    }
}

/// Bytes in memory whose reads fail where they touch `refused`, as a disk's bad sector does.
private struct RefusingBytes: ByteSource {
    let bytes: [UInt8]
    let refused: Range<Int>

    var size: Int64 { Int64(bytes.count) }

    func read(at offset: Int64, count: Int) throws(VidorientError) -> [UInt8] {
        guard !(Int(offset)..<Int(offset) + count).overlaps(refused) else { throw .io("input/output error") }
        return try MemoryBytes(bytes).read(at: offset, count: count)
    }
}
