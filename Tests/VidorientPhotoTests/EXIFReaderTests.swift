import Testing
import VidorientCore
import VidorientPhoto

@Suite struct EXIFReaderTests {
    static let orders = [true, false]

    @Test(arguments: orders)
    func orientationAndStrings(little: Bool) throws {
        let t = TIFFBuilder(little: little)
        let tiff = t.build([
            t.short(0x0112, 6), t.ascii(0x010F, "Canon  "), t.ascii(0x0110, "EOS\0\0"), t.ascii(0x0131, "x"),
        ])
        let block = try EXIFReader.read(tiff: tiff, fileOffset: nil)
        #expect(block.metadata.byteOrder == (little ? "II" : "MM"))
        #expect(block.metadata.orientation == 6)
        #expect(block.orientationType == .short)
        #expect(block.metadata.make == "Canon")  // trailing spaces and NULs trimmed
        #expect(block.metadata.model == "EOS")
        #expect(block.metadata.software == "x")
        #expect(block.statement(location: "IFD0") == OrientationStatement(kind: .exif, location: "IFD0", rawValue: 6))
        #expect(block.findings.isEmpty)
    }

    /// exiftool reads Orientation in whatever integer type it is stored (Exif.pm gives 0x0112 no
    /// fixed format), but Chromium reads one SHORT and nothing else: a LONG, BYTE, SSHORT or SLONG
    /// 6, or two SHORTs, show the picture as stored (issue 28 item 9, checked with `naturalWidth`
    /// in headless Chromium). What viewers show is reported, and the type is named in a finding.
    @Test(
        arguments: [
            (4, 1, [0, 0, 0, 6]), (1, 1, [6]), (3, 1, [0, 6]), (8, 1, [0, 6]), (9, 1, [0, 0, 0, 6]),
            (3, 2, [0, 6, 0, 6]),
        ] as [(UInt16, UInt32, [UInt8])])
    func onlyOneShortIsShown(type: UInt16, count: UInt32, bigEndianValue: [UInt8]) throws {
        let t = TIFFBuilder(little: false)
        let tiff = t.build([TIFFBuilder.Entry(tag: 0x0112, type: type, count: count, value: bigEndianValue)])
        let block = try EXIFReader.read(tiff: tiff, fileOffset: nil)
        let shown = type == 3 && count == 1
        #expect(block.metadata.orientation == (shown ? 6 : nil))
        #expect(
            block.statement(location: "IFD0")
                == (shown ? OrientationStatement(kind: .exif, location: "IFD0", rawValue: 6) : nil))
        #expect(block.findings.map(\.code) == (shown ? [] : ["orientation-type"]))
        if !shown { #expect(block.findings.first?.message.contains("exiftool reports 6") == true) }
    }

    @Test func orientationAsTextIsNotAnOrientation() throws {
        let t = TIFFBuilder(little: true)
        let tiff = t.build([t.ascii(0x0112, "6")])
        #expect(try EXIFReader.read(tiff: tiff, fileOffset: nil).metadata.orientation == nil)
    }

    /// Each of the twelve field types, inline and at an offset, in both byte orders.
    @Test(arguments: orders)
    func everyFieldType(little: Bool) throws {
        let t = TIFFBuilder(little: little)
        func signed16(_ v: Int16) -> [UInt8] { t.u16(UInt16(bitPattern: v)) }
        func signed32(_ v: Int32) -> [UInt8] { t.u32(UInt32(bitPattern: v)) }
        let double = 2.5.bitPattern
        let doubleBytes =
            little
            ? t.u32(UInt32(double & 0xFFFF_FFFF)) + t.u32(UInt32(double >> 32))
            : t.u32(UInt32(double >> 32)) + t.u32(UInt32(double & 0xFFFF_FFFF))
        let entries: [TIFFBuilder.Entry] = [
            .init(tag: 1, type: 1, count: 5, value: [1, 2, 3, 4, 5]),
            t.ascii(2, "hello"),
            t.short(3, 7, 65535, 9),
            t.long(4, 100_000, 4_000_000_000),
            .init(tag: 5, type: 5, count: 1, value: t.u32(3) + t.u32(2)),
            .init(tag: 6, type: 6, count: 2, value: [0xFF, 0x80]),
            .init(tag: 7, type: 7, count: 3, value: [9, 8, 7]),
            .init(tag: 8, type: 8, count: 2, value: signed16(-2) + signed16(300)),
            .init(tag: 9, type: 9, count: 1, value: signed32(-70_000)),
            .init(tag: 10, type: 10, count: 1, value: signed32(-1) + signed32(4)),
            .init(tag: 11, type: 11, count: 1, value: t.u32(Float(1.5).bitPattern)),
            .init(tag: 12, type: 12, count: 1, value: doubleBytes),
        ]
        let tiff = try TIFFStructure(tiff: t.build(entries))
        let ifd = try tiff.directory(at: tiff.firstIFDOffset)
        #expect(ifd.entries.count == 12)
        #expect(tiff.integers(ifd[1]!) == [1, 2, 3, 4, 5])
        #expect(tiff.string(ifd[2]!) == "hello")
        #expect(tiff.integers(ifd[3]!) == [7, 65535, 9])
        #expect(tiff.integers(ifd[4]!) == [100_000, 4_000_000_000])
        #expect(tiff.numbers(ifd[5]!) == [1.5])
        #expect(tiff.integers(ifd[6]!) == [-1, -128])
        #expect(tiff.integers(ifd[7]!) == [9, 8, 7])
        #expect(tiff.integers(ifd[8]!) == [-2, 300])
        #expect(tiff.integers(ifd[9]!) == [-70_000])
        #expect(tiff.numbers(ifd[10]!) == [-0.25])
        #expect(tiff.numbers(ifd[11]!) == [1.5])
        #expect(tiff.numbers(ifd[12]!) == [2.5])
        #expect(tiff.integers(ifd[5]!) == nil)
    }

