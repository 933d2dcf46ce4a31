import VidorientIO

/// Reads a HEIF file's top-level boxes and its `meta` box into a `HEIFStructure`. Every count
/// is checked against the bytes that must hold it before anything is allocated from it, and
/// every item, property and reference it names is checked to exist, so a hostile file ends in
/// one `ISOBMFFError` after bounded work.
struct HEIFParser<Source: ByteSource> {
    let source: Source
    var walker: BoxWalker<Source>
    /// The first `iloc` extent in the file that runs past its end.
    var cutExtent: String?

    /// Larger than any `meta` box a camera writes (an iPhone's is a few kilobytes, with 50
    /// tiles); a `meta` box is read into memory whole.
    static var maximumMetaSize: Int64 { 16 << 20 }
    /// libheif's default security limit: no picture has more pixels.
    static var maximumGridPixels: Int64 { 1 << 30 }

    init(_ source: Source) {
        self.source = source
        self.walker = BoxWalker(source)
    }

    mutating func parse() throws(ISOBMFFError) -> HEIFStructure {
        // A file cut inside its media data still has its items; cut inside `meta` it has none.
        let top = try walker.boxes(from: 0, to: source.size, depth: 0, in: nil, cutEnd: true)
        if let cut = walker.cut, cut.box?.type == "meta" { throw .malformed(cut.reason) }
        guard let ftyp = top.first, ftyp.type == "ftyp" else {
            throw .malformed("not a heif file: no 'ftyp' box at the start")
        }
        var brands = try walker.payload(of: ftyp, limit: 4096)
        let major = try brands.fourCC()
        try brands.skip(4)
        var compatible: [FourCC] = []
        while brands.remaining >= 4 { compatible.append(try brands.fourCC()) }
        guard let meta = top.first(where: { $0.type == "meta" }) else {
            throw .malformed("no 'meta' box" + (walker.cut.map { " (the file is cut short: \($0.reason))" } ?? ""))
        }
        guard meta.size <= Self.maximumMetaSize else {
            throw .malformed("'meta' box is \(meta.size) bytes, more than \(Self.maximumMetaSize)")
        }
        let firstMdat = top.first { $0.type == "mdat" }
        let mpvd = top.first { $0.type == "mpvd" }

        let children = try children(ofMeta: meta)
        func only(_ type: FourCC) throws(ISOBMFFError) -> BoxHeader? {
            let found = children.filter { $0.type == type }
            guard found.count <= 1 else { throw .malformed("'meta' box has \(found.count) '\(type)' boxes") }
            return found.first
        }
        guard let hdlr = try only("hdlr") else { throw .malformed("'meta' box has no 'hdlr' box") }
        var handler = try walker.payload(of: hdlr, limit: 12)
        try handler.skip(8)
        let handlerType = try handler.fourCC()
        guard handlerType == "pict" else { throw .unsupported("'meta' handler is '\(handlerType)', not 'pict'") }
        guard let pitm = try only("pitm") else { throw .malformed("'meta' box has no 'pitm' box") }
        var primaryCursor = try walker.payload(of: pitm, limit: 8)
        let pitmVersion = try primaryCursor.uint8()
        try primaryCursor.skip(3)
        let primaryID = UInt32(try primaryCursor.uint(pitmVersion == 0 ? 2 : 4))

        guard let iinf = try only("iinf") else { throw .malformed("'meta' box has no 'iinf' box") }
        var items = try readItemInfo(iinf)
        let idat = try only("idat")
        if let iloc = try only("iloc") {
            try readLocations(iloc, idat: idat, into: &items)
        }
        var repeatedEntries: [UInt32] = []
        if let iprp = try only("iprp") {
            repeatedEntries = try readProperties(iprp, into: &items)
        }
        let stated = try only("iref").map { box throws(ISOBMFFError) in try readReferences(box) } ?? []
        let ids = Set(items.map(\.id))
        guard ids.contains(primaryID) else { throw .malformed("primary item \(primaryID) is not in 'iinf'") }
        // libheif reads the references of the items it has: one from an item missing from
        // 'iinf' (a `thmb` of a thumbnail that is not there) is never asked for, and the file
        // decodes. It is passed over here too, and named (`ignoredReferences`).
        let references = stated.filter { ids.contains($0.from) }
        let ignoredReferences = stated.filter { !ids.contains($0.from) }.map {
            "'\($0.type)' from item \($0.from), which is not in 'iinf'"
        }
        for reference in references {
            for id in [reference.from] + reference.to where !ids.contains(id) {
                throw .malformed("'\(reference.type)' reference names item \(id), which is not in 'iinf'")
            }
        }

        var structure = HEIFStructure(
            fileSize: source.size, majorBrand: major, compatibleBrands: compatible, topLevelBoxes: top,
            meta: meta, metaAfterMediaData: firstMdat.map { $0.offset < meta.offset } ?? false,
            primaryItemID: primaryID, items: items, references: references, grid: nil, motionVideoBox: mpvd,
            motionVideoRange: mpvd.map { $0.payloadOffset..<$0.end })
        structure.truncation = walker.cut?.reason ?? cutExtent
        structure.repeatedEntries = repeatedEntries
        structure.ignoredReferences = ignoredReferences
        try Self.checkDerivationIsAcyclic(structure)
        if structure.primaryItem?.type == "grid" {
            structure.grid = try readGrid(structure)
        }
        return structure
    }

