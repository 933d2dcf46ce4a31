import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF

/// HEIF files built byte by byte: `ftyp`, then `mdat` at a known offset, then `meta`, so that
/// `iloc` offsets are known before `meta` is written.
enum HEIFBytes {
    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 255), UInt8(value & 255)] }
    static func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(8 + payload.count) + Array(type.utf8) + payload
    }
    static func full(_ type: String, version: UInt8 = 0, flags: Int = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version] + be32(flags).suffix(3) + payload)
    }

    static let ftyp = box("ftyp", Array("heic".utf8) + be32(0) + Array("mif1heic".utf8))
    /// The media data: 16 bytes of "picture" at 28..<44, then a grid's 8 bytes, then an Exif
    /// payload with the `Exif\0\0` prefix some writers include in the skipped count.
    static let picture = [UInt8](repeating: 0xAB, count: 16)
    static let gridData: [UInt8] = [0, 0, 0, 1] + be16(160) + be16(96)  // 1 row, 2 columns, 160x96
    static let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 0]
    static let exifData: [UInt8] = be32(6) + Array("Exif".utf8) + [0, 0] + tiff
    static let mdat = box("mdat", picture + gridData + exifData)
    static let pictureOffset = ftyp.count + 8
    static let gridOffset = pictureOffset + picture.count
    static let exifOffset = gridOffset + gridData.count

    static func infe(_ id: Int, _ type: String, hidden: Bool = false, version: UInt8 = 2) -> [UInt8] {
        full(
            "infe", version: version, flags: hidden ? 1 : 0,
            (version == 2 ? be16(id) : be32(id)) + be16(0) + Array(type.utf8) + [0])
    }

    /// iloc version 1, 4-byte offsets and lengths, no base offset: (id, method, offset, length).
    static func iloc(_ entries: [(Int, Int, Int, Int)], count: Int? = nil) -> [UInt8] {
        var payload: [UInt8] = [0x44, 0x00] + be16(count ?? entries.count)
        for (id, method, offset, length) in entries {
            payload += be16(id) + be16(method) + be16(0) + be16(1) + be32(offset) + be32(length)
        }
        return full("iloc", version: 1, payload)
    }

    static func ipma(_ entries: [(Int, [Int])], count: Int? = nil) -> [UInt8] {
        var payload = be32(count ?? entries.count)
        for (id, indices) in entries {
            payload += be16(id) + [UInt8(indices.count)] + indices.map { UInt8($0) | 0x80 }
        }
        return full("ipma", payload)
    }

    static func iref(_ references: [(String, Int, [Int])]) -> [UInt8] {
        full("iref", references.flatMap { type, from, to in box(type, be16(from) + be16(to.count) + to.flatMap(be16)) })
    }

    static let ispe = full("ispe", be32(80) + be32(96))
    static let properties: [[UInt8]] = [
        ispe, box("hvcC", [1, 2, 3]), box("imir", [0]), box("irot", [1]),
        full("pixi", [3, 10, 10, 10]), box("colr", Array("nclx".utf8) + [0, 1, 0, 13, 0, 6, 0x80]),
        full("auxC", Array("urn:mpeg:hevc:2015:auxid:1".utf8) + [0]),
        box("clap", be32(80) + be32(1) + be32(96) + be32(1) + be32(-5) + be32(2) + be32(3) + be32(1)),
    ]

    /// A grid (item 1) of two tiles (2, 3) with imir then irot, a thumbnail (4), an alpha plane
    /// (5) and an Exif item (6), each part replaceable.
    static func file(
        pitm: Int = 1, items: [[UInt8]]? = nil, itemCount: Int? = nil, locations: [UInt8]? = nil,
        references: [UInt8]? = nil, associations: [UInt8]? = nil, grid: [UInt8]? = nil
    ) -> [UInt8] {
        let infes =
            items ?? [
                infe(1, "grid"), infe(2, "hvc1", hidden: true), infe(3, "hvc1", hidden: true), infe(4, "hvc1"),
                infe(5, "hvc1", hidden: true), infe(6, "Exif", hidden: true),
            ]
        let gridBytes = grid ?? gridData
        let body = picture + gridBytes + exifData
        let gridAt = pictureOffset + picture.count, exifAt = gridAt + gridBytes.count
        let meta = full(
            "meta",
            full("hdlr", be32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
                + full("pitm", be16(pitm))
                + full("iinf", be16(itemCount ?? infes.count) + infes.flatMap { $0 })
                + (locations
                    ?? iloc([
                        (1, 0, gridAt, gridBytes.count), (2, 0, pictureOffset, 8), (3, 0, pictureOffset + 8, 8),
                        (4, 0, pictureOffset, 16), (5, 0, pictureOffset, 4), (6, 0, exifAt, exifData.count),
                    ]))
                + (references
                    ?? iref([("dimg", 1, [2, 3]), ("thmb", 4, [1]), ("auxl", 5, [1]), ("cdsc", 6, [1])]))
                + box(
                    "iprp",
                    box("ipco", properties.flatMap { $0 })
                        + (associations
                            ?? ipma([
                                (1, [1, 3, 4]), (2, [2, 1, 5, 6]), (3, [2, 1, 5]), (4, [2, 1]), (5, [2, 1, 7]),
                            ]))))
        return ftyp + box("mdat", body) + meta
    }

    static func reason(_ bytes: [UInt8]) -> String {
        do {
            _ = try HEIFStructure(MemoryBytes(bytes))
            return "read"
        } catch { return error.reason }
    }
}

