package import VidorientIO

/// Where the bytes that carry a HEIF file's item properties and data locations sit: the boxes on
/// the path `meta` → `iprp` → `ipco`/`ipma`, every property box, every `ipma` association with
/// its file offset, and every `iloc` offset field with its width. `HEIFStructure` says what the
/// boxes mean; this says where to write, for a byte-level editor (the HEIF orientation fix).
/// Read with the same bounded box walker, so hostile sizes and counts end in one `ISOBMFFError`.
package struct HEIFLayout: Sendable, Hashable {
    /// One property index of an `ipma` entry, where it is written.
    package struct Association: Sendable, Hashable {
        /// 1-based index into `ipco`'s children; 0 means "no property".
        package var propertyIndex: Int
        package var isEssential: Bool
        /// File offset of the 1- or 2-byte field.
        package var offset: Int64
    }

    /// One item's entry in an `ipma` box.
    package struct AssociationEntry: Sendable, Hashable {
        package var itemID: UInt32
        /// File offset of the entry's 1-byte association count.
        package var countOffset: Int64
        package var associations: [Association]
        /// File offset just past the entry's last association.
        package var end: Int64
    }

    /// One `ipma` box.
    package struct AssociationBox: Sendable, Hashable {
        package var box: BoxHeader
        package var version: Int
        package var flags: Int
        /// 1, or 2 when flags bit 0 is set; the essential bit is the field's top bit.
        package var indexWidth: Int
        package var entries: [AssociationEntry]

        /// The largest property index the fields can hold.
        package var maximumIndex: Int { indexWidth == 2 ? 0x7FFF : 0x7F }
    }

    /// An integer field of `iloc`: where it is written, how wide it is, and its value.
    package struct Field: Sendable, Hashable {
        package var offset: Int64
        package var width: Int
        package var value: UInt64
    }

    /// One item's `iloc` entry, field by field.
    package struct Location: Sendable, Hashable {
        package var itemID: UInt32
        /// 0: offsets in this file; 1: in `idat`; 2: in another item.
        package var constructionMethod: Int
        /// 0 means this file.
        package var dataReferenceIndex: Int
        /// Nil when `base_offset_size` is 0.
        package var baseOffset: Field?
        package var extents: [Extent]
    }

    package struct Extent: Sendable, Hashable {
        /// Nil when `offset_size` is 0 (the extent starts at the base offset).
        package var offset: Field?
        /// 0 means "to the end" (of the file, for construction method 0).
        package var length: UInt64
    }

    package var meta: BoxHeader
    package var iprp: BoxHeader
    package var ipco: BoxHeader
    /// `ipco`'s children in order: property index `n` is `properties[n - 1]`.
    package var properties: [BoxHeader]
    package var associationBoxes: [AssociationBox]
    package var locations: [Location]
}

extension HEIFLayout {
    /// Reads the layout of `source`, which must hold the whole file and have a `meta` box with
    /// an `iprp` box (as every HEIF image has).
    package init(_ source: some ByteSource) throws(ISOBMFFError) {
        var parser = HEIFParser(source)
        self = try parser.layout()
    }
}