    @Test func unknownTypeAndValuePastTheEndAreSkipped() throws {
        let t = TIFFBuilder(little: true)
        let tiff = t.build([
            .init(tag: 0x0100, type: 99, count: 1, value: [1]),
            .init(tag: 0x010F, type: 2, count: 1000, value: [], rawOffset: 20),
            .init(tag: 0x0110, type: 4, count: 0xFFFF_FFFF, value: [], rawOffset: 8),
            t.short(0x0112, 3),
        ])
        let block = try EXIFReader.read(tiff: tiff, fileOffset: nil)
        #expect(block.metadata.orientation == 3)
        #expect(block.metadata.make == nil)
        #expect(block.findings.map(\.code) == ["exif-bad-entry"])
        let structure = try TIFFStructure(tiff: tiff)
        #expect(try structure.directory(at: 8).skippedEntries == 3)
    }

    @Test func zeroEntries() throws {
        let block = try EXIFReader.read(tiff: TIFFBuilder(little: false).build([]), fileOffset: nil)
        #expect(block.metadata.orientation == nil)
        #expect(block.findings.isEmpty)
    }

    @Test func entryCountTooLargeIsAnError() {
        var tiff = TIFFBuilder(little: true).build([])
        tiff[8] = 0xFF
        tiff[9] = 0xFF
        #expect(throws: PhotoFormatError.self) { try EXIFReader.read(tiff: tiff, fileOffset: nil) }
    }

    @Test(arguments: [
        [UInt8](), Array("II*".utf8), Array("XX*\0\u{8}\0\0\0".utf8), Array("II+\0\u{8}\0\0\0".utf8),
        Array("MM\0*\0\0\0\u{FF}".utf8),
    ])
    func badHeaders(bytes: [UInt8]) {
        #expect(throws: PhotoFormatError.self) { try EXIFReader.read(tiff: bytes, fileOffset: nil) }
    }

    @Test func nextIFDLoopEnds() throws {
        let t = TIFFBuilder(little: false)
        let tiff = t.build([t.short(0x0112, 8)], next: 8)
        let block = try EXIFReader.read(tiff: tiff, fileOffset: nil)
        #expect(block.metadata.orientation == 8)
        #expect(block.findings.map(\.code) == ["exif-ifd-loop"])
    }

