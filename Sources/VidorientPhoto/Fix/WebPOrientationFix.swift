import VidorientCore
import VidorientIO
import VidorientISOBMFF

/// WebP: the `EXIF` chunk's IFD0 Orientation and the `XMP ` chunk's `tiff:Orientation`. Without
/// an `EXIF` chunk, one is added where the container specification puts it (after the image
/// data, before `XMP `), the `VP8X` EXIF flag set, and the RIFF size grown; a simple file
/// (`VP8 ` or `VP8L` alone) first gets a `VP8X` chunk, its canvas the bitstream's size.
enum WebPOrientationFix {
    static let exifFlag: UInt8 = 0x08
    static let alphaFlag: UInt8 = 0x10

    static func plan(_ source: some ByteSource, target: Orientation, xmpDecides: Bool) throws(PhotoFormatError)
        -> PhotoTagFix.Changes
    {
        let (riffSize, chunks) = try riffChunks(source)
        var changes = PhotoTagFix.Changes()
        if let xmp = chunks.first(where: { $0.type == "XMP " }), xmp.length <= WebPReader.maximumMetadataLength {
            try changes.addXMP(
                try PhotoBytes.read(source, at: xmp.dataOffset, count: xmp.length), at: Int64(xmp.dataOffset),
                target: target,
                location: "XMP chunk")
        }
        var inserted = 0
        if let exif = chunks.first(where: { $0.type == "EXIF" }) {
            inserted = try editEXIF(exif, in: source, target: target, changes: &changes)
        } else if !xmpDecides {
            inserted = try insertEXIF(after: chunks, in: source, target: target, changes: &changes)
        }
        if inserted > 0 {
            // What follows the RIFF chunk (rare trailing bytes) stays after it.
            changes.splices.append(lengthSplice(at: 4, old: riffSize, new: riffSize + inserted))
            changes.places.append("RIFF size: \(riffSize) -> \(riffSize + inserted)")
        }
        return changes
    }

    /// The RIFF size and the chunks it holds, in file order.
    static func riffChunks(_ source: some ByteSource) throws(PhotoFormatError) -> (riffSize: Int, chunks: [ChunkPlace])
    {
        let size = Int(source.size)
        let header = try PhotoBytes.read(source, at: 0, count: 12)
        let riffSize = WebPReader.littleEndian(header[4..<8])
        guard riffSize >= 4, 8 + riffSize <= size else {
            throw PhotoFormatError("riff size \(riffSize) is past the end of the file")
        }
        var chunks: [ChunkPlace] = []
        try WebPReader.forEachChunk(in: source, end: 8 + riffSize) { chunks.append($0) }
        return (riffSize, chunks)
    }

    /// The IFD0 Orientation of the existing `EXIF` chunk set, in place or in a new IFD at the
    /// chunk's end (its length grown). Returns the number of bytes inserted.
    static func editEXIF(
        _ exif: ChunkPlace, in source: some ByteSource, target: Orientation, changes: inout PhotoTagFix.Changes
    ) throws(PhotoFormatError) -> Int {
        guard exif.length <= WebPReader.maximumMetadataLength else {
            throw .unsupported("the 'EXIF' chunk is too large to edit")
        }
        let data = try PhotoBytes.read(source, at: exif.dataOffset, count: exif.length)
        let (block, _, skip) = try TIFFBlockEdit.chunk(data, named: "EXIF", target: target)
        let shift = Int64(exif.dataOffset + skip)
        var inserted = 0
        if block.inserted == 0 {
            changes.splices += block.splices.map { ByteSplice(offset: $0.offset + shift, old: $0.old, new: $0.new) }
        } else {
            // An odd chunk already ends in a padding byte: it becomes the IFD's alignment, so the
            // new IFD goes after it and the chunk's new length is even.
            let ifd = block.splices.first { $0.old.isEmpty }!.new
            let padded = exif.length & 1 == 1
            let body = padded ? Array(ifd.dropFirst()) : ifd
            changes.splices += block.splices.filter { !$0.old.isEmpty }.map {
                ByteSplice(offset: $0.offset + shift, old: $0.old, new: $0.new)
            }
            changes.splices.append(ByteSplice(offset: Int64(exif.riffEnd), old: [], new: body))
            let newLength = exif.length + ifd.count
            changes.splices.append(lengthSplice(at: exif.offset + 4, old: exif.length, new: newLength))
            changes.places.append("EXIF chunk length: \(exif.length) -> \(newLength)")
            inserted = body.count
        }
        changes.places += block.places
        return inserted
    }

