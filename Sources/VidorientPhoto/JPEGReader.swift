package import VidorientCore
package import VidorientIO
import VidorientISOBMFF

/// Reads a JPEG's markers up to the first scan: the frame header (size, precision, components),
/// the EXIF APP1 and the XMP APP1. No decoding.
package enum JPEGReader {
    /// A frame header (SOF0–SOF15 except DHT, JPG and DAC).
    package struct FrameHeader: Sendable, Hashable {
        package var marker: UInt8
        package var width: Int
        package var height: Int
        package var precision: Int
        package var components: Int

        /// The coding process the marker names, as `formatDetail` gives it.
        package var process: String {
            switch marker {
            case 0xC0: "baseline"
            case 0xC1: "extended sequential"
            case 0xC2: "progressive"
            case 0xC3: "lossless"
            case 0xC5, 0xC6, 0xC7: "hierarchical"
            case 0xC9: "extended sequential arithmetic"
            case 0xCA: "progressive arithmetic"
            case 0xCB: "lossless arithmetic"
            default: "hierarchical arithmetic"
            }
        }
    }

    /// One marker segment before the scan: its marker, and where its payload (after the length) is.
    struct Segment {
        var marker: UInt8
        var payloadOffset: Int
        var payloadLength: Int
    }

    /// `http://ns.adobe.com/xap/1.0/\0`, the identifier of an XMP APP1.
    static let xmpIdentifier = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    /// Enough segments for any real file; a file of nothing but empty segments stops here.
    static let maximumSegments = 4096

    /// The segments from SOI up to SOS or EOI. Throws when the file is not a JPEG or a segment's
    /// length runs past the end.
    static func segments(in source: some ByteSource) throws(PhotoFormatError) -> [Segment] {
        let size = Int(source.size)
        guard size >= 4, try PhotoBytes.read(source, at: 0, count: 2) == [0xFF, 0xD8] else {
            throw PhotoFormatError("no jpeg start-of-image marker")
        }
        var segments: [Segment] = []
        var offset = 2
        while segments.count < maximumSegments {
            guard offset + 2 <= size else { throw PhotoFormatError("file ends before the first scan") }
            let head = try PhotoBytes.read(source, at: offset, count: 2)
            guard head[0] == 0xFF else { throw PhotoFormatError("no marker at offset \(offset)") }
            let marker = head[1]
            switch marker {
            case 0xFF:  // a fill byte before the marker
                offset += 1
                continue
            case 0x01, 0xD0...0xD8:  // TEM, RSTn, SOI: no length
                offset += 2
                continue
            case 0xD9, 0xDA:  // EOI, SOS: the header is over
                segments.append(Segment(marker: marker, payloadOffset: offset + 2, payloadLength: 0))
                return segments
            default:
                break
            }
            guard offset + 4 <= size else { throw PhotoFormatError("file ends inside the marker at offset \(offset)") }
            let lengthBytes = try PhotoBytes.read(source, at: offset + 2, count: 2)
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard length >= 2, offset + 2 + length <= size else {
                throw PhotoFormatError(
                    "marker 0x\(String(marker, radix: 16)) at offset \(offset) has length \(length), past the end of the file"
                )
            }
            segments.append(Segment(marker: marker, payloadOffset: offset + 4, payloadLength: length - 2))
            offset += 2 + length
        }
        throw PhotoFormatError("more than \(maximumSegments) segments before the first scan")
    }

    static func isFrameHeader(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// The first frame header; nil when there is none before the scan or the bytes are not a JPEG.
    /// Used for embedded JPEGs (EXIF thumbnails, raw previews), whose failure must not fail the file.
    package static func frameHeader(in source: some ByteSource) -> FrameHeader? {
        // Absent is fine: an embedded JPEG's failure must not fail the file (see above).
        guard let segments = try? segments(in: source),
            let segment = segments.first(where: { isFrameHeader($0.marker) })
        else { return nil }
        return try? frameHeader(segment, in: source)
    }

    static func frameHeader(_ segment: Segment, in source: some ByteSource) throws(PhotoFormatError) -> FrameHeader {
        guard segment.payloadLength >= 6 else {
            throw PhotoFormatError("frame header is \(segment.payloadLength) bytes, needs 6")
        }
        let s = try PhotoBytes.read(source, at: segment.payloadOffset, count: 6)
        return FrameHeader(
            marker: segment.marker, width: Int(s[3]) << 8 | Int(s[4]), height: Int(s[1]) << 8 | Int(s[2]),
            precision: Int(s[0]), components: Int(s[5]))
    }

    package static func read(_ source: some ByteSource, path: String) throws(PhotoFormatError) -> PhotoEvidence {
        var evidence = PhotoEvidence(path: path, format: .jpeg)
        evidence.fileSize = Int(source.size)
        evidence.codec = "jpeg"
        var frame: FrameHeader?
        var sawEXIF = false
        for segment in try segments(in: source) {
            if isFrameHeader(segment.marker), frame == nil {
                frame = try frameHeader(segment, in: source)
            } else if segment.marker == 0xE1 {
                let payload = try PhotoBytes.read(source, at: segment.payloadOffset, count: segment.payloadLength)
                if payload.starts(with: EXIFReader.exifPrefix) {
                    if sawEXIF {
                        // exiftool and decoders read the first; a second one is worth knowing about.
                        evidence.readerFindings.append(
                            Finding(
                                code: "jpeg-second-exif", severity: .info,
                                message: "a second exif app1 at offset \(segment.payloadOffset - 4) is ignored"))
                        continue
                    }
                    sawEXIF = true
                    PhotoBytes.addEXIF(
                        payload, fileOffset: segment.payloadOffset, location: "APP1 EXIF IFD0", to: &evidence)
                } else if payload.starts(with: xmpIdentifier) {
                    PhotoBytes.addXMP(payload.dropFirst(xmpIdentifier.count), location: "XMP in APP1", to: &evidence)
                }
            }
        }
        guard let frame else { throw PhotoFormatError("no frame header before the first scan") }
        guard frame.width > 0, frame.height > 0 else {
            throw PhotoFormatError("frame header gives a size of \(frame.width)x\(frame.height)")
        }
        evidence.storedWidth = frame.width
        evidence.storedHeight = frame.height
        evidence.bitDepth = frame.precision
        evidence.formatDetail = frame.process
        return evidence
    }
}

/// What every reader shares: checked reads, and EXIF and XMP payloads turned into statements.
enum PhotoBytes {
    static func read(_ source: some ByteSource, at offset: Int, count: Int) throws(PhotoFormatError) -> [UInt8] {
        try source.read(at: Int64(offset), count: count)
    }

    /// Reads an EXIF payload (with or without `Exif\0\0`) into `evidence`: its metadata, its
    /// orientation statement, its thumbnail as a preview and its findings. An unreadable block is a
    /// finding, not an error: the picture is still there.
    static func addEXIF(_ payload: [UInt8], fileOffset: Int?, location: String, to evidence: inout PhotoEvidence) {
        do {
            let block = try EXIFReader.read(exifPayload: payload, fileOffset: fileOffset)
            if evidence.exif == nil {
                evidence.exif = block.metadata
                if let thumbnail = block.metadata.thumbnail { evidence.previews.append(thumbnail) }
            }
            if let statement = block.statement(location: location) { evidence.statements.append(statement) }
            evidence.readerFindings += block.findings
        } catch {
            evidence.readerFindings.append(
                Finding(code: "exif-unreadable", severity: .warning, message: "\(location): \(error.reason)"))
        }
    }

    /// Reads an XMP packet's `tiff:Orientation` into a statement.
    static func addXMP(_ packet: some Collection<UInt8>, location: String, to evidence: inout PhotoEvidence) {
        if let value = XMPOrientation.value(in: Array(packet)) {
            evidence.statements.append(OrientationStatement(kind: .xmp, location: location, rawValue: value))
        }
    }
}