    @Test(arguments: orders)
    func exifGPSAndThumbnail(little: Bool) throws {
        let t = TIFFBuilder(little: little)
        // IFD0 at 8 with 3 entries is 2 + 36 + 4 = 42 bytes: the Exif IFD follows at 50.
        let thumbnail = tinyJPEG(width: 160, height: 120)
        let ifd0 = [t.short(0x0112, 5), t.long(0x8769, 50), t.long(0x8825, 0)]
        var tiff = t.build(ifd0, next: 0)
        #expect(tiff.count == 50)
        let exifEntries = [
            t.ascii(0x9003, "2020:01:02 03:04:05"), t.ascii(0x9011, "-05:00"), t.short(0xA002, 4000),
            t.long(0xA003, 3000),
            t.ascii(0xA433, "Apple"), t.ascii(0xA434, "iPhone back camera"),
        ]
        tiff += t.ifd(exifEntries, at: 50)
        let gpsOffset = tiff.count
        tiff += t.ifd(Self.gpsEntries(t), at: gpsOffset)
        let ifd1Offset = tiff.count
        let jpegOffset = ifd1Offset + 2 + 24 + 4
        tiff += t.ifd([t.long(0x0201, UInt32(jpegOffset)), t.long(0x0202, UInt32(thumbnail.count))], at: ifd1Offset)
        tiff += thumbnail
        // Patch the GPS pointer and IFD0's next link.
        let gpsEntry = 8 + 2 + 24 + 8
        tiff.replaceSubrange(gpsEntry..<gpsEntry + 4, with: t.u32(UInt32(gpsOffset)))
        tiff.replaceSubrange(46..<50, with: t.u32(UInt32(ifd1Offset)))

        let metadata = try EXIFReader.read(tiff: tiff, fileOffset: 1000).metadata
        #expect(metadata.orientation == 5)
        #expect(metadata.dateTimeOriginal == "2020:01:02 03:04:05")
        #expect(metadata.offsetTimeOriginal == "-05:00")
        #expect(metadata.pixelXDimension == 4000 && metadata.pixelYDimension == 3000)
        #expect(metadata.lensMake == "Apple" && metadata.lensModel == "iPhone back camera")
        let gps = try #require(metadata.gps)
        #expect(abs(gps.latitude - 41.2203) < 1e-9 && abs(gps.longitude - -96.071625) < 1e-9)
        #expect(gps.altitude == -12.5 && gps.iso6709 == "+41.220300-096.071625-12.5/")
        #expect(
            metadata.thumbnail
                == EmbeddedImage(
                    codec: "jpeg", offset: 1000 + jpegOffset, length: thumbnail.count, width: 160, height: 120,
                    location: "IFD1"))
    }

    /// The GPS IFD of a position (41° 13' 13.08" N, 96° 4' 17.85" W, 12.5 m below sea level), as
    /// exiftool writes one: references as ASCII, coordinates as three RATIONALs.
    static func gpsEntries(
        _ t: TIFFBuilder, latitude: [UInt32] = [41, 1, 13, 1, 1308, 100],
        longitude: [UInt32] = [96, 1, 4, 1, 1785, 100], references: Bool = true
    ) -> [TIFFBuilder.Entry] {
        let rationals = { (tag: UInt16, values: [UInt32]) in
            TIFFBuilder.Entry(tag: tag, type: 5, count: UInt32(values.count / 2), value: values.flatMap(t.u32))
        }
        return (references ? [t.ascii(0x0001, "N")] : []) + [rationals(0x0002, latitude)]
            + (references ? [t.ascii(0x0003, "W")] : []) + [rationals(0x0004, longitude)]
            + [.init(tag: 0x0005, type: 1, count: 1, value: [1]), rationals(0x0006, [25, 2])]
    }

    /// A GPS IFD written without a fix is no position (issue 29, exiftool's empty_gps.jpg): the
    /// coordinates 0/0, or no N/S and E/W; a position needs both coordinates.
    @Test(arguments: ["zero denominators", "no references", "no longitude"])
    func aGPSBlockWithoutCoordinatesIsNoPosition(kind: String) throws {
        let t = TIFFBuilder(little: true)
        var entries: [TIFFBuilder.Entry]
        switch kind {
        case "zero denominators":
            entries = Self.gpsEntries(t, latitude: [0, 0, 0, 0, 0, 0], longitude: [0, 0, 0, 0, 0, 0])
        case "no references": entries = Self.gpsEntries(t, references: false)
        default: entries = Self.gpsEntries(t).filter { $0.tag != 0x0004 }
        }
        // IFD0 of one entry is 18 bytes at 8: the GPS IFD follows at 26.
        let tiff = t.build([t.long(0x8825, 26)]) + t.ifd(entries, at: 26)
        #expect(try EXIFReader.read(tiff: tiff, fileOffset: nil).metadata.gps == nil)
        let withFix = t.build([t.long(0x8825, 26)]) + t.ifd(Self.gpsEntries(t), at: 26)
        #expect(try EXIFReader.read(tiff: withFix, fileOffset: nil).metadata.gps != nil)
    }

    @Test func exifPointerBackToIFD0IsALoopNotAnError() throws {
        let t = TIFFBuilder(little: true)
        let block = try EXIFReader.read(tiff: t.build([t.short(0x0112, 2), t.long(0x8769, 8)]), fileOffset: nil)
        #expect(block.metadata.orientation == 2)
        #expect(block.findings.map(\.code) == ["exif-ifd-loop"])
    }

    @Test func exifPointerPastTheEndIsAFinding() throws {
        let t = TIFFBuilder(little: true)
        let block = try EXIFReader.read(
            tiff: t.build([t.short(0x0112, 2), t.long(0x8769, 0xFFFF_FF00)]), fileOffset: nil)
        #expect(block.metadata.orientation == 2)
        #expect(block.findings.map(\.code) == ["exif-ifd-unreadable"])
    }

    /// What `VidorientAudit.JPEGHeader.exifOrientation` reads (SHORT, count 1, in IFD0, after
    /// `Exif\0\0`), this reader reads too: every value 0…65535 it might meet, both byte orders.
    @Test(arguments: orders)
    func supersetOfTheAuditReader(little: Bool) throws {
        let t = TIFFBuilder(little: little)
        for value: UInt16 in [0, 1, 6, 8, 9, 255, 65535] {
            let payload = EXIFReader.exifPrefix + t.build([t.ascii(0x010F, "make"), t.short(0x0112, value)])
            #expect(try EXIFReader.read(exifPayload: payload, fileOffset: 0).metadata.orientation == Int(value))
        }
    }

    @Test func payloadWithAndWithoutPrefix() throws {
        let t = TIFFBuilder(little: true)
        let tiff = t.build([t.short(0x0112, 7)])
        #expect(try EXIFReader.read(exifPayload: tiff, fileOffset: nil).metadata.orientation == 7)
        #expect(
            try EXIFReader.read(exifPayload: EXIFReader.exifPrefix + tiff, fileOffset: nil).metadata.orientation == 7)
    }

    @Test func heifExifItem() throws {
        let t = TIFFBuilder(little: false)
        let tiff = t.build([t.short(0x0112, 6)])
        #expect(
            try EXIFReader.read(heifExifItem: [0, 0, 0, 6] + EXIFReader.exifPrefix + tiff, fileOffset: nil).metadata
                .orientation == 6)
        #expect(try EXIFReader.read(heifExifItem: [0, 0, 0, 0] + tiff, fileOffset: nil).metadata.orientation == 6)
        #expect(throws: PhotoFormatError.self) {
            try EXIFReader.read(heifExifItem: [0xFF, 0, 0, 0] + tiff, fileOffset: nil)
        }
        #expect(throws: PhotoFormatError.self) { try EXIFReader.read(heifExifItem: [0, 0], fileOffset: nil) }
    }

    /// Every prefix and every single-byte change of a valid block reads or throws, never traps.
    @Test func truncationsAndCorruptions() {
        let t = TIFFBuilder(little: false)
        let tiff = t.build([t.short(0x0112, 6), t.ascii(0x010F, "vidorient camera"), t.long(0x8769, 8)], next: 8)
        for length in 0...tiff.count { _ = try? EXIFReader.read(tiff: Array(tiff[0..<length]), fileOffset: nil) }
        for index in tiff.indices {
            for value: UInt8 in [0, 0x7F, 0xFF] {
                var copy = tiff
                copy[index] = value
                _ = try? EXIFReader.read(tiff: copy, fileOffset: nil)
            }
        }
    }
}