    /// A new `EXIF` chunk stating `target`, after the image data, and the `VP8X` chunk that
    /// announces it: its EXIF flag set, or a new one in a simple file. Returns the bytes inserted.
    static func insertEXIF(
        after chunks: [ChunkPlace], in source: some ByteSource, target: Orientation, changes: inout PhotoTagFix.Changes
    ) throws(PhotoFormatError) -> Int {
        let tiff = IFD0Editor.minimalTIFF(target)
        let exifChunk = Array("EXIF".utf8) + IFD0Editor.encode(tiff.count, size: 4, littleEndian: true) + tiff
        // After the image data (the last VP8/VP8L/ANMF chunk and what belongs to it), before XMP.
        let imageTypes: Set<String> = ["VP8 ", "VP8L", "ANMF", "ALPH"]
        guard let lastImage = chunks.lastIndex(where: { imageTypes.contains($0.type) }) else {
            throw PhotoFormatError("no 'VP8 ', 'VP8L' or 'ANMF' chunk")
        }
        let at = chunks[lastImage].riffEnd
        let inserted: Int
        if let vp8x = chunks.first(where: { $0.type == "VP8X" }) {
            try setEXIFFlag(vp8x, in: source, changes: &changes)
            changes.splices.append(ByteSplice(offset: Int64(at), old: [], new: exifChunk))
            inserted = exifChunk.count
        } else {
            // A simple file: VP8X first, with the bitstream's size as the canvas.
            let vp8x = try simpleFileVP8X(chunks, lastImage: lastImage, in: source)
            changes.splices.append(ByteSplice(offset: 12, old: [], new: vp8x.chunk))
            changes.splices.append(ByteSplice(offset: Int64(at), old: [], new: exifChunk))
            changes.places.append(vp8x.place)
            inserted = vp8x.chunk.count + exifChunk.count
        }
        changes.places.append(
            "new EXIF chunk (\(exifChunk.count) bytes, IFD0 Orientation \(target.exif)) after the image data")
        return inserted
    }

    /// The `VP8X` chunk's EXIF flag set, when it is not already.
    static func setEXIFFlag(_ vp8x: ChunkPlace, in source: some ByteSource, changes: inout PhotoTagFix.Changes)
        throws(PhotoFormatError)
    {
        guard vp8x.length >= 10 else { throw PhotoFormatError("'VP8X' chunk is \(vp8x.length) bytes, needs 10") }
        let flags = try PhotoBytes.read(source, at: vp8x.dataOffset, count: 1)[0]
        if flags & exifFlag == 0 {
            changes.splices.append(ByteSplice(offset: Int64(vp8x.dataOffset), old: [flags], new: [flags | exifFlag]))
            changes.places.append("VP8X flags: EXIF set (0x\(hex(flags)) -> 0x\(hex(flags | exifFlag)))")
        }
    }

    /// The `VP8X` chunk a simple file (one `VP8 ` or `VP8L` chunk) gets: the EXIF flag, the alpha
    /// hint, and the bitstream's size as the canvas; with the place it names.
    static func simpleFileVP8X(_ chunks: [ChunkPlace], lastImage: Int, in source: some ByteSource)
        throws(PhotoFormatError) -> (chunk: [UInt8], place: String)
    {
        guard let image = chunks.first(where: { $0.type == "VP8 " || $0.type == "VP8L" }),
            chunks.count == 1 || lastImage == 0
        else {
            throw PhotoFormatError("a webp without 'VP8X' must hold one 'VP8 ' or 'VP8L' chunk")
        }
        let (width, height, alpha) = try bitstreamSize(source, image)
        let flags = exifFlag | (alpha ? alphaFlag : 0)
        let vp8x =
            Array("VP8X".utf8) + IFD0Editor.encode(10, size: 4, littleEndian: true) + [flags, 0, 0, 0]
            + IFD0Editor.encode(width - 1, size: 3, littleEndian: true)
            + IFD0Editor.encode(height - 1, size: 3, littleEndian: true)
        return (vp8x, "new VP8X chunk (canvas \(width)x\(height), flags 0x\(hex(flags))) after the RIFF header")
    }

    static func hex(_ byte: UInt8) -> String { String(byte, radix: 16) }

    static func lengthSplice(at offset: Int, old: Int, new: Int) -> ByteSplice {
        ByteSplice(
            offset: Int64(offset), old: IFD0Editor.encode(old, size: 4, littleEndian: true),
            new: IFD0Editor.encode(new, size: 4, littleEndian: true))
    }

    /// The picture size a `VP8 ` key frame or a `VP8L` header gives, and VP8L's alpha hint.
    static func bitstreamSize(_ source: some ByteSource, _ chunk: ChunkPlace) throws(PhotoFormatError) -> (
        Int, Int, Bool
    ) {
        if chunk.type == "VP8 " {
            let (width, height) = try WebPReader.vp8FrameSize(source, at: chunk.dataOffset, length: chunk.length)
            guard width > 0, height > 0 else {
                throw PhotoFormatError("'VP8 ' key frame gives a size of \(width)x\(height)")
            }
            return (width, height, false)
        }
        return try WebPReader.vp8lHeader(source, at: chunk.dataOffset, length: chunk.length)
    }
}
