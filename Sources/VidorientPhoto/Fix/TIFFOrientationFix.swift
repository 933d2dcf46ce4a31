import VidorientCore
import VidorientIO
import VidorientISOBMFF

/// IFD0 of one TIFF structure, read from a byte source for editing its Orientation (tag 274):
/// where the entry's value is, or, when IFD0 has none, a new IFD0 with the old entries plus 274
/// in tag order. The old IFD0 is left where it is and the header is repointed at the new one, so
/// that no other offset moves: every value an entry points to (MakerNotes included) stays put.
///
/// Shared by every format that carries a TIFF structure: TIFF/DNG/raw files themselves, JPEG's
/// APP1, PNG's `eXIf` and WebP's `EXIF`.
struct IFD0Editor {
    /// Where the TIFF header is in the file.
    let base: Int64
    let littleEndian: Bool
    let ifd0Offset: Int
    /// Each 12-byte entry as stored.
    let entries: [[UInt8]]
    /// The next-IFD link as stored; four zero bytes when IFD0 ends without one.
    let nextLink: [UInt8]

    /// Reads the header and IFD0 of the TIFF structure at `base` in `source`, `length` bytes long.
    init(_ source: some ByteSource, base: Int64, length: Int64) throws(PhotoFormatError) {
        guard length >= 8 else { throw PhotoFormatError("tiff header is \(length) bytes, needs 8") }
        let header = try IFD0Editor.read(source, base, 8)
        switch (header[0], header[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: throw PhotoFormatError("no tiff byte order mark (II or MM)")
        }
        self.base = base
        let offset = TIFFStructure.uint32(header, 4, littleEndian)
        guard offset >= 8, Int64(offset) + 2 <= length else {
            throw PhotoFormatError("ifd0 offset \(offset) is outside the tiff data (\(length) bytes)")
        }
        ifd0Offset = offset
        let count = TIFFStructure.uint16(try IFD0Editor.read(source, base + Int64(offset), 2), 0, littleEndian)
        let entriesEnd = Int64(offset) + 2 + 12 * Int64(count)
        guard entriesEnd <= length else {
            throw PhotoFormatError("ifd0 claims \(count) entries, more than the tiff data holds")
        }
        let table = try IFD0Editor.read(source, base + Int64(offset) + 2, 12 * count)
        entries = stride(from: 0, to: table.count, by: 12).map { Array(table[$0..<$0 + 12]) }
        nextLink = entriesEnd + 4 <= length ? try IFD0Editor.read(source, base + entriesEnd, 4) : [0, 0, 0, 0]
    }

    static func read(_ source: some ByteSource, _ offset: Int64, _ count: Int) throws(PhotoFormatError) -> [UInt8] {
        try source.read(at: offset, count: count)
    }

    func tag(_ entry: [UInt8]) -> Int { TIFFStructure.uint16(entry, 0, littleEndian) }

    /// The index of IFD0's Orientation entry.
    var orientationIndex: Int? { entries.firstIndex { tag($0) == Int(TIFFTag.orientation) } }

    /// The Orientation entry's stored value (as exiftool reads it: the first, whatever the integer
    /// type), whether viewers see it (one SHORT: Chromium ignores any other type or count), and
    /// the splice that makes it `target`; nil when IFD0 has no Orientation. A SHORT holding one
    /// value changes its two bytes; any other entry is rewritten whole as one SHORT (type, count
    /// and value: ten bytes in place, the tag kept), so that every viewer shows the target.
    func valueSplice(target: Orientation) throws(PhotoFormatError) -> (old: Int?, shown: Bool, splice: ByteSplice)? {
        guard let index = orientationIndex else { return nil }
        let entry = entries[index]
        let type = TIFFStructure.uint16(entry, 2, littleEndian)
        let count = TIFFStructure.uint32(entry, 4, littleEndian)
        let entryOffset = base + Int64(ifd0Offset) + 2 + 12 * Int64(index)
        if type == TIFFType.short.rawValue, count == 1 {
            // A value of four bytes or fewer sits in the entry itself, left-justified.
            let old = Array(entry[8..<10])
            let new = IFD0Editor.encode(target.exif, size: 2, littleEndian: littleEndian)
            return (
                TIFFStructure.uint16(old, 0, littleEndian), true,
                ByteSplice(offset: entryOffset + 8, old: old, new: new)
            )
        }
        // The first value when it sits in the entry (what exiftool shows); nil when it lies elsewhere.
        let old: Int? =
            switch (TIFFType(rawValue: type), count) {
            case (_, 0): nil
            case (.byte?, _), (.undefined?, _): Int(entry[8])
            case (.sbyte?, _): Int(Int8(bitPattern: entry[8]))
            case (.short?, _): TIFFStructure.uint16(entry, 8, littleEndian)
            case (.sshort?, _): Int(Int16(truncatingIfNeeded: TIFFStructure.uint16(entry, 8, littleEndian)))
            case (.long?, _) where count == 1: TIFFStructure.uint32(entry, 8, littleEndian)
            case (.slong?, _) where count == 1:
                Int(Int32(truncatingIfNeeded: TIFFStructure.uint32(entry, 8, littleEndian)))
            default: nil
            }
        let shortEntry = Array(orientationEntry(target)[2..<12])
        return (old, false, ByteSplice(offset: entryOffset + 2, old: Array(entry[2..<12]), new: shortEntry))
    }

    /// A type's name as TIFF writes it (`LONG`, `SSHORT`), or its number when unknown.
    static func typeName(_ type: Int) -> String {
        TIFFType(rawValue: type).map { "\($0)".uppercased() } ?? "type \(type)"
    }

    static func encode(_ value: Int, size: Int, littleEndian: Bool) -> [UInt8] {
        let bigEndian = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - $0))) }
        return littleEndian ? bigEndian.reversed() : bigEndian
    }

    /// A 12-byte Orientation entry (SHORT, one value) in this byte order.
    func orientationEntry(_ target: Orientation) -> [UInt8] {
        IFD0Editor.encode(Int(TIFFTag.orientation), size: 2, littleEndian: littleEndian)
            + IFD0Editor.encode(TIFFType.short.rawValue, size: 2, littleEndian: littleEndian)
            + IFD0Editor.encode(1, size: 4, littleEndian: littleEndian)
            + IFD0Editor.encode(target.exif, size: 2, littleEndian: littleEndian) + [0, 0]
    }

    /// The old IFD0's entries with an Orientation entry inserted before the first larger tag,
    /// then the old next-IFD link: the bytes of the new IFD0.
    func newIFD0(_ target: Orientation) throws(PhotoFormatError) -> [UInt8] {
        guard entries.count < 0xFFFF else { throw .unsupported("ifd0 is full (65535 entries)") }
        var table = entries
        let at = table.firstIndex { tag($0) > Int(TIFFTag.orientation) } ?? table.count
        table.insert(orientationEntry(target), at: at)
        return IFD0Editor.encode(table.count, size: 2, littleEndian: littleEndian) + table.flatMap { $0 } + nextLink
    }

    /// The splices that add a new IFD0 (see `newIFD0`) at `tiffOffset` (relative to the header,
    /// even): the header's IFD0 pointer, and the IFD itself inserted at `insertAt` in the file,
    /// preceded by `padding` zero bytes. Callers add their container's length changes.
    func insertionSplices(_ target: Orientation, tiffOffset: Int, insertAt: Int64, padding: Int)
        throws(PhotoFormatError)
        -> (pointer: ByteSplice, ifd: [UInt8])
    {
        guard tiffOffset <= Int(UInt32.max) else {
            throw .unsupported("the tiff data passes 4 GiB; a new ifd0 cannot be addressed")
        }
        let pointer = ByteSplice(
            offset: base + 4, old: IFD0Editor.encode(ifd0Offset, size: 4, littleEndian: littleEndian),
            new: IFD0Editor.encode(tiffOffset, size: 4, littleEndian: littleEndian))
        return (pointer, [UInt8](repeating: 0, count: padding) + (try newIFD0(target)))
    }

    /// A minimal big-endian TIFF structure holding only IFD0 with Orientation (26 bytes), for a
    /// file that has no EXIF at all. Big-endian, as cameras and exiftool write it.
    static func minimalTIFF(_ target: Orientation) -> [UInt8] {
        [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01]
            + [0x00, UInt8(target.exif), 0x00, 0x00] + [0x00, 0x00, 0x00, 0x00]
    }

    /// Checks the whole structure the way the reader walks it: a loop in its IFD links is refused
    /// rather than written around.
    static func refuseLoops(tiff: [UInt8], location: String) throws(PhotoFormatError) {
        let block = try EXIFReader.read(tiff: tiff, fileOffset: nil)
        if let loop = block.findings.first(where: { $0.kind == .exifIfdLoop || $0.kind == .exifIfdLimit }) {
            throw PhotoFormatError("\(location): \(loop.message)")
        }
    }
}

