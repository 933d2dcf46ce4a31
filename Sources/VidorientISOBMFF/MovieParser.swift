import VidorientCore
import VidorientIO

/// Reads a `MovieStructure` from box headers and the small fixed-size boxes that describe the
/// movie (`ftyp`, `mvhd`, `tkhd`, `hdlr`, `mdhd`, `stsd`, `meta`). It follows known paths only,
/// never reads sample tables or media data, and lets `BoxWalker` check every size first.
struct MovieParser<Source: ByteSource> {
    private var walker: BoxWalker<Source>
    private var source: Source { walker.source }

    /// QuickTime `keys` tables are a few hundred bytes; a larger one is not metadata worth reading.
    static var maximumKeyTableSize: Int { 1 << 20 }

    static var imageBrands: Set<FourCC> {
        ["heic", "heix", "heim", "heis", "mif1", "mif2", "msf1", "avif", "avis", "jpeg", "avci"]
    }

    init(_ source: Source) { walker = BoxWalker(source) }

    mutating func parse() throws(ISOBMFFError) -> MovieStructure {
        let size = source.size
        guard size > 0 else { throw .malformed("file is empty") }
        let head = try source.read(at: 0, count: Int(min(size, 512)))
        // What the file is is decided in one place, from its signature.
        switch MediaFormat(signature: Array(head.prefix(MediaFormat.signatureLength))) {
        case .movie, .heif: break
        case .other(name: nil):
            throw .malformed("not an mp4 or quicktime file (no 'ftyp', 'moov' or 'mdat' box at the start)")
        case let format: throw .unsupported("not an mp4 or quicktime file (\(format))")
        }

        // A file cut inside its media data still has its description; cut inside `moov` it has none.
        let top = try walker.boxes(from: 0, to: size, depth: 0, in: nil, cutEnd: true)
        let cut = walker.cut
        if let cut, cut.box?.type == "moov" { throw .cutShort("the file is cut short: \(cut.reason)") }
        var majorBrand: FourCC?
        var compatibleBrands: [FourCC] = []
        var movieBoxes = MovieBoxes()
        if let ftyp = top.first(where: { $0.type == "ftyp" }) {
            movieBoxes.ftyp = ftyp
            var cursor = try walker.payload(of: ftyp, limit: 8 + 4 * 64)
            majorBrand = try cursor.fourCC()
            try cursor.skip(4)  // minor version
            while cursor.remaining >= 4 { compatibleBrands.append(try cursor.fourCC()) }
        }
        let moovs = top.filter { $0.type == "moov" }
        guard let moov = moovs.first else {
            // HEIF and AVIF still images are ISO-BMFF too, with `meta` where a movie has `moov`.
            if let brand = majorBrand, Self.imageBrands.contains(brand) {
                throw .unsupported("a heif/avif image ('\(brand)'), not a movie: no 'moov' box")
            }
            if let cut { throw .cutShort("no 'moov' box (the file is cut short: \(cut.reason))") }
            throw .malformed("no 'moov' box (an incomplete recording or download?)")
        }
        guard moovs.count == 1 else { throw .malformed("\(moovs.count) 'moov' boxes") }

        let children = try walker.children(of: moov, depth: 1)
        let mvhds = children.filter { $0.type == "mvhd" }
        guard let mvhd = mvhds.first else { throw .malformed("no 'mvhd' box in 'moov'") }
        guard mvhds.count == 1 else { throw .malformed("\(mvhds.count) 'mvhd' boxes in 'moov'") }
        let movieHeader = try parseMovieHeader(mvhd)
        movieBoxes.mvhd = mvhd

        var tracks: [Track] = []
        var metadata: [MetadataItem] = []
        for child in children {
            switch child.type {
            case "trak": tracks.append(try parseTrack(child))
            case "meta":
                movieBoxes.meta.append(child)
                metadata += try parseMeta(child, depth: 2)
            case "udta":
                movieBoxes.userData.append(child)
                movieBoxes.tracksBeforeUserData.append(tracks.count)
                metadata += try parseUserData(child, depth: 2)
            default: break
            }
        }
        let firstMdat = top.first { $0.type == "mdat" }
        var structure = MovieStructure(
            fileSize: size, majorBrand: majorBrand, compatibleBrands: compatibleBrands,
            topLevelBoxes: top,
            isFragmented: top.contains { $0.type == "moof" } || children.contains { $0.type == "mvex" },
            moov: moov,
            moovPrecedesMdat: firstMdat.map { moov.offset < $0.offset }, movieHeader: movieHeader, tracks: tracks,
            metadata: metadata)
        structure.movieBoxes = movieBoxes
        structure.truncation = cut?.reason
        return structure
    }