@Suite struct XMPOrientationTests {
    static let ns = "http://ns.adobe.com/tiff/1.0/"

    @Test(
        arguments: [
            ("<x xmlns:tiff=\"\(ns)\" tiff:Orientation=\"6\"/>", 6),
            ("<x xmlns:tiff='\(ns)'\n   tiff:Orientation = '8' />", 8),
            ("<x xmlns:t=\"\(ns)\"><t:Orientation>3</t:Orientation></x>", 3),
            ("<x xmlns:t=\"\(ns)\"><t:Orientation> 5\n</t:Orientation></x>", 5),
            ("<x xmlns:tiff=\"http://example.com/\" tiff:Orientation=\"6\"/>", nil),  // not the TIFF namespace
            ("<x tiff:Orientation=\"6\"/>", nil),  // prefix never bound
            ("<x xmlns:tiff=\"\(ns)\" xtiff:Orientation=\"6\" tiff:OrientationX=\"2\"/>", nil),
            ("<x xmlns:tiff=\"\(ns)\" tiff:Orientation=\"six\"/>", nil),
            ("<x xmlns:tiff=\"\(ns)\"><tiff:Orientation/></x>", nil),
            ("<x xmlns:a=\"http://other/\" xmlns:b=\"\(ns)\" a:Orientation=\"2\" b:Orientation=\"7\"/>", 7),
            ("<x xmlns:tiff=\"\(ns)\" tiff:Orientation=\"0\"/>", 0),
            ("", nil), ("xmlns:", nil), ("<tiff:Orientation>", nil),
        ] as [(String, Int?)])
    func forms(xml: String, value: Int?) {
        #expect(XMPOrientation.value(in: Array(xml.utf8)) == value)
    }
}