/// The IFD0 Orientation of one TIFF structure set to `target`: a changed value where the entry
/// exists, else a new IFD0 appended to the structure. `tiffLength` is the structure's length
/// (where the new IFD goes); the caller adjusts its container for `inserted` bytes.
struct TIFFBlockEdit {
    var splices: [ByteSplice] = []
    var places: [String] = []
    /// Bytes added at the end of the structure (padding and the new IFD0), 0 for a value change.
    var inserted = 0

    init(_ editor: IFD0Editor, target: Orientation, tiffLength: Int64, location: String) throws(PhotoFormatError) {
        if let (old, shown, splice) = try editor.valueSplice(target: target) {
            if shown, old != target.exif {
                splices.append(splice)
                places.append("\(location) Orientation: \(old.map(String.init) ?? "?") -> \(target.exif)")
            } else if !shown {
                // Viewers ignore an Orientation that is not one SHORT: it becomes one, whatever it held.
                let index = editor.orientationIndex!
                let entry = editor.entries[index]
                let type = IFD0Editor.typeName(TIFFStructure.uint16(entry, 2, editor.littleEndian))
                let count = TIFFStructure.uint32(entry, 4, editor.littleEndian)
                splices.append(splice)
                places.append(
                    "\(location) Orientation: \(old.map(String.init) ?? "?") (\(type), \(count) value\(count == 1 ? "" : "s")) -> \(target.exif) (SHORT)"
                )
            }
            return
        }
        // Word-aligned, as TIFF requires of an IFD.
        let padding = Int(tiffLength & 1)
        let (pointer, ifd) = try editor.insertionSplices(
            target, tiffOffset: Int(tiffLength) + padding, insertAt: editor.base + tiffLength, padding: padding)
        splices.append(pointer)
        splices.append(ByteSplice(offset: editor.base + tiffLength, old: [], new: ifd))
        inserted = ifd.count
        places.append(
            "\(location): new IFD0 (\(editor.entries.count) entries + Orientation \(target.exif)) at the end of the tiff data, header repointed"
        )
    }

