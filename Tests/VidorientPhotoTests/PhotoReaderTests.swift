import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientPhoto
import VidorientTestSupport

/// Each reader on every generated photo, against what the manifest says was built.
@Suite struct TestMediaPhotoTests {
    @Test func manifestHasThePhotos() {
        #expect(TestMedia.photos.count >= 50)
    }

    @Test(arguments: TestMedia.photos)
    func readsAsBuilt(entry: TestMedia.Entry) throws {
        if let error = entry.photoError {
            // Refused with the reason, or, for a file whose chunk claims past its end after the
            // header (bad-png-length.png), read as far as it goes and said truncated (issue 24).
            do {
                let evidence = try readPhoto(entry.path)
                #expect(
                    evidence.readerFindings.contains { $0.code == "file-truncated" && $0.message.contains(error) },
                    "\(entry.name): \(evidence.readerFindings)")
            } catch {
                #expect((error as? PhotoFormatError)?.reason.contains(entry.photoError ?? "") == true, "\(error)")
            }
            return
        }
        var evidence = try readPhoto(entry.path)
        if let sidecar = Sidecar.statement(forPhotoAt: entry.path) { evidence.statements.append(sidecar) }
        #expect(evidence.format.description == entry.photoFormat)
        #expect(evidence.storedWidth == entry.storedWidth)
        #expect(evidence.storedHeight == entry.storedHeight)
        // A raw's main picture is its 16-bit sensor image; every other photo here is 8-bit.
        #expect(evidence.bitDepth == (entry.name.hasSuffix(".dng") ? 16 : 8))
        #expect(evidence.fileSize == Int(try FileBytes(path: entry.path).size))
        let statements = evidence.statements.map {
            TestMedia.Statement(kind: $0.kind.rawValue, location: $0.location, rawValue: $0.rawValue ?? -1)
        }
        #expect(statements == entry.statements)
        #expect(evidence.readerFindings.map(\.code) == entry.readerFindings)
        if let facts = entry.exif {
            let exif = evidence.exif
            if let make = facts.make { #expect(exif?.make == make) }
            if let model = facts.model { #expect(exif?.model == model) }
            if let order = facts.byteOrder { #expect(exif?.byteOrder == order) }
            if let lens = facts.lensModel { #expect(exif?.lensModel == lens) }
            if let date = facts.dateTimeOriginal { #expect(exif?.dateTimeOriginal == date) }
            if let offset = facts.offsetTimeOriginal { #expect(exif?.offsetTimeOriginal == offset) }
            if let x = facts.pixelXDimension { #expect(exif?.pixelXDimension == x) }
            if let y = facts.pixelYDimension { #expect(exif?.pixelYDimension == y) }
        }
        switch evidence.format {
        case .png: #expect(evidence.codec == "png" && !evidence.hasAlpha)
        case .webp: #expect(evidence.codec == "vp8l" && evidence.formatDetail == "webp lossless")
        case .tiff: #expect(evidence.codec == "tiff" && evidence.exif?.imageWidth == entry.storedWidth)
        case .jpeg: #expect(evidence.codec == "jpeg" && evidence.formatDetail == "baseline")
        default: Issue.record("unexpected format \(evidence.format)")
        }
    }

    @Test func sidecarNames() {
        #expect(
            Sidecar.candidates(forPhotoAt: "/a/IMG_1.CR2") == [
                "/a/IMG_1.CR2.xmp", "/a/IMG_1.CR2.XMP", "/a/IMG_1.xmp", "/a/IMG_1.XMP",
            ])
        #expect(Sidecar.candidates(forPhotoAt: "/a.b/noext") == ["/a.b/noext.xmp", "/a.b/noext.XMP"])
        #expect(Sidecar.candidates(forPhotoAt: "/a/.hidden") == ["/a/.hidden.xmp", "/a/.hidden.XMP"])
        #expect(Sidecar.statement(forPhotoAt: TestMedia.path("orient-6.jpg")) == nil)
    }
}

/// Every TestMedia photo and every `../shared/media` JPEG and WebP, against exiftool.
@Suite struct ExiftoolDifferentialTests {
    static var files: [String] {
        TestMedia.photos.filter { $0.photoError == nil }.map(\.path) + SharedMedia.photos.map(SharedMedia.path)
    }

    @Test(arguments: files)
    func agreesWithExiftool(path: String) throws {
        try #require(isInstalled("exiftool"))
        let result = try run(
            "exiftool",
            [
                "-n", "-j", "-Orientation", "-Make", "-Model", "-LensModel", "-DateTimeOriginal", "-OffsetTimeOriginal",
                "-ExifImageWidth", "-ExifImageHeight", "-ExifByteOrder", path,
            ])
        let parsed = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]]
        let json = try #require(parsed?.first)
        let evidence = try readPhoto(path)
        // exiftool's Orientation: EXIF's when present, else XMP's (its tag priority).
        let ours =
            evidence.statements.first { $0.kind == .exif }?.rawValue
            ?? evidence.statements.first { $0.kind == .xmp }?.rawValue
        // Where viewers read no orientation that exiftool reads (issue 28 item 9), the finding names exiftool's.
        if let unread = evidence.readerFindings.first(where: {
            ["orientation-type", "png-exif-prefix"].contains($0.code)
        }) {
            #expect(ours == nil)
            #expect(unread.message.contains("exiftool reports \((json["Orientation"] as? Int) ?? 0)"), "Orientation")
        } else {
            #expect(ours == json["Orientation"] as? Int, "Orientation")
        }
        func text(_ key: String) -> String? { (json[key] as? String) ?? (json[key] as? Int).map(String.init) }
        #expect(evidence.exif?.make == text("Make"), "Make")
        #expect(evidence.exif?.model == text("Model"), "Model")
        #expect(evidence.exif?.lensModel == text("LensModel"), "LensModel")
        #expect(evidence.exif?.dateTimeOriginal == text("DateTimeOriginal"), "DateTimeOriginal")
        #expect(evidence.exif?.offsetTimeOriginal == text("OffsetTimeOriginal"), "OffsetTimeOriginal")
        #expect(evidence.exif?.pixelXDimension == json["ExifImageWidth"] as? Int, "ExifImageWidth")
        #expect(evidence.exif?.pixelYDimension == json["ExifImageHeight"] as? Int, "ExifImageHeight")
        // With -n exiftool prints the byte order as stored: II or MM.
        #expect(evidence.exif?.byteOrder == json["ExifByteOrder"] as? String, "ExifByteOrder")
    }

    /// The shared JPEGs' truth from their README: Landscape_N holds Orientation N, 1800x1200
    /// stored for 0-4 and 1200x1800 for 5-8.
    @Test(.enabled(if: SharedMedia.isPresent, "../shared/media is absent"), arguments: 0...8)
    func landscape(n: Int) throws {
        let path = try #require(SharedMedia.existingPath("Landscape_\(n).jpg"))
        let evidence = try readPhoto(path)
        #expect(evidence.statements.first?.rawValue == n)
        #expect(evidence.statements.first?.orientation == Orientation(exif: n))
        #expect(evidence.storedWidth == (n >= 5 ? 1200 : 1800))
        #expect(evidence.storedHeight == (n >= 5 ? 1800 : 1200))
    }
}

/// Bad input: a clear error or a finding, never a crash, a hang or a large allocation.
@Suite struct MalformedPhotoTests {
    static let generated = [
        "orient-6.jpg", "orient-6.png", "orient-6-ii.tif", "orient-6-mm.tif", "orient-6.webp", "png-raw-profile.png",
        "jpeg-xmp-conflict.jpg", "png-xmp-only.png",
    ]

    /// Every prefix of each file reads or throws.
    @Test(arguments: generated)
    func everyTruncation(name: String) throws {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: TestMedia.path(name))))
        for length in 0..<bytes.count {
            _ = try? read(Array(bytes[0..<length]))
        }
    }

    /// Every byte set to 0x00, 0x7F and 0xFF in turn (the headers and chunk lengths are in the first 600 bytes).
    @Test(arguments: generated)
    func everyCorruption(name: String) throws {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: TestMedia.path(name))))
        for index in 0..<min(bytes.count, 600) {
            for value: UInt8 in [0, 0x7F, 0xFF] {
                var copy = bytes
                copy[index] = value
                _ = try? read(copy)
            }
        }
    }

    func read(_ bytes: [UInt8]) throws -> PhotoEvidence {
        let source = MemoryBytes(bytes)
        switch MediaFormat(signature: Array(bytes.prefix(64))) {
        case .jpeg: return try JPEGReader.read(source, path: "x")
        case .png: return try PNGReader.read(source, path: "x")
        case .webp: return try WebPReader.read(source, path: "x")
        case .tiff: return try TIFFFileReader.read(source, path: "x")
        default: throw PhotoFormatError("not a photo")
        }
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in typeBytes + data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        let be = { (v: UInt32) in [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        return be(UInt32(data.count)) + typeBytes + data + be(crc)
    }

    static let ihdr = chunk("IHDR", [0, 0, 0, 4, 0, 0, 0, 2, 8, 6, 0, 0, 0])

    @Test func pngAncillaryBadCRCIsAFinding() throws {
        let t = TIFFBuilder(little: true)
        var exif = Self.chunk("eXIf", t.build([t.short(0x0112, 6)]))
        exif[exif.count - 1] ^= 1
        let png = Self.pngSignature + Self.ihdr + exif + Self.chunk("IEND", [])
        let evidence = try PNGReader.read(MemoryBytes(png), path: "x")
        #expect(evidence.statements.isEmpty)
        #expect(evidence.readerFindings.map(\.code) == ["png-bad-crc"])
        #expect(evidence.hasAlpha && evidence.storedWidth == 4 && evidence.storedHeight == 2)
    }

    @Test func pngIHDRMustComeFirst() {
        let png = Self.pngSignature + Self.chunk("tEXt", Array("a\0b".utf8)) + Self.ihdr
        #expect(throws: PhotoFormatError("the first chunk is 'tEXt', not 'IHDR'")) {
            try PNGReader.read(MemoryBytes(png), path: "x")
        }
    }

    /// XMP in a compressed iTXt, through zlib.
    @Test func pngCompressedXMP() throws {
        let xmp = Array("<x xmlns:tiff=\"http://ns.adobe.com/tiff/1.0/\" tiff:Orientation=\"7\"/>".utf8)
        let compressed = try #require(try deflate(xmp))
        let itxt = Array("XML:com.adobe.xmp".utf8) + [0, 1, 0, 0, 0] + compressed
        let png = Self.pngSignature + Self.ihdr + Self.chunk("iTXt", itxt) + Self.chunk("IEND", [])
        let evidence = try PNGReader.read(MemoryBytes(png), path: "x")
        #expect(evidence.statements == [OrientationStatement(kind: .xmp, location: "XMP in iTXt", rawValue: 7)])
    }

    /// A zip bomb: 64 MiB of zeros compress to about 64 KiB; the inflate stops at its cap.
    @Test func inflateIsCapped() throws {
        let bomb = try #require(try deflate([UInt8](repeating: 0, count: 64 << 20)))
        #expect(bomb.count < 100_000)
        #expect(PNGReader.inflate(bomb[...]) == nil)
        #expect(PNGReader.inflate(bomb[...], maximumLength: 64 << 20)?.count == 64 << 20)
        #expect(PNGReader.inflate([1, 2, 3][...]) == nil)
    }

    /// zlib through the `zlib-flate`-free route: Python's zlib, as the generator uses.
    func deflate(_ bytes: [UInt8]) throws -> [UInt8]? {
        let folder = try scratchFolder("deflate")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in"), output = folder.appendingPathComponent("out")
        try Data(bytes).write(to: input)
        let result = try run(
            "python3",
            [
                "-c", "import sys,zlib;open(sys.argv[2],'wb').write(zlib.compress(open(sys.argv[1],'rb').read(),9))",
                input.path, output.path,
            ])
        guard result.status == 0 else { return nil }
        return try Array(Data(contentsOf: output))
    }

    /// A segment past the end: the file was cut (issue 24). Read as far as it goes and said.
    @Test func jpegSegmentPastTheEnd() throws {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x40, 0x00, 0x45]
        let evidence = try JPEGReader.read(MemoryBytes(jpeg), path: "x")
        #expect(evidence.readerFindings.map(\.code) == ["file-truncated"])
    }

    @Test func jpegFillBytesStandaloneMarkersAndSecondEXIF() throws {
        let t = TIFFBuilder(little: false)
        let app1 = { (n: UInt16) -> [UInt8] in
            let payload = EXIFReader.exifPrefix + t.build([t.short(0x0112, n)])
            return [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        let frame = tinyJPEG(width: 300, height: 200, marker: 0xC2)
        let jpeg = [0xFF, 0xD8, 0xFF, 0xFF, 0xD0] + app1(3) + app1(4) + [0xFF, 0x01] + frame.dropFirst(2)
        let evidence = try JPEGReader.read(MemoryBytes(jpeg), path: "x")
        #expect(evidence.statements == [OrientationStatement(kind: .exif, location: "APP1 EXIF IFD0", rawValue: 3)])
        #expect(evidence.readerFindings.map(\.code) == ["jpeg-second-exif"])
        #expect(evidence.storedWidth == 300 && evidence.storedHeight == 200 && evidence.formatDetail == "progressive")
    }

    @Test func jpegWithoutFrameHeader() {
        #expect(throws: PhotoFormatError("no frame header before the first scan")) {
            try JPEGReader.read(MemoryBytes([0xFF, 0xD8, 0xFF, 0xDA, 0, 2]), path: "x")
        }
    }

    @Test func webpRIFFSizePastTheEnd() {
        let webp =
            Array("RIFF".utf8) + [0xFF, 0xFF, 0, 0] + Array("WEBP".utf8) + Array("VP8L".utf8) + [
                5, 0, 0, 0, 0x2F, 0, 0, 0, 0,
            ]
        #expect(throws: PhotoFormatError.self) { try WebPReader.read(MemoryBytes(webp), path: "x") }
    }

    @Test func webpLossyFrameAndOddPadding() throws {
        // A 'VP8 ' key frame of 11 bytes (odd: one pad byte), then an XMP chunk.
        let vp8: [UInt8] = [0x50, 0x01, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00, 0x00]
        let xmp = Array("<x xmlns:tiff=\"http://ns.adobe.com/tiff/1.0/\" tiff:Orientation=\"3\"/>".utf8)
        var body = Array("WEBP".utf8) + Array("VP8 ".utf8) + [UInt8(vp8.count), 0, 0, 0] + vp8 + [0]
        body += Array("XMP ".utf8) + [UInt8(xmp.count), 0, 0, 0] + xmp + (xmp.count % 2 == 1 ? [0] : [])
        let webp = Array("RIFF".utf8) + [UInt8(body.count & 0xFF), UInt8(body.count >> 8), 0, 0] + body
        let evidence = try WebPReader.read(MemoryBytes(webp), path: "x")
        #expect(evidence.storedWidth == 320 && evidence.storedHeight == 240)
        #expect(evidence.codec == "vp8" && evidence.formatDetail == "webp lossy")
        #expect(evidence.statements == [OrientationStatement(kind: .xmp, location: "XMP chunk", rawValue: 3)])
    }
}
