import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientPhoto
import VidorientTestSupport

/// A raw file's layout, built in the test: IFD0 a small JPEG preview strip, two SubIFDs (the
/// full-resolution lossless-JPEG sensor data and a large JPEG preview), IFD1 the EXIF thumbnail.
@Suite struct TIFFFileReaderTests {
    static func raw(little: Bool, make: String, dng: Bool = false) -> [UInt8] {
        let t = TIFFBuilder(little: little)
        let small = tinyJPEG(width: 160, height: 120), large = tinyJPEG(width: 1620, height: 1080)
        let thumb = tinyJPEG(width: 80, height: 60), sensor = tinyJPEG(width: 3000, height: 4000, marker: 0xC3)
        // Pass 1 with zero offsets gives every block's size; pass 2 writes the real offsets.
        func layout(_ o: [UInt32]) -> [UInt8] {
            // o: ifd1, sub0, sub1, small, large, thumb, sensor
            var ifd0 = [
                t.long(0x00FE, 1), t.short(0x0100, 160), t.short(0x0101, 120), t.short(0x0103, 6),
                t.ascii(0x010F, make),
                t.long(0x0111, o[3]), t.short(0x0112, 8), t.long(0x0117, UInt32(small.count)),
                t.long(0x014A, o[1], o[2]),
            ]
            if dng { ifd0.append(.init(tag: 0xC612, type: 1, count: 4, value: [1, 4, 0, 0])) }
            let sub0 = [
                t.long(0x00FE, 0), t.short(0x0100, 6000), t.short(0x0101, 4000), t.short(0x0102, 14),
                t.short(0x0103, 7),
                t.long(0x0111, o[6]), t.long(0x0117, UInt32(sensor.count)),
            ]
            let sub1 = [
                t.long(0x00FE, 1), t.short(0x0100, 1620), t.short(0x0101, 1080), t.short(0x0103, 6),
                t.long(0x0111, o[4]), t.long(0x0117, UInt32(large.count)),
            ]
            let ifd1 = [t.long(0x0201, o[5]), t.long(0x0202, UInt32(thumb.count))]
            var out = t.build(ifd0.sorted { $0.tag < $1.tag }, next: o[0])
            out += [UInt8](repeating: 0, count: 8)  // unused bytes between IFDs, as writers leave
            out += t.ifd(ifd1, at: out.count)
            out += t.ifd(sub0, at: Int(o[1]))
            out += t.ifd(sub1, at: Int(o[2]))
            return out + small + large + thumb + sensor
        }
        // Where IFD0 and the spare bytes end: pass 1's length less everything after them.
        let zero = [UInt32](repeating: 0, count: 7)
        let ifd0End =
            layout(zero).count - (small.count + large.count + thumb.count + sensor.count)
            - t.ifd([t.long(0x0201, 0), t.long(0x0202, 0)], at: 0).count
            - t.ifd(
                [
                    t.long(0x00FE, 0), t.short(0x0100, 0), t.short(0x0101, 0), t.short(0x0102, 0), t.short(0x0103, 0),
                    t.long(0x0111, 0), t.long(0x0117, 0),
                ], at: 0
            ).count
            - t.ifd(
                [
                    t.long(0x00FE, 0), t.short(0x0100, 0), t.short(0x0101, 0), t.short(0x0103, 0), t.long(0x0111, 0),
                    t.long(0x0117, 0),
                ], at: 0
            ).count
        let ifd1 = UInt32(ifd0End)
        let sub0 = ifd1 + UInt32(2 + 24 + 4)
        let sub1 = sub0 + UInt32(2 + 7 * 12 + 4)
        let small0 = sub1 + UInt32(2 + 6 * 12 + 4)
        let large0 = small0 + UInt32(small.count)
        let thumb0 = large0 + UInt32(large.count)
        let sensor0 = thumb0 + UInt32(thumb.count)
        return layout([ifd1, sub0, sub1, small0, large0, thumb0, sensor0])
    }

    @Test(arguments: [true, false])
    func nikonLikeRaw(little: Bool) throws {
        let bytes = Self.raw(little: little, make: "NIKON CORPORATION")
        let evidence = try TIFFFileReader.read(MemoryBytes(bytes), path: "x.nef")
        #expect(evidence.formatDetail == "nef")
        #expect(evidence.storedWidth == 6000 && evidence.storedHeight == 4000 && evidence.bitDepth == 14)
        #expect(evidence.statements == [OrientationStatement(kind: .exif, location: "IFD0", rawValue: 8)])
        #expect(evidence.previews.map { [$0.width, $0.height] } == [[1620, 1080], [160, 120], [80, 60]])
        #expect(evidence.previews.map(\.location) == ["IFD0 SubIFD 1", "IFD0", "IFD1"])
        for preview in evidence.previews {
            let offset = try #require(preview.offset)
            #expect(Array(bytes[offset..<offset + 2]) == [0xFF, 0xD8])
        }
        #expect(evidence.exif?.thumbnail?.width == 80)
        #expect(evidence.readerFindings.isEmpty)
    }

    @Test func dngByVersionTag() throws {
        let evidence = try TIFFFileReader.read(
            MemoryBytes(Self.raw(little: true, make: "Apple", dng: true)), path: "x.dng")
        #expect(evidence.formatDetail == "dng")
    }

    /// CR2: `II*\0`, IFD0 at 16, then `CR`, version 2.0 and the raw IFD's offset at byte 8.
    @Test func cr2ByItsHeader() throws {
        let t = TIFFBuilder(little: true)
        let header = Array("II*\0".utf8) + t.u32(16) + Array("CR".utf8) + [2, 0] + t.u32(0)
        let cr2 =
            header
            + t.ifd(
                [t.short(0x0100, 5472), t.short(0x0101, 3648), t.ascii(0x010F, "Canon"), t.short(0x0112, 6)], at: 16)
        let evidence = try TIFFFileReader.read(MemoryBytes(cr2), path: "x.cr2")
        #expect(evidence.formatDetail == "cr2")
        #expect(evidence.statements.first?.rawValue == 6 && evidence.storedWidth == 5472)
    }

    @Test func plainTIFFHasNoRawName() throws {
        let evidence = try TIFFFileReader.read(MemoryBytes(try readBytes(TestMedia.path("orient-3-mm.tif"))), path: "x")
        #expect(evidence.formatDetail == nil && evidence.previews.isEmpty && evidence.codec == "tiff")
    }

    func readBytes(_ path: String) throws -> [UInt8] {
        let file = try FileBytes(path: path)
        return try file.read(at: 0, count: Int(file.size))
    }
}
