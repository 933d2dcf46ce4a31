package import VidorientCore
package import VidorientIO

/// What a HEIF, HEIC or AVIF file's boxes say about its items (ISO/IEC 23008-12): the `meta` box
/// wherever it sits, every item with its type, data location and properties in `ipma` order, the
/// references between items, and a grid primary item's layout. Read from the boxes alone, without
/// decoding a pixel, so that orientation can be judged from `irot`/`imir` as a viewer applies them.
package struct HEIFStructure: Sendable, Hashable {
    /// One item of `iinf`, with where its data is (`iloc`) and its properties (`ipma`).
    package struct Item: Sendable, Hashable {
        package var id: UInt32
        /// `hvc1`, `av01`, `grid`, `iden`, `jpeg`, `Exif`, `mime`…
        package var type: FourCC
        package var name: String
        /// The MIME type of a `mime` item (`application/rdf+xml` for XMP).
        package var contentType: String?
        /// `infe` flag 1: not meant to be shown on its own (grid tiles, Exif).
        package var isHidden: Bool
        /// `iloc` construction method: 0 the file, 1 the `idat` box, 2 another item (not read).
        package var constructionMethod: Int
        /// The item's data, in order; offsets are absolute in the file for both method 0 and 1.
        package var extents: [Extent]
        /// The item's properties in the order `ipma` lists them: the order is part of their meaning.
        package var properties: [PropertyAssociation]

        /// The extents' lengths added up, saturating: an extent of a cut file keeps the length
        /// `iloc` claims (up to 2⁶³ − 1), and two of them pass `Int64.max` (issue 28: a trap).
        package var dataLength: Int64 {
            extents.reduce(Int64(0)) { total, extent in
                let (sum, overflow) = total.addingReportingOverflow(extent.length)
                return overflow ? Int64.max : sum
            }
        }
    }

    /// One `iloc` extent, resolved to an absolute file range.
    package struct Extent: Sendable, Hashable {
        package var offset: Int64
        package var length: Int64
    }

    /// One `ipma` association: a property of `ipco` and whether a reader must understand it.
    package struct PropertyAssociation: Sendable, Hashable {
        package var property: Property
        package var isEssential: Bool
    }

    /// The item properties this reader understands; the rest are kept by type.
    package enum Property: Sendable, Hashable {
        /// `ispe`: the image's width and height in pixels, before any transform.
        case imageSpatialExtent(width: Int, height: Int)
        /// `irot`: anticlockwise quarter turns, 0–3.
        case rotation(Int)
        /// `imir`: axis 0 flips top and bottom, 1 swaps left and right.
        case mirror(axis: Int)
        /// `clap`: the clean aperture as the fractions of the box.
        case cleanAperture(width: Double, height: Double, horizontalOffset: Double, verticalOffset: Double)
        /// `pixi`: bits per channel.
        case pixelInformation(bitsPerChannel: [Int])
        /// `colr`: its colour type (`nclx`, `prof`, `rICC`).
        case colour(type: FourCC)
        /// `auxC`: the auxiliary image's type URN.
        case auxiliaryType(String)
        /// `hvcC`, `av1C` and every other property, by box type.
        case other(FourCC)

        /// The box type the property was read from.
        package var type: FourCC {
            switch self {
            case .imageSpatialExtent: "ispe"
            case .rotation: "irot"
            case .mirror: "imir"
            case .cleanAperture: "clap"
            case .pixelInformation: "pixi"
            case .colour: "colr"
            case .auxiliaryType: "auxC"
            case .other(let type): type
            }
        }
    }

    /// One `iref` reference: `from` refers to each of `to` with this type (`dimg`, `thmb`,
    /// `cdsc`, `auxl`, …).
    package struct Reference: Sendable, Hashable {
        package var type: FourCC
        package var from: UInt32
        package var to: [UInt32]
    }

    /// A `grid` item's layout, read from its data and checked against its `dimg` references.
    package struct Grid: Sendable, Hashable {
        package var rows: Int
        package var columns: Int
        package var outputWidth: Int
        package var outputHeight: Int
        /// The tile items, row by row.
        package var tiles: [UInt32]
    }

    package var fileSize: Int64
    package var majorBrand: FourCC?
    package var compatibleBrands: [FourCC]
    /// Every top-level box in file order.
    package var topLevelBoxes: [BoxHeader]
    package var meta: BoxHeader
    /// Whether `meta` comes after the first `mdat` (Samsung, `exif-at-eof` writers).
    package var metaAfterMediaData: Bool
    package var primaryItemID: UInt32
    /// Items in `iinf` order.
    package var items: [Item]
    package var references: [Reference]
    /// The primary item's grid, when it is one.
    package var grid: Grid?
    /// A Samsung motion photo's top-level `mpvd` box, which holds a whole MP4.
    package var motionVideoBox: BoxHeader?
    /// The absolute byte range of the motion photo's video: the `mpvd` box's payload.
    package var motionVideoRange: Range<Int64>?
    /// Why the file ends before its data does (its last box, or an item's `iloc` extent, runs
    /// past the end: a cut copy or download), for the `file-truncated` finding; nil for a
    /// whole file. Reading such an item's data throws.
    package var truncation: String?
    /// Items that `ipma` names in more than one entry, once per entry passed over: only the first
    /// is read, as libheif reads it (exiftool reads them all, the last `irot` winning).
    package var repeatedEntries: [UInt32] = []
    /// `iref` references from items that are not in `iinf`, passed over as libheif passes them.
    package var ignoredReferences: [String] = []

    package func item(_ id: UInt32) -> Item? { items.first { $0.id == id } }

    /// The primary item: the parser has checked that it exists, but `primaryItemID` and `items`
    /// can be changed since, so an ID that names no item is nil, not a trap.
    package var primaryItem: Item? { item(primaryItemID) }

    /// The items that `from` refers to with `type`, in the order written.
    package func referenced(from: UInt32, type: FourCC) -> [UInt32] {
        references.filter { $0.type == type && $0.from == from }.flatMap(\.to)
    }

    /// The items that refer to `to` with `type`, in file order.
    package func referring(to: UInt32, type: FourCC) -> [UInt32] {
        references.filter { $0.type == type && $0.to.contains(to) }.map(\.from)
    }

    /// The primary item's stored size: its `ispe`, or a grid's output size.
    package var storedSize: (width: Int, height: Int)? {
        if let grid { return (grid.outputWidth, grid.outputHeight) }
        return primaryItem?.spatialExtent
    }

    /// The primary item's bits per channel (`pixi`, or the first tile's), nil when unstated.
    package var bitDepth: Int? {
        let candidates = [primaryItemID] + (grid?.tiles.prefix(1) ?? [])
        for id in candidates {
            for association in item(id)?.properties ?? [] {
                if case .pixelInformation(let bits) = association.property, let first = bits.first { return first }
            }
        }
        return nil
    }

    /// The codec name of an item: `hevc`, `av1`, `jpeg`, or nil for a derived or unknown item.
    package func codec(of id: UInt32) -> String? {
        guard let item = item(id) else { return nil }
        let types = Set(item.properties.map(\.property.type))
        if item.type == "hvc1" || types.contains("hvcC") { return "hevc" }
        if item.type == "av01" || types.contains("av1C") { return "av1" }
        if item.type == "jpeg" { return "jpeg" }
        return nil
    }

    /// The facts `PhotoEvidence.heif` holds for the primary item.
    package var evidence: HEIFEvidence {
        let primary = primaryItem
        var evidence = HEIFEvidence(
            primaryItemID: Int(primaryItemID), itemType: primary?.type.description ?? "no item \(primaryItemID)")
        evidence.transforms = primary?.transforms ?? []
        evidence.gridColumns = grid?.columns
        evidence.gridRows = grid?.rows
        evidence.tileCodec = grid.flatMap { $0.tiles.first.flatMap { codec(of: $0) } } ?? codec(of: primaryItemID)
        evidence.thumbnails = referring(to: primaryItemID, type: "thmb").compactMap { id in
            guard let thumbnail = item(id) else { return nil }
            let size = thumbnail.spatialExtent
            // Method 2 extents are offsets into other items, not the file: no offset or length.
            let inFile = thumbnail.constructionMethod != 2
            let single = thumbnail.extents.count == 1 && inFile ? thumbnail.extents.first : nil
            var image = EmbeddedImage(
                codec: codec(of: id) ?? thumbnail.type.description, offset: single.map { Int($0.offset) },
                length: inFile ? Int(thumbnail.dataLength) : 0, width: size?.width,
                height: size?.height, location: "thumbnail item \(id)")
            image.heifTransforms = thumbnail.transforms
            return image
        }
        evidence.auxiliary = referring(to: primaryItemID, type: "auxl").compactMap { id in
            for association in item(id)?.properties ?? [] {
                if case .auxiliaryType(let urn) = association.property { return HEIFStructure.auxiliaryName(urn) }
            }
            return nil
        }
        // A grid's colour is often stated on its tiles only (iPhone).
        evidence.colourType =
            ([primaryItemID] + (grid?.tiles.prefix(1) ?? [])).lazy.compactMap { id in
                self.item(id)?.properties.lazy.compactMap { association -> String? in
                    if case .colour(let type) = association.property { type.description } else { nil }
                }.first
            }.first
        evidence.metaAfterMediaData = metaAfterMediaData
        return evidence
    }

    /// The orientation the primary item's `irot` and `imir` give, composed in `ipma` order (Core's
    /// one rule, `Orientation(heifTransforms:)`); nil when a value is outside the eight.
    package var orientation: Orientation? { Orientation(heifTransforms: evidence.transforms) }

    /// `alpha`, `depth` and `hdrgainmap` for the URNs that mean them; any other URN as written.
    static func auxiliaryName(_ urn: String) -> String {
        switch urn {
        case "urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha", "urn:mpeg:avc:2015:auxid:1":
            "alpha"
        case "urn:mpeg:hevc:2015:auxid:2", "urn:mpeg:mpegB:cicp:systems:auxiliary:depth", "urn:mpeg:avc:2015:auxid:2":
            "depth"
        case "urn:com:apple:photo:2020:aux:hdrgainmap": "hdrgainmap"
        default: urn
        }
    }

    /// Every byte of an item's data, at most `limit`; throws for construction method 2, an
    /// extent outside the file, or data larger than `limit`.
    package func data(of id: UInt32, in source: some ByteSource, limit: Int = 16 << 20) throws(ISOBMFFError) -> [UInt8]
    {
        guard let item = item(id) else { throw .malformed("no item \(id)") }
        guard item.constructionMethod != 2 else {
            throw .unsupported("item \(id) is built from other items (iloc construction method 2)")
        }
        let total = item.dataLength
        guard total <= Int64(limit) else {
            throw .malformed("item \(id) has \(total) bytes of data, more than \(limit)")
        }
        var data: [UInt8] = []
        data.reserveCapacity(Int(total))
        for extent in item.extents {
            guard extent.offset >= 0, extent.length <= source.size - extent.offset else {
                throw .malformed(
                    "item \(id)'s data at \(extent.offset) (\(extent.length) bytes) is past the end of the file")
            }
            data += try source.read(at: extent.offset, count: Int(extent.length))
        }
        return data
    }

    /// The EXIF block of the primary item (an `Exif` item that describes it through `cdsc`), as
    /// TIFF bytes starting at `II` or `MM`, with their absolute file offset when the item's data
    /// is one extent. Nil when the file has none.
    package func exifTIFF(in source: some ByteSource) throws(ISOBMFFError) -> (bytes: [UInt8], offset: Int64?)? {
        guard let id = describing(type: "Exif") else { return nil }
        let data = try data(of: id, in: source)
        var cursor = ByteCursor(data, box: "Exif", at: item(id)!.extents.first?.offset ?? 0)
        let skip = Int(try cursor.uint32())
        // The payload's first field says how far the TIFF header is past it; some writers put
        // `Exif\0\0` there and count it, others leave it out of the count.
        var start = 4
        if skip <= data.count - 4 { start += skip }
        if data.count >= start + 6, Array(data[start..<start + 6]) == Array("Exif\0\0".utf8) { start += 6 }
        if !HEIFStructure.isTIFFHeader(data, at: start) {
            guard let found = (4..<min(data.count, 64)).first(where: { HEIFStructure.isTIFFHeader(data, at: $0) })
            else {
                throw .malformed("exif item \(id) has no tiff header")
            }
            start = found
        }
        let item = item(id)!
        let offset = item.extents.count == 1 ? item.extents[0].offset + Int64(start) : nil
        return (Array(data[start...]), offset)
    }

    /// The XMP packet of the primary item (a `mime` item of type `application/rdf+xml` that
    /// describes it through `cdsc`), as stored; nil when the file has none.
    package func xmp(in source: some ByteSource) throws(ISOBMFFError) -> [UInt8]? {
        guard let id = describing(type: "mime", contentType: "application/rdf+xml") else { return nil }
        return try data(of: id, in: source)
    }

    /// A metadata item that describes the primary item: `cdsc` to it, or (for writers that leave
    /// the reference out) the only such item in the file.
    package func describing(type: FourCC, contentType: String? = nil) -> UInt32? {
        let matching = items.filter { $0.type == type && (contentType == nil || $0.contentType == contentType) }
        let linked = referring(to: primaryItemID, type: "cdsc")
        return matching.first { linked.contains($0.id) }?.id ?? (matching.count == 1 ? matching[0].id : nil)
    }

    static func isTIFFHeader(_ data: [UInt8], at start: Int) -> Bool {
        guard start >= 0, data.count >= start + 4 else { return false }
        let head = Array(data[start..<start + 4])
        return head == [0x49, 0x49, 0x2A, 0x00] || head == [0x4D, 0x4D, 0x00, 0x2A]
    }

    /// The motion photo's video, probed from its own boxes with its own orientation; nil when
    /// the file has no `mpvd` box or it does not hold a readable movie.
    package func motionVideoProbe(path: String, source: some ByteSource) -> MediaProbe? {
        guard let range = motionVideoRange else { return nil }
        let video = SubrangeBytes(source, range: range)
        // Absent is fine: a motion photo's video is extra; the still's report does not depend on it.
        guard let movie = try? MovieStructure(video) else { return nil }
        return movie.mediaProbe(path: path, source: video)
    }
}