    /// The edit of an EXIF chunk's data (PNG `eXIf`, WebP `EXIF`): its TIFF structure, after an
    /// `Exif\0\0` prefix when it has one (`skip` bytes), with the splices' offsets in it.
    static func chunk(_ data: [UInt8], named name: String, target: Orientation) throws(PhotoFormatError)
        -> (edit: TIFFBlockEdit, tiff: [UInt8], skip: Int)
    {
        let skip = EXIFReader.tiffStart(ofPayload: data)
        let tiff = Array(data[skip...])
        try IFD0Editor.refuseLoops(tiff: tiff, location: "\(name) chunk")
        let editor = try IFD0Editor(MemoryBytes(tiff), base: 0, length: Int64(tiff.count))
        let edit = try TIFFBlockEdit(
            editor, target: target, tiffLength: Int64(tiff.count), location: "\(name) chunk IFD0")
        return (edit, tiff, skip)
    }
}

/// TIFF files and the TIFF-based raws: IFD0's Orientation, and XMP (tag 700) in IFD0.
enum TIFFOrientationFix {
    static func plan(_ source: some ByteSource, target: Orientation, xmpDecides: Bool) throws(PhotoFormatError)
        -> PhotoTagFix.Changes
    {
        let size = source.size
        let editor = try IFD0Editor(source, base: 0, length: size)
        try refuseTruncated(source, editor)
        var changes = PhotoTagFix.Changes()
        // XMP in IFD0 (tag 700): its digits, where they state an orientation.
        if let index = editor.entries.firstIndex(where: { editor.tag($0) == 700 }) {
            let entry = editor.entries[index]
            let count = TIFFStructure.uint32(entry, 4, editor.littleEndian)
            if count > 4, count <= XMPOrientation.maximumLength {
                let at = Int64(TIFFStructure.uint32(entry, 8, editor.littleEndian))
                if at + Int64(count) <= size {
                    let packet = try IFD0Editor.read(source, at, count)
                    try changes.addXMP(packet, at: at, target: target, location: "XMP in IFD0 (tag 700)")
                }
            }
        }
        // A file whose only statement is XMP keeps it that way; otherwise IFD0 gets the tag.
        if editor.orientationIndex != nil || !xmpDecides {
            let padding = Int64(size & 1)
            if editor.orientationIndex == nil, size + padding > Int64(UInt32.max) - 1 << 20 {
                throw .unsupported("the file passes 4 GiB; a new ifd0 cannot be addressed")
            }
            let block = try TIFFBlockEdit(editor, target: target, tiffLength: size, location: "IFD0")
            changes.splices += block.splices
            changes.places += block.places
        }
        return changes
    }

