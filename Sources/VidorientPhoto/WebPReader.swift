public import VidorientCore
public import VidorientISOBMFF

/// Reads a WebP's RIFF chunks: `VP8 `, `VP8L` and `VP8X` for the size, `EXIF` and `XMP ` for the
/// orientation statements, `ALPH` and `ANIM` for the rest.
public enum WebPReader {
    /// Metadata chunks larger than this are not read into memory.
    static let maximumMetadataLength = 16 << 20

    public static func read(_ source: some ByteSource, path: String) throws(PhotoFormatError) -> PhotoEvidence {
        var evidence = PhotoEvidence(path: path, format: .webp)
        let size = Int(source.size)
        evidence.fileSize = size
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
                Finding(code: "webp-trailing-data", severity: .info, message: "\(size - 8 - riffSize) bytes follow the riff chunk"))
        }
        let end = 8 + riffSize
        var offset = 12
        var canvas: (width: Int, height: Int)?
        var frame: (width: Int, height: Int)?
        var animated = false
        var lossless: Bool?
        while offset + 8 <= end {
            let head = try PhotoBytes.read(source, at: offset, count: 8)
            let type = String(decoding: head[0..<4], as: UTF8.self)
            let length = littleEndian(head[4..<8])
            let dataOffset = offset + 8
            guard length <= end - dataOffset else {
                throw PhotoFormatError("chunk '\(type)' at offset \(offset) has length \(length), past the end of the riff data")
            }
            // Chunks are padded to an even length.
            offset = dataOffset + length + (length & 1)
            switch type {
            case "VP8 " where frame == nil:
                guard length >= 10 else { throw PhotoFormatError("'VP8 ' chunk is \(length) bytes, needs 10") }
                let b = try PhotoBytes.read(source, at: dataOffset, count: 10)
                // A key frame (bit 0 of the frame tag clear), then the start code 9d 01 2a.
                guard b[0] & 1 == 0, b[3] == 0x9D, b[4] == 0x01, b[5] == 0x2A else {
                    throw PhotoFormatError("'VP8 ' chunk has no key frame start code")
                }
                frame = ((Int(b[6]) | Int(b[7]) << 8) & 0x3FFF, (Int(b[8]) | Int(b[9]) << 8) & 0x3FFF)
                lossless = false
            case "VP8L" where frame == nil:
                guard length >= 5 else { throw PhotoFormatError("'VP8L' chunk is \(length) bytes, needs 5") }
                let b = try PhotoBytes.read(source, at: dataOffset, count: 5)
                guard b[0] == 0x2F else { throw PhotoFormatError("'VP8L' chunk has no 0x2f signature") }
                let bits = Int(b[1]) | Int(b[2]) << 8 | Int(b[3]) << 16 | Int(b[4]) << 24
                frame = ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)
                if bits >> 28 & 1 == 1 { evidence.hasAlpha = true }
                lossless = true
            case "VP8X":
                guard length >= 10 else { throw PhotoFormatError("'VP8X' chunk is \(length) bytes, needs 10") }
                let b = try PhotoBytes.read(source, at: dataOffset, count: 10)
                // Flags: ICC 0x20, alpha 0x10, EXIF 0x08, XMP 0x04, animation 0x02.
                if b[0] & 0x10 != 0 { evidence.hasAlpha = true }
                animated = b[0] & 0x02 != 0
                canvas = ((Int(b[4]) | Int(b[5]) << 8 | Int(b[6]) << 16) + 1, (Int(b[7]) | Int(b[8]) << 8 | Int(b[9]) << 16) + 1)
            case "ALPH":
                evidence.hasAlpha = true
            case "ANIM", "ANMF":
                animated = true
            case "EXIF" where length <= maximumMetadataLength:
                let payload = try PhotoBytes.read(source, at: dataOffset, count: length)
                if evidence.exif != nil {
                    evidence.readerFindings.append(
                        Finding(code: "webp-second-exif", severity: .info, message: "a second 'EXIF' chunk at offset \(dataOffset - 8) is ignored"))
                } else {
                    PhotoBytes.addEXIF(payload, fileOffset: dataOffset, location: "EXIF chunk", to: &evidence)
                }
            case "XMP " where length <= maximumMetadataLength:
                PhotoBytes.addXMP(try PhotoBytes.read(source, at: dataOffset, count: length), location: "XMP chunk", to: &evidence)
            default:
                break
            }
        }
        // The canvas is the picture for an extended file; an animation has frames, not one bitstream.
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
        return evidence
    }

    static func littleEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
