import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientPhoto

/// Damaged files that decoders read are read as they read them (docs/photos.md, "Damaged files"):
/// the orientation, plus one `file-damaged` finding that names what is damaged and where. Each
/// case is a variant of a good file built here; TestMedia's `damaged-*` files are the same
/// shapes on real pictures, checked against exiftool and FFmpeg by TestMedia/photos.py.
@Suite struct DamagedFileTests {
    static func exifSegment(_ orientation: UInt16) -> [UInt8] {
        let t = TIFFBuilder(little: false)
        let payload = EXIFReader.exifPrefix + t.build([t.short(0x0112, orientation)])
        return [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    static let frame = Array(tinyJPEG(width: 300, height: 200).dropFirst(2))

    static func read(_ bytes: [UInt8]) throws -> PhotoEvidence {
        try PhotoReader.read(MemoryBytes(bytes), path: "x", format: MediaFormat(signature: Array(bytes.prefix(64))))
    }

    static func damage(_ evidence: PhotoEvidence) -> [String] {
        evidence.readerFindings.filter { $0.code == "file-damaged" }.map(\.message)
    }

    /// libjpeg's `next_marker`: bytes that are not a marker are stepped over, up to an `FF` that
    /// starts one; `FF 00` (stuffing) and fill `FF`s are not markers.
    @Test(arguments: [
        ([UInt8](repeating: 0x41, count: 14), "14 stray bytes at offset 38, after the app1 segment"),
        ([0x00, 0xFF, 0x00, 0x12], "4 stray bytes at offset 38, after the app1 segment"),
        ([0x3F, 0x3E, 0xFF, 0xFF], "2 stray bytes at offset 38, after the app1 segment"),
    ])
    func strayBytesAfterASegmentAreSteppedOver(stray: [UInt8], place: String) throws {
        let jpeg = [0xFF, 0xD8] + Self.exifSegment(6) + stray + Self.frame
        let evidence = try Self.read(jpeg)
        #expect(evidence.statements == [OrientationStatement(kind: .exif, location: "APP1 EXIF IFD0", rawValue: 6)])
        #expect(evidence.storedWidth == 300 && evidence.storedHeight == 200)
        #expect(
            Self.damage(evidence) == [
                "the file is damaged: \(place) (libjpeg and exiftool step over them)"
            ])
        var findings: [Finding] = []
        #expect(PhotoReport(evidence: evidence, findings: &findings).exifOrientation == 6)
        #expect(findings.map(\.code).contains("file-damaged"))
    }

    /// Damage libjpeg steps over and exiftool does not, as the message says (issue 28: it said
    /// exiftool stepped over them, false for 17 corpus files):
    ///
    /// - `FF D8` then stray bytes: libjpeg reads it (libmagic names it a JPEG), so the one place
    ///   that decides what a file is says JPEG too; exiftool says "File format error".
    /// - An APPn or COM whose length is less than 2: libjpeg reads the length and goes on from
    ///   there; exiftool stops ("JPEG format error").
    @Test(arguments: [
        (
            [0xFF, 0xD8, 0x00, 0x00, 0x00] + DamagedFileTests.exifSegment(8) + DamagedFileTests.frame, 8,
            "3 stray bytes at offset 2, after the start of image (libjpeg steps over them; exiftool does not read "
                + "the file as a JPEG: 'File format error', or only an EXIF block it finds by its header)"
        ),
        (
            [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01] + DamagedFileTests.exifSegment(5) + DamagedFileTests.frame, 5,
            "the app0 segment at offset 2 has length 1, less than its own 2 bytes (libjpeg steps over them; "
                + "exiftool stops there: 'JPEG format error')"
        ),
    ])
    func damageExiftoolDoesNotStepOver(jpeg: [UInt8], orientation: Int, damage: String) throws {
        #expect(MediaFormat(signature: jpeg) == .jpeg)
        let evidence = try Self.read(jpeg)
        #expect(evidence.statements.first?.rawValue == orientation)
        #expect(Self.damage(evidence) == ["the file is damaged: " + damage])
    }

    /// A segment whose length is short of its real end (metadata-extractor-images' `Issue
    /// 308.jpg`: an XMP APP1 two bytes short): read with its stated length, the rest stepped over.
    @Test func aSegmentShortOfItsRealEnd() throws {
        let packet = Array(
            #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="3"/></x:xmpmeta><?xpacket end="w"?>"#
                .utf8)
        let payload = Array("http://ns.adobe.com/xap/1.0/\0".utf8) + packet
        let length = payload.count + 2 - 2
        let xmp = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        let jpeg = [0xFF, 0xD8] + xmp + Self.frame
        let evidence = try Self.read(jpeg)
        #expect(evidence.statements == [OrientationStatement(kind: .xmp, location: "XMP in APP1", rawValue: 3)])
        #expect(Self.damage(evidence).first?.contains("2 stray bytes at offset \(2 + 2 + length)") == true)
    }

    /// What libjpeg cannot read stays an error: no marker after the stray bytes. A segment past
    /// the end is a cut file (issue 24): read as far as it goes, no size, `file-truncated`.
    @Test func whatDecodersRefuseStaysAnError() throws {
        let noMarker = [0xFF, 0xD8] + Self.exifSegment(6) + [UInt8](repeating: 0x41, count: 100)
        #expect(throws: PhotoFormatError("no marker after the stray bytes at offset 38 before the end of the file")) {
            try Self.read(noMarker)
        }
        let pastTheEnd: [UInt8] = [0xFF, 0xD8, 0x01, 0xFF, 0xE1, 0x40, 0x00, 0x45]
        let evidence = try Self.read(pastTheEnd)
        #expect(evidence.storedWidth == nil)
        #expect(
            evidence.readerFindings.filter { $0.code == "file-truncated" }.map(\.message) == [
                "the file is truncated: the app1 segment at offset 3 has length 16384, past the end of the file at 8 bytes: the picture is missing (libjpeg: premature end of jpeg file)"
            ])
    }

    static let pngEXIF: [UInt8] = {
        let t = TIFFBuilder(little: true)
        return MalformedPhotoTests.chunk("eXIf", t.build([t.short(0x0112, 7)]))
    }()
    static let idat = MalformedPhotoTests.chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])

    static func breakCRC(_ chunk: [UInt8]) -> [UInt8] {
        var chunk = chunk
        chunk[chunk.count - 1] ^= 0xFF
        return chunk
    }

    /// A bad CRC in a critical chunk: FFmpeg, libvips and exiftool read the file (libpng refuses
    /// it). The chunks it does not touch are read; the damage is named.
    @Test(arguments: ["IHDR", "IDAT", "IEND"])
    func aBadCRCInACriticalChunk(broken: String) throws {
        let ihdr = MalformedPhotoTests.ihdr, iend = MalformedPhotoTests.chunk("IEND", [])
        let png =
            MalformedPhotoTests.pngSignature + (broken == "IHDR" ? Self.breakCRC(ihdr) : ihdr) + Self.pngEXIF
            + (broken == "IDAT" ? Self.breakCRC(Self.idat) : Self.idat)
            + (broken == "IEND" ? Self.breakCRC(iend) : iend)
        let evidence = try Self.read(png)
        #expect(evidence.statements == [OrientationStatement(kind: .exif, location: "eXIf chunk", rawValue: 7)])
        #expect(evidence.storedWidth == 4 && evidence.storedHeight == 2)
        let offset = [8, 33, 33 + Self.pngEXIF.count, 33 + Self.pngEXIF.count + Self.idat.count][
            ["IHDR", "eXIf", "IDAT", "IEND"].firstIndex(of: broken)!]
        #expect(
            Self.damage(evidence) == [
                "the file is damaged: chunk '\(broken)' at offset \(offset) has a bad crc (libvips and exiftool read such files; libpng refuses them)"
            ])
    }

    static func truncation(_ evidence: PhotoEvidence) -> [String] {
        evidence.readerFindings.filter { $0.code == "file-truncated" }.map(\.message)
    }

    /// A chunk that claims more than the file holds: the file was cut (issue 24, `file-truncated`),
    /// and is read up to it, after the image data as before it. Before `IHDR` it is still an error.
    @Test func aChunkPastTheEndAfterTheImageData() throws {
        let head = MalformedPhotoTests.pngSignature + MalformedPhotoTests.ihdr + Self.pngEXIF + Self.idat
        let cut: [UInt8] = [0x40, 0, 0, 0] + Array("tIME".utf8) + [1, 2, 3, 4, 5, 6, 7]
        let evidence = try Self.read(head + cut)
        #expect(evidence.statements.first?.rawValue == 7)
        #expect(Self.damage(evidence).isEmpty)
        #expect(
            Self.truncation(evidence) == [
                "the file is truncated: chunk 'tIME' at offset \(head.count) claims 1073741824 bytes, past the end of the file at \(head.count + cut.count) bytes: the image data may be cut short (libpng: not enough image data)"
            ])
        let ended = try Self.read(head + [0, 0, 0])
        #expect(
            Self.truncation(ended).first?.contains("the file ends inside the chunk header at offset \(head.count)")
                == true)
        // No IEND at all: cut at a chunk's end.
        #expect(Self.truncation(try Self.read(head)).first?.contains("with no 'IEND' chunk") == true)
        let beforeData = try Self.read(MalformedPhotoTests.pngSignature + MalformedPhotoTests.ihdr + cut)
        #expect(
            Self.truncation(beforeData).first?.hasSuffix("the picture is missing (libpng: not enough image data)")
                == true)
        let beforeHeader = MalformedPhotoTests.pngSignature + Array(MalformedPhotoTests.ihdr.prefix(10))
        #expect(throws: PhotoFormatError.self) { try Self.read(beforeHeader) }
    }
}