extension HEIFStructure {
    /// Reads the structure of the file at `path`.
    package init(path: String) throws(ISOBMFFError) {
        try self.init(ReadAheadBytes(FileBytes(path: path)))
    }

    /// Reads the structure of `source`, which must hold the whole file.
    package init(_ source: some ByteSource) throws(ISOBMFFError) {
        var parser = HEIFParser(source)
        self = try parser.parse()
    }
}

extension HEIFStructure.Item {
    /// The item's `irot`, `imir` and `clap` in `ipma` order, as Core composes them.
    package var transforms: [HEIFItemTransform] {
        properties.compactMap { association in
            switch association.property {
            case .rotation(let turns): .rotation(anticlockwiseQuarterTurns: turns)
            case .mirror(let axis): .mirror(axis: axis)
            case .cleanAperture(let width, let height, let horizontal, let vertical):
                .cleanAperture(width: width, height: height, horizontalOffset: horizontal, verticalOffset: vertical)
            default: nil
            }
        }
    }

    /// The orientation the item's own `irot`/`imir` give (Core's `Orientation(heifTransforms:)`);
    /// nil when a value is outside the eight.
    package var orientation: Orientation? { Orientation(heifTransforms: transforms) }

    /// The `ispe` width and height, nil when the item has none.
    package var spatialExtent: (width: Int, height: Int)? {
        for association in properties {
            if case .imageSpatialExtent(let width, let height) = association.property { return (width, height) }
        }
        return nil
    }
}

/// A range of another byte source seen as a whole source of its own: an MP4 inside a motion
/// photo's `mpvd` box, read by `MovieStructure` with offsets relative to its first byte.
package struct SubrangeBytes<Base: ByteSource>: ByteSource {
    package let base: Base
    package let range: Range<Int64>

    /// `range` is clamped to the base's bytes.
    package init(_ base: Base, range: Range<Int64>) {
        self.base = base
        let lower = min(max(range.lowerBound, 0), base.size)
        self.range = lower..<min(max(range.upperBound, lower), base.size)
    }

    package var size: Int64 { range.upperBound - range.lowerBound }

    package func read(at offset: Int64, count: Int) throws(ISOBMFFError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size, Int64(count) <= size - offset else {
            throw .malformed("read of \(count) bytes at offset \(offset) is past the end (\(size) bytes)")
        }
        return try base.read(at: range.lowerBound + offset, count: count)
    }
}

extension SubrangeBytes: Sendable where Base: Sendable {}