    /// The boxes inside `meta`. HEIF's `meta` is a full box; QuickTime's is not: they are told
    /// apart by what follows.
    mutating func children(ofMeta meta: BoxHeader) throws(ISOBMFFError) -> [BoxHeader] {
        let peek = try walker.payload(of: meta, limit: 12).bytes
        let skip: Int64 = peek.count >= 8 && Array(peek[4..<8]) == FourCC("hdlr").bytes ? 0 : 4
        return try walker.children(of: meta, skipping: skip, depth: 1)
    }

    /// `iinf`: one `infe` per item.
    mutating func readItemInfo(_ iinf: BoxHeader) throws(ISOBMFFError) -> [HEIFStructure.Item] {
        var head = try walker.payload(of: iinf, limit: 8)
        let version = try head.uint8()
        try head.skip(3)
        let count = Int(try head.uint(version == 0 ? 2 : 4))
        let start = Int64(version == 0 ? 6 : 8)
        // An `infe` box is at least 12 bytes: its header, version and flags.
        guard Int64(count) * 12 <= iinf.payloadSize - min(start, iinf.payloadSize) else {
            throw .malformed("'iinf' box at \(iinf.offset) claims \(count) items in \(iinf.payloadSize) bytes")
        }
        let entries = try walker.children(of: iinf, skipping: start, depth: 2).filter { $0.type == "infe" }
        guard entries.count == count else {
            throw .malformed("'iinf' box at \(iinf.offset) claims \(count) items but holds \(entries.count)")
        }
        var items: [HEIFStructure.Item] = []
        items.reserveCapacity(count)
        var seen = Set<UInt32>()
        for entry in entries {
            var cursor = try walker.payload(of: entry, limit: 4096)
            let version = try cursor.uint8()
            let flags = try cursor.uint(3)
            var item = HEIFStructure.Item(
                id: 0, type: FourCC(rawValue: 0), name: "", contentType: nil, isHidden: flags & 1 != 0,
                constructionMethod: 0, extents: [], properties: [])
            switch version {
            case 0, 1:
                item.id = UInt32(try cursor.uint16())
                try cursor.skip(2)
                item.name = Self.string(&cursor)
            case 2, 3:
                item.id = UInt32(try cursor.uint(version == 2 ? 2 : 4))
                try cursor.skip(2)
                item.type = try cursor.fourCC()
                item.name = Self.string(&cursor)
                if item.type == "mime" { item.contentType = Self.string(&cursor) }
            default:
                throw .unsupported("'infe' box at \(entry.offset) has version \(version)")
            }
            guard seen.insert(item.id).inserted else { throw .malformed("item \(item.id) is listed twice in 'iinf'") }
            items.append(item)
        }
        return items
    }