    /// Version and flags, the first four bytes of every full box.
    private func versionAndFlags(_ cursor: inout ByteCursor, box: BoxHeader) throws(ISOBMFFError) -> (UInt8, UInt32) {
        let version = try cursor.uint8()
        let flags = UInt32(try cursor.uint(3))
        guard version <= 1 else {
            throw .malformed("'\(box.type)' box at \(box.offset) has unknown version \(version)")
        }
        return (version, flags)
    }

    private func matrix(_ cursor: inout ByteCursor, in box: BoxHeader) throws(ISOBMFFError) -> StoredMatrix {
        let offset = box.payloadOffset + Int64(cursor.position)
        var entries: [Int32] = []
        for _ in 0..<9 { entries.append(try cursor.int32()) }
        return StoredMatrix(fixedPoint: entries, offset: offset)
    }

    private func parseMovieHeader(_ box: BoxHeader) throws(ISOBMFFError) -> MovieHeader {
        var c = try walker.payload(of: box, limit: 112)
        let (version, _) = try versionAndFlags(&c, box: box)
        try c.skip(version == 1 ? 16 : 8)  // creation and modification times
        let timescale = try c.uint32()
        let duration = version == 1 ? try c.uint64() : UInt64(try c.uint32())
        try c.skip(4 + 2 + 10)  // rate, volume, reserved
        let matrix = try matrix(&c, in: box)
        try c.skip(24)  // QuickTime preview and poster times, selection and current time
        let nextTrackID = try c.uint32()
        return MovieHeader(
            version: version, timescale: timescale, duration: duration, matrix: matrix, nextTrackID: nextTrackID)
    }

    private mutating func parseTrack(_ trak: BoxHeader) throws(ISOBMFFError) -> Track {
        let children = try walker.children(of: trak, depth: 2)
        let tkhds = children.filter { $0.type == "tkhd" }
        guard let tkhd = tkhds.first else { throw .malformed("'trak' box at \(trak.offset) has no 'tkhd'") }
        guard tkhds.count == 1 else { throw .malformed("'trak' box at \(trak.offset) has \(tkhds.count) 'tkhd' boxes") }

        var c = try walker.payload(of: tkhd, limit: 96)
        let (version, flags) = try versionAndFlags(&c, box: tkhd)
        try c.skip(version == 1 ? 16 : 8)  // creation and modification times
        let trackID = try c.uint32()
        try c.skip(4 + (version == 1 ? 8 : 4))  // reserved, duration
        try c.skip(8 + 2 + 2 + 2 + 2)  // reserved, layer, alternate group, volume, reserved
        let matrix = try matrix(&c, in: tkhd)
        let width = Double(try c.uint32()) / 65536
        let height = Double(try c.uint32()) / 65536

        var track = Track(
            trackID: trackID, headerVersion: version, headerFlags: flags, matrix: matrix, width: width, height: height,
            handler: nil, mediaTimescale: nil, mediaDuration: nil, sampleEntry: nil, sampleEntryCount: 0,
            codedWidth: nil, codedHeight: nil, metadata: [], timedMetadataKeys: [], sampleTable: nil)
        track.boxes.tkhd = tkhd
        for child in children {
            switch child.type {
            case "mdia": try parseMedia(child, into: &track)
            case "meta": track.metadata += try parseMeta(child, depth: 3)
            case "udta":
                track.boxes.userData.append(child)
                track.metadata += try parseUserData(child, depth: 3)
            case "edts":
                track.boxes.editList = try walker.children(of: child, depth: 3).first { $0.type == "elst" }
            case "tref": track.boxes.trackReferences = child
            default: break
            }
        }
        return track
    }