    /// A file cut short loses the end of its image data: refused, as a tag written into it would
    /// only hide that. IFD0's strips (or tiles) must lie inside the file.
    static func refuseTruncated(_ source: some ByteSource, _ editor: IFD0Editor) throws(PhotoFormatError) {
        for (offsetsTag, countsTag) in [(273, 279), (324, 325)] {
            guard let offsets = try values(source, editor, tag: offsetsTag),
                let counts = try values(source, editor, tag: countsTag)
            else {
                continue
            }
            for (offset, count) in zip(offsets, counts) where offset + count > Int(source.size) {
                throw PhotoFormatError(
                    "image data at \(offset) (\(count) bytes) runs past the end of the file (\(source.size) bytes): the file is truncated"
                )
            }
        }
    }

    /// An IFD0 entry's SHORT or LONG values, at most 1 << 20 of them; nil when absent or of another type.
    static func values(_ source: some ByteSource, _ editor: IFD0Editor, tag: Int) throws(PhotoFormatError) -> [Int]? {
        guard let entry = editor.entries.first(where: { editor.tag($0) == tag }) else { return nil }
        let little = editor.littleEndian
        let type = TIFFStructure.uint16(entry, 2, little)
        let count = TIFFStructure.uint32(entry, 4, little)
        guard type == 3 || type == 4, count <= 1 << 20 else { return nil }
        let size = type == 3 ? 2 : 4
        let bytes: [UInt8]
        if count * size <= 4 {
            bytes = Array(entry[8..<8 + count * size])
        } else {
            let at = Int64(TIFFStructure.uint32(entry, 8, little))
            guard at + Int64(count * size) <= source.size else {
                throw PhotoFormatError("ifd0 tag \(tag) points past the end of the file: the file is truncated")
            }
            bytes = try IFD0Editor.read(source, at, count * size)
        }
        return (0..<count).map {
            size == 2 ? TIFFStructure.uint16(bytes, 2 * $0, little) : TIFFStructure.uint32(bytes, 4 * $0, little)
        }
    }
}