    /// `iloc`: where each item's data is. Extents are resolved to absolute file offsets and
    /// checked to lie inside the file (construction method 0) or the `idat` box (method 1).
    mutating func readLocations(_ iloc: BoxHeader, idat: BoxHeader?, into items: inout [HEIFStructure.Item])
        throws(ISOBMFFError)
    {
        var cursor = try walker.payload(of: iloc, limit: Int(Self.maximumMetaSize))
        let header = try ILocHeader(&cursor, box: iloc)
        let (offsetSize, lengthSize, baseSize, indexSize) =
            (header.offsetSize, header.lengthSize, header.baseSize, header.indexSize)
        var index: [UInt32: Int] = [:]
        for (position, item) in items.enumerated() { index[item.id] = position }
        for _ in 0..<header.count {
            let id = UInt32(try cursor.uint(header.idSize))
            let method = header.version == 0 ? 0 : Int(try cursor.uint16() & 15)
            try cursor.skip(2)  // data reference index: 0 is this file
            let base = Int64(bitPattern: try cursor.uint(baseSize))
            let extentCount = try header.extentCount(&cursor, item: id)
            // Offsets count from the file's start for method 0, from `idat`'s payload for method 1.
            var space: (start: Int64, size: Int64)? = (0, source.size)
            if method == 1 {
                guard let idat else { throw .malformed("item \(id) is in 'idat' but the 'meta' box has none") }
                space = (idat.payloadOffset, idat.payloadSize)
            } else if method == 2 {
                space = nil
            } else if method != 0 {
                throw .malformed("item \(id) has iloc construction method \(method)")
            }
            var extents: [HEIFStructure.Extent] = []
            extents.reserveCapacity(extentCount)
            for _ in 0..<extentCount {
                try cursor.skip(indexSize)
                let offset = try cursor.uint(offsetSize)
                var length = try cursor.uint(lengthSize)
                guard let space else {
                    extents.append(
                        HEIFStructure.Extent(offset: Int64(bitPattern: offset), length: Int64(bitPattern: length)))
                    continue
                }
                guard base >= 0, offset <= UInt64(space.size), UInt64(base) <= UInt64(space.size) - offset else {
                    let reason = "item \(id)'s data at \(base) + \(offset) starts past the end of the file"
                    // In the file (not `idat`), past its end: the file was cut. Kept as it is
                    // (reading it throws) and said.
                    guard method == 0, base >= 0, offset <= UInt64(Int64.max) else { throw .malformed(reason) }
                    cutExtent = cutExtent ?? reason
                    extents.append(HEIFStructure.Extent(offset: base &+ Int64(offset), length: Int64(clamping: length)))
                    continue
                }
                let start = base + Int64(offset)
                if length == 0 { length = UInt64(space.size - start) }  // "to the end"
                guard length <= UInt64(space.size - start) else {
                    let reason =
                        "item \(id)'s data at \(space.start + start) (\(length) bytes) runs past the end of the file"
                    guard method == 0 else { throw .malformed(reason) }
                    cutExtent = cutExtent ?? reason
                    extents.append(HEIFStructure.Extent(offset: space.start + start, length: Int64(clamping: length)))
                    continue
                }
                extents.append(HEIFStructure.Extent(offset: space.start + start, length: Int64(length)))
            }
            guard let position = index[id] else { continue }  // data of an item `iinf` leaves out
            items[position].constructionMethod = method
            items[position].extents = extents
        }
    }

    /// `iprp`: the properties in `ipco`, associated with items by `ipma` in the order it lists them.
    /// An item's first entry is its only one, as libheif reads `ipma` (`Box_ipma::
    /// get_properties_for_item_ID` returns the first entry naming the item); the ids of items
    /// whose later entries were passed over are returned.
    mutating func readProperties(_ iprp: BoxHeader, into items: inout [HEIFStructure.Item]) throws(ISOBMFFError)
        -> [UInt32]
    {
        var seen: Set<UInt32> = []
        var repeated: [UInt32] = []
        let children = try walker.children(of: iprp, depth: 2)
        guard let ipco = children.first(where: { $0.type == "ipco" }) else {
            throw .malformed("'iprp' box has no 'ipco' box")
        }
        let properties = try walker.children(of: ipco, depth: 3).map { box throws(ISOBMFFError) in try readProperty(box)
        }
        var index: [UInt32: Int] = [:]
        for (position, item) in items.enumerated() { index[item.id] = position }
        for ipma in children where ipma.type == "ipma" {
            var cursor = try walker.payload(of: ipma, limit: Int(Self.maximumMetaSize))
            let version = try cursor.uint8()
            let flags = try cursor.uint(3)
            let idSize = version < 1 ? 2 : 4
            let indexSize = flags & 1 != 0 ? 2 : 1
            let count = Int(try cursor.uint32())
            guard count <= cursor.remaining / (idSize + 1) else {
                throw .malformed("'ipma' box at \(ipma.offset) claims \(count) items in \(cursor.remaining) bytes")
            }
            for _ in 0..<count {
                let id = UInt32(try cursor.uint(idSize))
                let associations = Int(try cursor.uint8())
                var list: [HEIFStructure.PropertyAssociation] = []
                for _ in 0..<associations {
                    let value = try cursor.uint(indexSize)
                    let essentialBit: UInt64 = indexSize == 2 ? 0x8000 : 0x80
                    let propertyIndex = Int(value & (essentialBit - 1))
                    if propertyIndex == 0 { continue }  // "no property"
                    guard propertyIndex <= properties.count else {
                        throw .malformed(
                            "item \(id) names property \(propertyIndex) but 'ipco' has \(properties.count)")
                    }
                    list.append(.init(property: properties[propertyIndex - 1], isEssential: value & essentialBit != 0))
                }
                guard let position = index[id] else {
                    throw .malformed("'ipma' names item \(id), which is not in 'iinf'")
                }
                guard seen.insert(id).inserted else {
                    repeated.append(id)
                    continue
                }
                items[position].properties = list
            }
        }
        return repeated
    }