    private mutating func parseMedia(_ mdia: BoxHeader, into track: inout Track) throws(ISOBMFFError) {
        let children = try walker.children(of: mdia, depth: 3)
        if let hdlr = children.first(where: { $0.type == "hdlr" }) {
            track.boxes.hdlr = hdlr
            var c = try walker.payload(of: hdlr, limit: 12)
            try c.skip(8)  // version and flags; QuickTime's component type (`mhlr`)
            track.handler = try c.fourCC()
        }
        if let mdhd = children.first(where: { $0.type == "mdhd" }) {
            track.boxes.mdhd = mdhd
            var c = try walker.payload(of: mdhd, limit: 32)
            let (version, _) = try versionAndFlags(&c, box: mdhd)
            try c.skip(version == 1 ? 16 : 8)
            track.mediaTimescale = try c.uint32()
            track.mediaDuration = version == 1 ? try c.uint64() : UInt64(try c.uint32())
        }
        guard let minf = children.first(where: { $0.type == "minf" }),
            let stbl = try walker.children(of: minf, depth: 4).first(where: { $0.type == "stbl" })
        else { return }
        let tables = try walker.children(of: stbl, depth: 5)
        if let stsd = tables.first(where: { $0.type == "stsd" }) {
            // Version and flags, then a 32-bit entry count, then the entries themselves.
            let entries = try walker.children(of: stsd, skipping: 8, depth: 6)
            track.sampleEntryCount = entries.count
            track.sampleEntry = entries.first?.type
            track.boxes.sampleEntry = entries.first
            if let entry = entries.first, track.handler == "vide", entry.payloadSize >= 28 {
                var c = try walker.payload(of: entry, limit: 28)
                try c.skip(24)  // reserved, data reference index, pre-defined and reserved fields
                track.codedWidth = Int(try c.uint16())
                track.codedHeight = Int(try c.uint16())
            }
            for entry in entries where entry.type == "mebx" {
                track.timedMetadataKeys += try parseTimedMetadataKeys(entry)
            }
        }
        func table(_ types: FourCC...) -> BoxHeader? { tables.first { types.contains($0.type) } }
        track.boxes.syncSamples = table("stss")
        track.boxes.compositionOffsets = table("ctts")
        if let stts = table("stts"), let stsc = table("stsc"), let stsz = table("stsz"),
            let offsets = table("stco", "co64")
        {
            track.sampleTable = SampleTableBoxes(
                timeToSample: stts, sampleToChunk: stsc, sampleSizes: stsz, chunkOffsets: offsets)
        }
    }

    /// A `mebx` sample entry: six reserved bytes and a data reference index, then a `keys` box
    /// whose children are typed by local key ID and each hold a `keyd` (namespace and name) and
    /// a `dtyp` (the value's data type).
    private mutating func parseTimedMetadataKeys(_ entry: BoxHeader) throws(ISOBMFFError) -> [TimedMetadataKey] {
        guard let keys = try walker.children(of: entry, skipping: 8, depth: 7).first(where: { $0.type == "keys" })
        else { return [] }
        var found: [TimedMetadataKey] = []
        for local in try walker.children(of: keys, depth: 8) {
            var key = TimedMetadataKey(localID: local.type.rawValue, namespace: "    ", name: "")
            for part in try walker.children(of: local, depth: 9) {
                switch part.type {
                case "keyd":
                    var c = try walker.payload(of: part, limit: 4096)
                    key.namespace = try c.fourCC()
                    key.name = MovieParser.text(c.rest())
                case "dtyp":
                    var c = try walker.payload(of: part, limit: 4096)
                    if try c.uint32() == 0 {
                        key.wellKnownType = try c.uint32()
                    } else {
                        key.typeName = MovieParser.text(c.rest())
                    }
                default: break
                }
            }
            found.append(key)
        }
        return found
    }

