package import VidorientCore
package import VidorientIO
import VidorientISOBMFF

/// Reads a WebP's RIFF chunks: `VP8 `, `VP8L` and `VP8X` for the size, `EXIF` and `XMP ` for the
/// orientation statements, `ALPH` and `ANIM` for the rest.
package enum WebPReader {
    /// Metadata chunks larger than this are not read into memory.
    static let maximumMetadataLength = PhotoBytes.maximumMetadataLength

    package static func read(_ source: some ByteSource, path: String) throws(PhotoFormatError) -> PhotoEvidence {
        var evidence = PhotoEvidence(path: path, format: .webp)
        let size = Int(source.size)
        evidence.fileSize = size
        let end = try riffEnd(source, fileSize: size, evidence: &evidence)
        var picture = PictureFacts()
        try forEachChunk(in: source, end: end) { chunk throws(PhotoFormatError) in
            try readChunk(
                chunk.type, at: chunk.dataOffset, length: chunk.length, in: source, picture: &picture,
                evidence: &evidence)
        }
        try picture.describe(in: &evidence)
        return evidence
    }

    /// The one walk of a WebP's chunks (read, fix and normalize): each in file order from offset
    /// 12, checked to end before `end` (where the RIFF data ends) before `body` sees it.
    static func forEachChunk(
        in source: some ByteSource, end: Int, _ body: (ChunkPlace) throws(PhotoFormatError) -> Void
    ) throws(PhotoFormatError) {
        var offset = 12
        while offset + 8 <= end {
            let head = try PhotoBytes.read(source, at: offset, count: 8)
            let chunk = ChunkPlace(
                offset: offset, length: littleEndian(head[4..<8]), type: String(decoding: head[0..<4], as: UTF8.self))
            guard chunk.length <= end - chunk.dataOffset else {
                throw PhotoFormatError(
                    "chunk '\(chunk.type)' at offset \(offset) has length \(chunk.length), past the end of the riff data"
                )
            }
            try body(chunk)
            offset = chunk.riffEnd
        }
    }

    /// Where the RIFF chunk's data ends, from a header that must be a RIFF WebP one; bytes after it
    /// are a finding.
    private static func riffEnd(_ source: some ByteSource, fileSize size: Int, evidence: inout PhotoEvidence)
        throws(PhotoFormatError) -> Int
    {
        guard size >= 12 else { throw PhotoFormatError("file is \(size) bytes, too short for a webp header") }
        let header = try PhotoBytes.read(source, at: 0, count: 12)
        guard header[0..<4].elementsEqual("RIFF".utf8), header[8..<12].elementsEqual("WEBP".utf8) else {
            throw PhotoFormatError("no riff webp header")
        }
        let riffSize = littleEndian(header[4..<8])
        guard riffSize >= 4, 8 + riffSize <= size else {
            throw PhotoFormatError("riff size \(riffSize) is past the end of the file (\(size) bytes)")
        }
        if 8 + riffSize < size {
            evidence.readerFindings.append(
                .webpTrailingData, .info, "\(size - 8 - riffSize) bytes follow the riff chunk")
        }
        return 8 + riffSize
    }

    /// What the image chunks say about the picture, gathered as they are read.
    private struct PictureFacts {
        var canvas: (width: Int, height: Int)?
        /// The first bitstream's size.
        var frame: (width: Int, height: Int)?
        var animated = false
        var lossless: Bool?

        /// The picture's size and format. The canvas is the picture for an extended file; an
        /// animation has frames, not one bitstream.
        func describe(in evidence: inout PhotoEvidence) throws(PhotoFormatError) {
            guard let size = canvas ?? frame else { throw PhotoFormatError("no 'VP8 ', 'VP8L' or 'VP8X' chunk") }
            evidence.storedWidth = size.width
            evidence.storedHeight = size.height
            evidence.bitDepth = 8
            if animated {
                evidence.formatDetail = "webp animated"
            } else if let lossless {
                evidence.formatDetail = lossless ? "webp lossless" : "webp lossy"
                evidence.codec = lossless ? "vp8l" : "vp8"
            }
        }
    }

    /// What one chunk says: the picture's size, kind and alpha, or the orientation statements.
    private static func readChunk(
        _ type: String, at dataOffset: Int, length: Int, in source: some ByteSource, picture: inout PictureFacts,
        evidence: inout PhotoEvidence
    ) throws(PhotoFormatError) {
        switch type {
        case "VP8 " where picture.frame == nil:
            picture.frame = try vp8FrameSize(source, at: dataOffset, length: length)
            picture.lossless = false
        case "VP8L" where picture.frame == nil:
            let header = try vp8lHeader(source, at: dataOffset, length: length)
            picture.frame = (header.width, header.height)
            if header.alpha { evidence.hasAlpha = true }
            picture.lossless = true
        case "VP8X":
            guard length >= 10 else { throw PhotoFormatError("'VP8X' chunk is \(length) bytes, needs 10") }
            let b = try PhotoBytes.read(source, at: dataOffset, count: 10)
            // Flags: ICC 0x20, alpha 0x10, EXIF 0x08, XMP 0x04, animation 0x02.
            if b[0] & 0x10 != 0 { evidence.hasAlpha = true }
            picture.animated = b[0] & 0x02 != 0
            picture.canvas = (
                (Int(b[4]) | Int(b[5]) << 8 | Int(b[6]) << 16) + 1, (Int(b[7]) | Int(b[8]) << 8 | Int(b[9]) << 16) + 1
            )
        case "ALPH":
            evidence.hasAlpha = true
        case "ANIM", "ANMF":
            picture.animated = true
        case "EXIF" where length <= maximumMetadataLength:
            let payload = try PhotoBytes.read(source, at: dataOffset, count: length)
            if evidence.exif != nil {
                evidence.readerFindings.append(
                    .webpSecondExif, .info, "a second 'EXIF' chunk at offset \(dataOffset - 8) is ignored")
            } else {
                PhotoBytes.addEXIF(payload, fileOffset: dataOffset, location: "EXIF chunk", to: &evidence)
            }
        case "XMP " where length <= maximumMetadataLength:
            PhotoBytes.addXMP(
                try PhotoBytes.read(source, at: dataOffset, count: length), location: "XMP chunk", to: &evidence)
        default:
            break
        }
    }

    /// The picture size a `VP8 ` chunk's key frame gives (0 where the frame says 0).
    static func vp8FrameSize(_ source: some ByteSource, at dataOffset: Int, length: Int) throws(PhotoFormatError)
        -> (width: Int, height: Int)
    {
        guard length >= 10 else { throw PhotoFormatError("'VP8 ' chunk is \(length) bytes, needs 10") }
        let b = try PhotoBytes.read(source, at: dataOffset, count: 10)
        // A key frame (bit 0 of the frame tag clear), then the start code 9d 01 2a.
        guard b[0] & 1 == 0, b[3] == 0x9D, b[4] == 0x01, b[5] == 0x2A else {
            throw PhotoFormatError("'VP8 ' chunk has no key frame start code")
        }
        return ((Int(b[6]) | Int(b[7]) << 8) & 0x3FFF, (Int(b[8]) | Int(b[9]) << 8) & 0x3FFF)
    }

    /// The picture size a `VP8L` chunk's header gives, and its alpha hint.
    static func vp8lHeader(_ source: some ByteSource, at dataOffset: Int, length: Int) throws(PhotoFormatError)
        -> (width: Int, height: Int, alpha: Bool)
    {
        guard length >= 5 else { throw PhotoFormatError("'VP8L' chunk is \(length) bytes, needs 5") }
        let b = try PhotoBytes.read(source, at: dataOffset, count: 5)
        guard b[0] == 0x2F else { throw PhotoFormatError("'VP8L' chunk has no 0x2f signature") }
        let bits = Int(b[1]) | Int(b[2]) << 8 | Int(b[3]) << 16 | Int(b[4]) << 24
        return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1, bits >> 28 & 1 == 1)
    }

    static func littleEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}

extension ChunkPlace {
    /// The next RIFF chunk's offset: chunks are padded to an even length.
    var riffEnd: Int { dataEnd + (length & 1) }
}