extension HEIFParser {
    mutating func layout() throws(ISOBMFFError) -> HEIFLayout {
        let top = try walker.boxes(from: 0, to: source.size, depth: 0, in: nil)
        let metas = top.filter { $0.type == "meta" }
        guard metas.count == 1, let meta = metas.first else {
            throw .malformed("the file has \(metas.count) top-level 'meta' boxes")
        }
        guard meta.size <= Self.maximumMetaSize else {
            throw .malformed("'meta' box is \(meta.size) bytes, more than \(Self.maximumMetaSize)")
        }
        let children = try children(ofMeta: meta)
        let iprps = children.filter { $0.type == "iprp" }
        guard iprps.count == 1, let iprp = iprps.first else {
            throw .malformed("'meta' box has \(iprps.count) 'iprp' boxes")
        }
        let inside = try walker.children(of: iprp, depth: 2)
        let ipcos = inside.filter { $0.type == "ipco" }
        guard ipcos.count == 1, let ipco = ipcos.first else {
            throw .malformed("'iprp' box has \(ipcos.count) 'ipco' boxes")
        }
        let properties = try walker.children(of: ipco, depth: 3)

        var associationBoxes: [HEIFLayout.AssociationBox] = []
        for ipma in inside where ipma.type == "ipma" {
            var cursor = try walker.payload(of: ipma, limit: Int(Self.maximumMetaSize))
            let version = Int(try cursor.uint8())
            let flags = Int(try cursor.uint(3))
            let idSize = version < 1 ? 2 : 4
            let indexWidth = flags & 1 != 0 ? 2 : 1
            let count = Int(try cursor.uint32())
            guard count <= cursor.remaining / (idSize + 1) else {
                throw .malformed("'ipma' box at \(ipma.offset) claims \(count) items in \(cursor.remaining) bytes")
            }
            let base = ipma.payloadOffset
            var entries: [HEIFLayout.AssociationEntry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let id = UInt32(try cursor.uint(idSize))
                let countOffset = base + Int64(cursor.position)
                let associationCount = Int(try cursor.uint8())
                var associations: [HEIFLayout.Association] = []
                for _ in 0..<associationCount {
                    let at = base + Int64(cursor.position)
                    let value = Int(try cursor.uint(indexWidth))
                    let essentialBit = indexWidth == 2 ? 0x8000 : 0x80
                    associations.append(
                        .init(
                            propertyIndex: value & (essentialBit - 1), isEssential: value & essentialBit != 0,
                            offset: at))
                }
                entries.append(
                    .init(
                        itemID: id, countOffset: countOffset, associations: associations,
                        end: base + Int64(cursor.position)))
            }
            associationBoxes.append(
                .init(box: ipma, version: version, flags: flags, indexWidth: indexWidth, entries: entries))
        }

        var locations: [HEIFLayout.Location] = []
        let ilocs = children.filter { $0.type == "iloc" }
        guard ilocs.count <= 1 else { throw .malformed("'meta' box has \(ilocs.count) 'iloc' boxes") }
        if let iloc = ilocs.first {
            locations = try readLocationFields(iloc)
        }
        return HEIFLayout(
            meta: meta, iprp: iprp, ipco: ipco,
            properties: properties,
            associationBoxes: associationBoxes,
            locations: locations)
    }

    /// `iloc` field by field (the same fields `readLocations` resolves), with where each offset is.
    func readLocationFields(_ iloc: BoxHeader) throws(ISOBMFFError) -> [HEIFLayout.Location] {
        var cursor = try walker.payload(of: iloc, limit: Int(Self.maximumMetaSize))
        let base = iloc.payloadOffset
        let header = try ILocHeader(&cursor, box: iloc)
        func field(_ width: Int) throws(ISOBMFFError) -> HEIFLayout.Field? {
            guard width > 0 else { return nil }
            let at = base + Int64(cursor.position)
            return HEIFLayout.Field(offset: at, width: width, value: try cursor.uint(width))
        }
        var locations: [HEIFLayout.Location] = []
        locations.reserveCapacity(header.count)
        for _ in 0..<header.count {
            let id = UInt32(try cursor.uint(header.idSize))
            let method = header.version == 0 ? 0 : Int(try cursor.uint16() & 15)
            let reference = Int(try cursor.uint16())
            let baseOffset = try field(header.baseSize)
            let extentCount = try header.extentCount(&cursor, item: id)
            var extents: [HEIFLayout.Extent] = []
            extents.reserveCapacity(extentCount)
            for _ in 0..<extentCount {
                try cursor.skip(header.indexSize)
                let offset = try field(header.offsetSize)
                extents.append(HEIFLayout.Extent(offset: offset, length: try cursor.uint(header.lengthSize)))
            }
            locations.append(
                HEIFLayout.Location(
                    itemID: id, constructionMethod: method, dataReferenceIndex: reference, baseOffset: baseOffset,
                    extents: extents))
        }
        return locations
    }
}