@Suite struct HEIFMalformedTests {
    @Test func theBuiltFileReads() throws {
        let source = MemoryBytes(HEIFBytes.file())
        let heif = try HEIFStructure(source)
        #expect(heif.metaAfterMediaData)
        let grid = try #require(heif.grid)
        #expect([grid.rows, grid.columns, grid.outputWidth, grid.outputHeight] == [1, 2, 160, 96])
        #expect(grid.tiles == [2, 3])
        let evidence = heif.evidence
        #expect(evidence.itemType == "grid")
        #expect(evidence.gridColumns == 2 && evidence.gridRows == 1)
        #expect(evidence.tileCodec == "hevc")
        // ipma order: imir axis 0 first, then irot 1. Applied in that order, a top-bottom flip
        // then a quarter turn anticlockwise is a transverse (EXIF 7); the other order would be 5.
        #expect(evidence.transforms == [.mirror(axis: 0), .rotation(anticlockwiseQuarterTurns: 1)])
        let flip = try #require(Orientation(heif: HEIFTransform(irot: 0, imir: 0)))
        let turn = try #require(Orientation(heif: HEIFTransform(irot: 1, imir: nil)))
        #expect(heif.orientation == flip.followed(by: turn))
        #expect(heif.orientation == .rightMirrored)
        #expect(heif.storedSize?.width == 160 && heif.storedSize?.height == 96)
        #expect(heif.bitDepth == 10)  // the first tile's pixi
        #expect(evidence.colourType == "nclx")
        #expect(evidence.auxiliary == ["alpha"])
        #expect(
            evidence.thumbnails == [
                EmbeddedImage(
                    codec: "hevc", offset: HEIFBytes.pictureOffset, length: 16, width: 80, height: 96,
                    location: "thumbnail item 4")
            ])
        #expect(heif.item(2)?.isHidden == true && heif.item(4)?.isHidden == false)
        let exif = try #require(try heif.exifTIFF(in: source))
        #expect(exif.bytes == HEIFBytes.tiff)
        #expect(exif.offset == Int64(HEIFBytes.exifOffset + 10))
        #expect(try heif.data(of: 2, in: source) == Array(HEIFBytes.picture.prefix(8)))
    }

    @Test func cleanApertureFractionsAreSigned() throws {
        let associations = HEIFBytes.ipma([(1, [1, 8]), (2, [2, 1]), (3, [2, 1])])
        let heif = try HEIFStructure(MemoryBytes(HEIFBytes.file(associations: associations)))
        #expect(
            heif.evidence.transforms == [
                .cleanAperture(width: 80, height: 96, horizontalOffset: -2.5, verticalOffset: 3)
            ])
    }

    @Test func dataInIdatAndWithoutCount() throws {
        // One hvc1 item whose data (and an Exif payload without the prefix) sit in `idat`.
        let tiff = HEIFBytes.tiff
        let idat = HEIFBytes.box("idat", [9, 9, 9, 9] + HEIFBytes.be32(0) + tiff)
        let meta = HEIFBytes.full(
            "meta",
            HEIFBytes.full("hdlr", HEIFBytes.be32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
                + HEIFBytes.full("pitm", version: 1, HEIFBytes.be32(70000))
                + HEIFBytes.full(
                    "iinf", version: 1,
                    HEIFBytes.be32(2) + HEIFBytes.infe(70000, "av01", version: 3)
                        + HEIFBytes.infe(70001, "Exif", version: 3))
                + HEIFBytes.full(
                    "iloc", version: 2,
                    [0x44, 0x00] + HEIFBytes.be32(2)
                        + HEIFBytes.be32(70000) + HEIFBytes.be16(1) + HEIFBytes.be16(0) + HEIFBytes.be16(1)
                        + HEIFBytes.be32(0) + HEIFBytes.be32(4)
                        + HEIFBytes.be32(70001) + HEIFBytes.be16(1) + HEIFBytes.be16(0) + HEIFBytes.be16(1)
                        + HEIFBytes.be32(4) + HEIFBytes.be32(4 + tiff.count))
                + idat
                + HEIFBytes.full(
                    "iref", version: 1,
                    HEIFBytes.box("cdsc", HEIFBytes.be32(70001) + HEIFBytes.be16(1) + HEIFBytes.be32(70000)))
                + HEIFBytes.box(
                    "iprp",
                    HEIFBytes.box("ipco", HEIFBytes.ispe)
                        + HEIFBytes.full(
                            "ipma", version: 1, flags: 1,
                            HEIFBytes.be32(1) + HEIFBytes.be32(70000) + [1] + HEIFBytes.be16(0x8001))))
        let bytes = HEIFBytes.ftyp + meta
        let source = MemoryBytes(bytes)
        let heif = try HEIFStructure(source)
        #expect(heif.primaryItemID == 70000)
        #expect(heif.evidence.tileCodec == "av1")
        #expect(heif.primaryItem?.properties.map(\.property) == [.imageSpatialExtent(width: 80, height: 96)])
        #expect(heif.primaryItem?.properties.map(\.isEssential) == [true])
        #expect(try heif.data(of: 70000, in: source) == [9, 9, 9, 9])
        let exif = try #require(try heif.exifTIFF(in: source))
        #expect(exif.bytes == tiff)
        let offset = try #require(exif.offset)
        #expect(Array(bytes[Int(offset)..<Int(offset) + tiff.count]) == tiff)
        #expect(!heif.metaAfterMediaData)
    }

    @Test func constructionMethodTwoIsRefusedWhenRead() throws {
        let locations = HEIFBytes.iloc([
            (1, 2, 0, 8), (2, 0, HEIFBytes.pictureOffset, 8), (3, 0, HEIFBytes.pictureOffset, 8),
        ])
        let error = #expect(throws: ISOBMFFError.self) {
            try HEIFStructure(MemoryBytes(HEIFBytes.file(locations: locations)))
        }
        #expect(error?.kind == .unsupported)
        #expect(error?.reason == "item 1 is built from other items (iloc construction method 2)")
    }

    /// An `iloc` extent in the file past its end: the file was cut (issue 24). The structure is
    /// read and says so (`truncation`, the `file-truncated` finding); reading that item's data throws.
    /// (A grid's own item, whose data the structure needs, past the end stays an error: below.)
    @Test(arguments: [
        (
            (HEIFBytes.pictureOffset, 1 << 30),
            "item 2's data at \(HEIFBytes.pictureOffset) (1073741824 bytes) runs past the end of the file"
        ),
        ((1 << 30, 4), "item 2's data at 0 + 1073741824 starts past the end of the file"),
    ])
    func anExtentPastTheEndIsATruncation(tile: (offset: Int, length: Int), expected: String) throws {
        let locations = HEIFBytes.iloc([
            (1, 0, HEIFBytes.gridOffset, HEIFBytes.gridData.count), (2, 0, tile.offset, tile.length),
            (3, 0, HEIFBytes.pictureOffset + 8, 8),
        ])
        let source = MemoryBytes(HEIFBytes.file(locations: locations))
        let heif = try HEIFStructure(source)
        #expect(heif.truncation == expected)
        #expect(throws: ISOBMFFError.self) { try heif.data(of: 2, in: source) }
        #expect(try heif.data(of: 3, in: source).count == 8)
    }

    @Test(
        arguments: [
            // truncated meta: the file ends half-way through it
            ("truncated meta", Array(HEIFBytes.file().dropLast(60)), "'meta' box at"),
            (
                "grid item past the end", HEIFBytes.file(locations: HEIFBytes.iloc([(1, 0, 28, 1 << 30)])),
                "item 1 has 1073741824 bytes of data"
            ),
            (
                "grid item starts past the end", HEIFBytes.file(locations: HEIFBytes.iloc([(1, 0, 1 << 30, 4)])),
                "is past the end of the file"
            ),
            (
                "huge tile count", HEIFBytes.file(grid: [0, 0, 255, 255] + HEIFBytes.be16(160) + HEIFBytes.be16(96)),
                "is 256x256 tiles but has 2 'dimg' references"
            ),
            (
                "huge output", HEIFBytes.file(grid: [0, 1, 0, 1] + HEIFBytes.be32(100_000) + HEIFBytes.be32(100_000)),
                "claims an output of 100000x100000 pixels"
            ),
            (
                "largest output", HEIFBytes.file(grid: [0, 1, 0, 1] + HEIFBytes.be32(-1) + HEIFBytes.be32(-1)),
                "claims an output of 4294967295x4294967295 pixels"
            ),
            (
                "extents of no bytes",
                HEIFBytes.file(
                    locations: HEIFBytes.full(
                        "iloc", version: 1,
                        [0, 0] + HEIFBytes.be16(1) + HEIFBytes.be16(1) + HEIFBytes.be16(0) + HEIFBytes.be16(0)
                            + HEIFBytes.be16(65535))), "claims 65535 extents in 0 bytes"
            ),
            (
                "output the tiles cannot cover",
                HEIFBytes.file(grid: [0, 0, 0, 1] + HEIFBytes.be16(4000) + HEIFBytes.be16(96)), "cannot cover 4000x96"
            ),
            (
                "circular dimg", HEIFBytes.file(references: HEIFBytes.iref([("dimg", 1, [2, 3]), ("dimg", 2, [1])])),
                "derived from itself"
            ),
            (
                "self dimg", HEIFBytes.file(references: HEIFBytes.iref([("dimg", 4, [4]), ("dimg", 1, [2, 3])])),
                "item 4 is derived from itself"
            ),
            ("iinf count", HEIFBytes.file(itemCount: 60000), "claims 60000 items in"),
            ("iinf count small", HEIFBytes.file(itemCount: 2), "claims 2 items but holds 6"),
            ("iloc count", HEIFBytes.file(locations: HEIFBytes.iloc([(1, 0, 28, 8)], count: 65535)), "'iloc' box at"),
            (
                "ipma count", HEIFBytes.file(associations: HEIFBytes.ipma([(1, [1])], count: 0x7FFF_FFFF)),
                "claims 2147483647 items in"
            ),
            (
                "iref count",
                HEIFBytes.file(
                    references: HEIFBytes.full(
                        "iref", HEIFBytes.box("dimg", HEIFBytes.be16(1) + HEIFBytes.be16(65535) + HEIFBytes.be16(2)))),
                "claims 65535 items in 2 bytes"
            ),
            (
                "property index", HEIFBytes.file(associations: HEIFBytes.ipma([(1, [1, 9])])),
                "item 1 names property 9 but 'ipco' has 8"
            ),
            ("pitm missing", HEIFBytes.file(pitm: 7), "primary item 7 is not in 'iinf'"),
            (
                // To a missing item: libheif refuses it too ("Thumbnail references a non-existing image").
                // From a missing item is passed over, as libheif does (HostileReaderTests).
                "reference to nothing",
                HEIFBytes.file(references: HEIFBytes.iref([("dimg", 1, [2, 3]), ("thmb", 2, [40])])), "names item 40"
            ),
            (
                "ipma item missing", HEIFBytes.file(associations: HEIFBytes.ipma([(1, [1]), (99, [1])])),
                "'ipma' names item 99"
            ),
            (
                "duplicate item",
                HEIFBytes.file(
                    items: [HEIFBytes.infe(1, "hvc1"), HEIFBytes.infe(1, "hvc1")], locations: HEIFBytes.iloc([]),
                    references: HEIFBytes.iref([]), associations: HEIFBytes.ipma([])), "item 1 is listed twice"
            ),
            (
                "not pict",
                HEIFBytes.ftyp
                    + HEIFBytes.full("meta", HEIFBytes.full("hdlr", HEIFBytes.be32(0) + Array("vide".utf8) + [0])),
                "'meta' handler is 'vide', not 'pict'"
            ),
            ("no ftyp", HEIFBytes.box("free", []), "not a heif file: no 'ftyp' box at the start"),
        ] as [(String, [UInt8], String)])
    func hostileInputGivesAReason(label: String, bytes: [UInt8], expected: String) {
        let reason = HEIFBytes.reason(bytes)
        #expect(reason.contains(expected), "\(label): \(reason)")
        #expect(reason != "read")
    }

    /// Every prefix of the built file and every single-byte change of its `meta` box: read or
    /// throw, never crash, and never a read the parser did not check first.
    @Test func everyPrefixAndByteChangeEndsCleanly() {
        let file = HEIFBytes.file()
        var reads = 0
        for length in stride(from: 0, through: file.count, by: 1) {
            let source = CountingSource(Array(file.prefix(length)))
            _ = try? HEIFStructure(source)
            reads += source.readsPastTheEnd
        }
        let metaStart = HEIFBytes.ftyp.count + HEIFBytes.mdat.count
        for position in metaStart..<file.count {
            for value: UInt8 in [0, 1, 0x7F, 0xFF] {
                var changed = file
                changed[position] = value
                let source = CountingSource(changed)
                if let heif = try? HEIFStructure(source) {
                    _ = heif.evidence
                    _ = try? heif.exifTIFF(in: source)
                }
            }
        }
        #expect(reads == 0)
    }
}