    func readProperty(_ box: BoxHeader) throws(ISOBMFFError) -> HEIFStructure.Property {
        switch box.type {
        case "ispe":
            var cursor = try walker.payload(of: box, limit: 12)
            try cursor.skip(4)
            return .imageSpatialExtent(width: Int(try cursor.uint32()), height: Int(try cursor.uint32()))
        case "irot":
            var cursor = try walker.payload(of: box, limit: 1)
            return .rotation(Int(try cursor.uint8() & 3))
        case "imir":
            var cursor = try walker.payload(of: box, limit: 1)
            return .mirror(axis: Int(try cursor.uint8() & 1))
        case "clap":
            var cursor = try walker.payload(of: box, limit: 32)
            // Width, height and the denominators are unsigned; the offsets' numerators signed.
            func fraction(signed: Bool) throws(ISOBMFFError) -> Double {
                let numerator = try cursor.uint32()
                let denominator = try cursor.uint32()
                guard denominator != 0 else { throw .malformed("'clap' box at \(box.offset) has a zero denominator") }
                let top = signed ? Double(Int32(bitPattern: numerator)) : Double(numerator)
                return top / Double(denominator)
            }
            return .cleanAperture(
                width: try fraction(signed: false), height: try fraction(signed: false),
                horizontalOffset: try fraction(signed: true), verticalOffset: try fraction(signed: true))
        case "pixi":
            var cursor = try walker.payload(of: box, limit: 4 + 1 + 255)
            try cursor.skip(4)
            let channels = Int(try cursor.uint8())
            return .pixelInformation(bitsPerChannel: try cursor.take(channels).map { Int($0) })
        case "colr":
            var cursor = try walker.payload(of: box, limit: 4)
            return .colour(type: try cursor.fourCC())
        case "auxC":
            var cursor = try walker.payload(of: box, limit: 4 + 1024)
            try cursor.skip(4)
            return .auxiliaryType(Self.string(&cursor))
        default:
            return .other(box.type)
        }
    }

    /// `iref`: typed references from one item to others.
    mutating func readReferences(_ iref: BoxHeader) throws(ISOBMFFError) -> [HEIFStructure.Reference] {
        var head = try walker.payload(of: iref, limit: 4)
        let version = try head.uint8()
        let idSize = version == 0 ? 2 : 4
        var references: [HEIFStructure.Reference] = []
        for box in try walker.children(of: iref, skipping: 4, depth: 2) {
            var cursor = try walker.payload(of: box, limit: Int(Self.maximumMetaSize))
            let from = UInt32(try cursor.uint(idSize))
            let count = Int(try cursor.uint16())
            guard count <= cursor.remaining / idSize else {
                throw .malformed(
                    "'\(box.type)' reference of item \(from) claims \(count) items in \(cursor.remaining) bytes")
            }
            var to: [UInt32] = []
            to.reserveCapacity(count)
            for _ in 0..<count { to.append(UInt32(try cursor.uint(idSize))) }
            references.append(HEIFStructure.Reference(type: box.type, from: from, to: to))
        }
        return references
    }

    /// A derived image may not be derived, however indirectly, from itself: `dimg` references
    /// must form no cycle. Iterative depth-first search, so a long chain cannot exhaust the stack.
    static func checkDerivationIsAcyclic(_ structure: HEIFStructure) throws(ISOBMFFError) {
        var edges: [UInt32: [UInt32]] = [:]
        for reference in structure.references where reference.type == "dimg" {
            edges[reference.from, default: []] += reference.to
        }
        var state: [UInt32: Bool] = [:]  // false: on the current path; true: done
        for root in edges.keys.sorted() where state[root] == nil {
            var stack: [(id: UInt32, next: Int)] = [(root, 0)]
            state[root] = false
            while let top = stack.last {
                let children = edges[top.id] ?? []
                if top.next < children.count {
                    stack[stack.count - 1].next += 1
                    let child = children[top.next]
                    switch state[child] {
                    case .some(false):
                        throw .malformed("item \(child) is derived from itself through 'dimg' references")
                    case .some(true): continue
                    case nil:
                        state[child] = false
                        stack.append((child, 0))
                    }
                } else {
                    state[top.id] = true
                    stack.removeLast()
                }
            }
        }
    }

