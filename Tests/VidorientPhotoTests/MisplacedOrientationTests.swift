import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientPhoto
import VidorientTestSupport

/// An orientation stored where viewers do not look is said, with its value and place
/// (`orientation-misplaced`); the decision stays with IFD0, as browsers and libvips read it.
@Suite struct MisplacedOrientationTests {
    static let t = TIFFBuilder(little: false)

    /// IFD0 (size, Make, and an Exif pointer or a next link), then one IFD right after it
    /// holding Orientation `n`, or, for `laterPage`, an IFD1 without and an IFD2 with it.
    static func tiff(inExifIFD: Bool, laterPage: Bool = false, n: UInt16 = 6) -> [UInt8] {
        let size = [t.long(0x0100, 8), t.long(0x0101, 4)]
        if inExifIFD {
            return t.build(
                size + [t.ascii(0x010F, "x"), t.long(0x8769, 62)], extra: t.ifd([t.short(0x0112, n)], at: 62))
        }
        // Three entries: IFD0 ends at 8 + 2 + 36 + 4 = 50.
        if laterPage {
            let ifd1 = t.ifd([t.long(0x0100, 8)], at: 50, next: 68)
            return t.build(size + [t.ascii(0x010F, "x")], next: 50, extra: ifd1 + t.ifd([t.short(0x0112, n)], at: 68))
        }
        return t.build(size + [t.ascii(0x010F, "x")], next: 50, extra: t.ifd([t.short(0x0112, n)], at: 50))
    }

    static func jpeg(_ tiff: [UInt8]) -> [UInt8] {
        let payload = EXIFReader.exifPrefix + tiff
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
            + tinyJPEG(width: 8, height: 4).dropFirst(2)
    }

    static func report(_ bytes: [UInt8]) throws -> (PhotoReport, [Finding]) {
        let evidence = try PhotoReader.read(
            MemoryBytes(bytes), path: "x", format: MediaFormat(signature: Array(bytes.prefix(64))))
        var findings: [Finding] = []
        let report = PhotoReport(evidence: evidence, findings: &findings)
        return (report, findings.filter { $0.code == "orientation-misplaced" })
    }

    @Test(arguments: [(true, "the Exif IFD"), (false, "IFD1")])
    func inAJPEGsEXIF(inExifIFD: Bool, place: String) throws {
        let (report, findings) = try Self.report(Self.jpeg(Self.tiff(inExifIFD: inExifIFD)))
        #expect(report.exifOrientation == 1 && report.orientationSource == .none)
        #expect(findings.count == 1)
        #expect(findings.first?.message.hasPrefix("Orientation 6 is stored only in \(place), not in IFD0") == true)
    }

    /// The value 1 in IFD1 (10 real camera files of the corpus): every viewer shows it as stored,
    /// which is what 1 says, so it is information, not a warning that fails the audit (issue 28).
    @Test(arguments: [(UInt16(1), Severity.info), (6, .warning), (8, .warning)])
    func theValueOneIsOnlyInformation(n: UInt16, severity: Severity) throws {
        let (_, findings) = try Self.report(Self.jpeg(Self.tiff(inExifIFD: false, n: n)))
        #expect(findings.map(\.severity) == [severity])
        #expect(findings.first?.message.hasPrefix("Orientation \(n) is stored only in IFD1, not in IFD0") == true)
    }

    /// Multipage TIFFs and some cameras' raws: a later page holds it.
    @Test func inALaterPageOfATIFF() throws {
        let (report, findings) = try Self.report(Self.tiff(inExifIFD: false, laterPage: true, n: 8))
        #expect(report.exifOrientation == 1)
        #expect(findings.map(\.message).first?.hasPrefix("Orientation 8 is stored only in IFD2, not in IFD0") == true)
        let (_, onePage) = try Self.report(Self.tiff(inExifIFD: false, n: 8))
        #expect(onePage.first?.message.hasPrefix("Orientation 8 is stored only in IFD1") == true)
    }

    /// Where IFD0 holds an orientation, a copy elsewhere (a raw's SubIFDs, IFD1) is not news.
    @Test func notSaidWhenIFD0HasOne() throws {
        let tiff = Self.t.build(
            [Self.t.long(0x0100, 8), Self.t.long(0x0101, 4), Self.t.short(0x0112, 3)], next: 38 + 12,
            extra: Self.t.ifd([Self.t.short(0x0112, 6)], at: 38 + 12))
        let (report, findings) = try Self.report(tiff)
        #expect(report.exifOrientation == 3 && findings.isEmpty)
    }

    /// ImageMagick's `Raw profile type xmp`: read as XMP (exiftool reads it), and said.
    @Test func imageMagicksRawXMPProfileInPNG() throws {
        let packet = Array(
            #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/></x:xmpmeta>"#
                .utf8)
        let hex = packet.map { String(format: "%02x", $0) }.joined()
        let text =
            Array("Raw profile type xmp\0".utf8)
            + Array("\nxmp\n\(String(repeating: " ", count: 5))\(packet.count)\n\(hex)\n".utf8)
        let png =
            MalformedPhotoTests.pngSignature + MalformedPhotoTests.ihdr + MalformedPhotoTests.chunk("tEXt", text)
            + MalformedPhotoTests.chunk("IEND", [])
        let (report, findings) = try Self.report(png)
        #expect(report.exifOrientation == 6 && report.orientationSource == .xmp)
        #expect(report.sources.first?.location == "tEXt 'Raw profile type xmp'")
        #expect(findings.count == 1)
        if isInstalled("exiftool") {
            let folder = try scratchFolder("rawxmp")
            defer { try? FileManager.default.removeItem(at: folder) }
            let url = folder.appendingPathComponent("x.png")
            try Data(png).write(to: url)
            let result = try run("exiftool", ["-n", "-s3", "-XMP-tiff:Orientation", url.path])
            #expect(
                String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "6")
        }
    }
}