    private mutating func parseUserData(_ udta: BoxHeader, depth: Int) throws(ISOBMFFError) -> [MetadataItem] {
        var items: [MetadataItem] = []
        for meta in try walker.children(of: udta, depth: depth) where meta.type == "meta" {
            items += try parseMeta(meta, depth: depth + 1)
        }
        return items
    }

    /// A `meta` box: QuickTime's is a plain box, ISO's a full box with four more bytes first.
    /// Either holds `hdlr` (`mdta` for QuickTime keys, `mdir` for iTunes), maybe `keys`, and `ilst`.
    private mutating func parseMeta(_ meta: BoxHeader, depth: Int) throws(ISOBMFFError) -> [MetadataItem] {
        var skip: Int64 = 4
        if meta.payloadSize >= 8 {
            let peek = try source.read(at: meta.payloadOffset + 4, count: 4)
            if [FourCC("hdlr"), "keys", "ilst"].map(\.bytes).contains(peek) { skip = 0 }
        }
        let children = try walker.children(of: meta, skipping: skip, depth: depth)
        var keys: [(namespace: FourCC, name: String)]?
        if let box = children.first(where: { $0.type == "keys" }), box.payloadSize <= Self.maximumKeyTableSize {
            keys = try parseKeys(box)
        }
        guard let ilst = children.first(where: { $0.type == "ilst" }) else { return [] }
        var items: [MetadataItem] = []
        for item in try walker.children(of: ilst, depth: depth + 1) {
            let parts = try walker.children(of: item, depth: depth + 2)
            var key = item.type.description
            var namespace: FourCC?
            if let keys, item.type.rawValue >= 1, item.type.rawValue <= keys.count {
                (namespace, key) = keys[Int(item.type.rawValue) - 1]
            } else if item.type == "----", let name = parts.first(where: { $0.type == "name" }) {
                // iTunes freeform item: `mean` (a reverse-DNS domain) and `name`, then `data`.
                var c = try walker.payload(of: name, limit: 4096)
                try c.skip(4)
                key = MovieParser.text(c.rest())
            }
            for data in parts where data.type == "data" {
                var c = try walker.payload(of: data, limit: 8)
                // The type indicator's first byte names the type set; 0 is the well-known set.
                let dataType = try c.uint32() & 0x00FF_FFFF
                let locale = try c.uint32()
                let valueSize = data.payloadSize - 8
                let value: MetadataValue =
                    valueSize > Int64(MetadataValue.maximumSize)
                    ? .omitted(byteCount: Int(valueSize))
                    : MetadataValue(
                        wellKnownType: dataType,
                        bytes: try source.read(at: data.payloadOffset + 8, count: Int(valueSize))[...])
                items.append(
                    MetadataItem(key: key, namespace: namespace, dataType: dataType, locale: locale, value: value))
            }
        }
        return items
    }

    /// The QuickTime `keys` full box: a count, then entries of size, namespace and name.
    private func parseKeys(_ box: BoxHeader) throws(ISOBMFFError) -> [(namespace: FourCC, name: String)] {
        var c = try walker.payload(of: box, limit: Self.maximumKeyTableSize)
        try c.skip(4)
        let count = try c.uint32()
        var keys: [(namespace: FourCC, name: String)] = []
        for _ in 0..<count {
            let size = try c.uint32()
            guard size >= 8 else { throw .malformed("'keys' entry at \(box.offset) has size \(size)") }
            let namespace = try c.fourCC()
            keys.append((namespace, MovieParser.text(try c.take(Int(size) - 8))))
        }
        return keys
    }

    /// UTF-8 with trailing NULs removed: some writers terminate their strings, some do not.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[end - 1] == 0 { end -= 1 }
        return String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
    }
}