    /// A `grid` item's data (ISO/IEC 23008-12 6.6.2.3), checked against its `dimg` references and
    /// against a size no picture has.
    func readGrid(_ structure: HEIFStructure) throws(ISOBMFFError) -> HEIFStructure.Grid {
        let id = structure.primaryItemID
        let data = try structure.data(of: id, in: source, limit: 64)
        var cursor = ByteCursor(data, box: "grid", at: structure.primaryItem?.extents.first?.offset ?? 0)
        let version = try cursor.uint8()
        guard version == 0 else { throw .unsupported("grid item \(id) has version \(version)") }
        let flags = try cursor.uint8()
        let rows = Int(try cursor.uint8()) + 1
        let columns = Int(try cursor.uint8()) + 1
        let fieldSize = flags & 1 != 0 ? 4 : 2
        let width = Int64(try cursor.uint(fieldSize))
        let height = Int64(try cursor.uint(fieldSize))
        guard width > 0, height > 0, width <= Self.maximumGridPixels, height <= Self.maximumGridPixels,
            width * height <= Self.maximumGridPixels
        else {
            throw .malformed("grid item \(id) claims an output of \(width)x\(height) pixels")
        }
        let tiles = structure.referenced(from: id, type: "dimg")
        guard tiles.count == rows * columns else {
            throw .malformed("grid item \(id) is \(columns)x\(rows) tiles but has \(tiles.count) 'dimg' references")
        }
        if let tile = structure.item(tiles[0])?.spatialExtent,
            Int64(tile.width) * Int64(columns) < width || Int64(tile.height) * Int64(rows) < height
        {
            throw .malformed(
                "grid item \(id)'s \(columns)x\(rows) tiles of \(tile.width)x\(tile.height) cannot cover \(width)x\(height)"
            )
        }
        return HEIFStructure.Grid(
            rows: rows, columns: columns, outputWidth: Int(width), outputHeight: Int(height), tiles: tiles)
    }

    /// A null-terminated UTF-8 string; the rest of the payload when the terminator is missing.
    static func string(_ cursor: inout ByteCursor) -> String {
        String(decoding: cursor.upToNUL(), as: UTF8.self)
    }
}

/// The head of an `iloc` box, where `readLocations` and `HEIFLayout`'s field-by-field reading both
/// start: its version, the byte widths of its fields (each 0, 4 or 8), and its item count, checked
/// against the bytes there.
struct ILocHeader {
    let version: UInt8
    let offsetSize: Int, lengthSize: Int, baseSize: Int, indexSize: Int, idSize: Int
    let count: Int

    init(_ cursor: inout ByteCursor, box iloc: BoxHeader) throws(ISOBMFFError) {
        version = try cursor.uint8()
        guard version <= 2 else { throw .unsupported("'iloc' box at \(iloc.offset) has version \(version)") }
        try cursor.skip(3)
        let sizes = try cursor.uint8()
        let more = try cursor.uint8()
        (offsetSize, lengthSize, baseSize) = (Int(sizes >> 4), Int(sizes & 15), Int(more >> 4))
        indexSize = version == 0 ? 0 : Int(more & 15)
        for size in [offsetSize, lengthSize, baseSize, indexSize] where ![0, 4, 8].contains(size) {
            throw .malformed("'iloc' box at \(iloc.offset) has a field size of \(size) bytes")
        }
        idSize = version < 2 ? 2 : 4
        count = Int(try cursor.uint(idSize))
        let smallest = idSize + (version == 0 ? 0 : 2) + 2 + baseSize + 2
        guard count <= cursor.remaining / smallest else {
            throw .malformed("'iloc' box at \(iloc.offset) claims \(count) items in \(cursor.remaining) bytes")
        }
    }

    /// One entry's extent count, read and checked against the bytes left. With 0-byte offsets and
    /// lengths an extent takes no bytes: only one makes sense ("the whole file"), and more would be
    /// an allocation the bytes do not pay for.
    func extentCount(_ cursor: inout ByteCursor, item id: UInt32) throws(ISOBMFFError) -> Int {
        let extentCount = Int(try cursor.uint16())
        let extentSize = indexSize + offsetSize + lengthSize
        guard extentSize == 0 ? extentCount <= 1 : extentCount <= cursor.remaining / extentSize else {
            throw .malformed("'iloc' entry of item \(id) claims \(extentCount) extents in \(cursor.remaining) bytes")
        }
        return extentCount
    }
}
