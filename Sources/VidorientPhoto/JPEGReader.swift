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

    /// Bytes between two segments that are not a marker, stepped over as libjpeg steps over them
    /// (`next_marker`: "corrupt jpeg data: N extraneous bytes before marker") and exiftool does
    /// ("skipped unknown N bytes after jpeg … segment"). A segment whose length falls short of the
    /// next marker leaves such bytes behind it.
    public struct StrayBytes: Sendable, Hashable {
        /// Where the first stray byte is.
        public var offset: Int
        public var count: Int
        /// The marker of the segment they follow; nil right after SOI.
        public var after: UInt8?

        /// `14 stray bytes at offset 35246, after the app2 segment`.
        public var description: String {
            let place = after.map { "after the \(JPEGReader.markerName($0)) segment" } ?? "after the start of image"
            return "\(count) stray byte\(count == 1 ? "" : "s") at offset \(offset), \(place)"
        }
    }

    /// The markers from SOI to the first scan, and the stray bytes stepped over on the way.
    struct MarkerScan {
        /// What decoders make of the damage, as exiftool 12 was seen to (issue 28): libjpeg steps
        /// over all of it; exiftool steps over stray bytes after a segment, but does not take a
        /// file with stray bytes right after its start for a JPEG ("File format error"; it finds
        /// an EXIF block in them by its header alone), and stops at an APPn or COM shorter than
        /// its own length ("JPEG format error").
        var exiftoolConsequence: String {
            if stray.contains(where: { $0.after == nil }) {
                return
                    "libjpeg steps over them; exiftool does not read the file as a JPEG: 'File format error', "
                    + "or only an EXIF block it finds by its header"
            }
            if !shortSegments.isEmpty {
                return "libjpeg steps over them; exiftool stops there: 'JPEG format error'"
            }
            return "libjpeg and exiftool step over them"
        }

        var segments: [Segment] = []
        var stray: [StrayBytes] = []
        /// Everything stepped over, for the `file-damaged` finding, in file order: stray bytes,
        /// and APPn or COM segments whose length is less than 2 (read as libjpeg reads them).
        var damage: [String] = []
        /// Where the file ends before the first scan (a segment that runs past the end, or no
        /// marker left), for the `file-truncated` finding; nil when the scan was reached.
        var truncation: String?
        /// The segment the end of the file cut, with the bytes it has: an EXIF APP1 cut after
        /// its IFD0 still states the orientation.
        var cutSegment: Segment?
        /// The APPn or COM segments whose length is less than 2: libjpeg steps over them, but
        /// exiftool stops there with "JPEG format error" and reads no metadata at all.
        var shortSegments: [String] = []
    }

    /// `app1`, `dqt`, `sof0`, `0xf7`: a marker's name as messages give it.
    static func markerName(_ marker: UInt8) -> String {
        switch marker {
        case 0xE0...0xEF: "app\(marker - 0xE0)"
        case 0xC4: "dht"
        case 0xCC: "dac"
        case 0xDB: "dqt"
        case 0xDD: "dri"
        case 0xFE: "com"
        case 0xC0...0xCF: "sof\(marker - 0xC0)"
        default: "0x\(String(marker, radix: 16))"
        }
    }

    /// The segments from SOI up to SOS or EOI. Throws when the file is not a JPEG, a segment's
    /// length runs past the end, or no marker follows before the end.
    static func segments(in source: some ByteSource) throws(PhotoFormatError) -> [Segment] {
        let scan = try scan(source)
        if let truncation = scan.truncation { throw PhotoFormatError(truncation) }
        return scan.segments
    }

    /// The segments from SOI up to SOS or EOI, reading as libjpeg reads: where a marker should
    /// be and is not, the bytes up to the next `FF` that starts a marker (not `FF 00`, the
    /// stuffing of entropy-coded data) are stepped over and recorded. Where the file ends before
    /// the first scan, the scan stops there and says so in `truncation`.
    static func scan(_ source: some ByteSource) throws(PhotoFormatError) -> MarkerScan {
        let size = Int(source.size)
        guard size >= 4, try PhotoBytes.read(source, at: 0, count: 2) == [0xFF, 0xD8] else {
            throw PhotoFormatError("no jpeg start-of-image marker")
        }
        var scan = MarkerScan()
        var offset = 2
        var previous: UInt8?
        while scan.segments.count < maximumSegments {
            guard offset + 2 <= size else {
                scan.truncation = "the file ends at \(size) bytes, before the first scan"
                return scan
            }
            let head = try PhotoBytes.read(source, at: offset, count: 2)
            guard head[0] == 0xFF, head[1] != 0x00 else {
                let marker = try nextMarker(source, from: offset, size: size)
                let stray = StrayBytes(offset: offset, count: marker - offset, after: previous)
                scan.stray.append(stray)
                scan.damage.append(stray.description)
                offset = marker
                continue
            }
            let marker = head[1]
            switch marker {
            case 0xFF:  // a fill byte before the marker
                offset += 1
                continue
            case 0x01, 0xD0...0xD8:  // TEM, RSTn, SOI: no length
                offset += 2
                continue
            case 0xD9, 0xDA:  // EOI, SOS: the header is over
                scan.segments.append(Segment(marker: marker, payloadOffset: offset + 2, payloadLength: 0))
                return scan
            default:
                break
            }
            guard offset + 4 <= size else {
                scan.truncation = "the file ends inside the marker at offset \(offset)"
                return scan
            }
            let lengthBytes = try PhotoBytes.read(source, at: offset + 2, count: 2)
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            if length < 2, (0xE0...0xEF).contains(marker) || marker == 0xFE {
                // libjpeg reads the two length bytes of an APPn or COM, skips nothing more, and
                // looks for the next marker from there.
                let short =
                    "the \(markerName(marker)) segment at offset \(offset) has length \(length), less than its own 2 bytes"
                scan.damage.append(short)
                scan.shortSegments.append(short)
                previous = marker
                offset += 4
                continue
            }
            guard length >= 2 else {
                throw PhotoFormatError(
                    "the \(markerName(marker)) segment at offset \(offset) has length \(length), less than its own 2 bytes"
                )
            }
            guard offset + 2 + length <= size else {
                scan.truncation =
                    "the \(markerName(marker)) segment at offset \(offset) has length \(length), past the end of the file at \(size) bytes"
                scan.cutSegment = Segment(marker: marker, payloadOffset: offset + 4, payloadLength: size - offset - 4)
                return scan
            }
            scan.segments.append(Segment(marker: marker, payloadOffset: offset + 4, payloadLength: length - 2))
            previous = marker
            offset += 2 + length
        }
        throw PhotoFormatError("more than \(maximumSegments) segments before the first scan")
    }

    /// Where the next marker starts at or after `offset`: a run of `FF`s (fill bytes, then the
    /// marker's own) followed by a byte that is neither `00` nor `FF`. Read in 4 KiB pieces; the end of the file first is
    /// an error.
    static func nextMarker(_ source: some ByteSource, from offset: Int, size: Int) throws(PhotoFormatError) -> Int {
        var at = offset
        var run: Int?  // where the current run of FFs started: fill bytes belong to the marker
        while at < size {
            let piece = try PhotoBytes.read(source, at: at, count: min(4096, size - at))
            for (index, byte) in piece.enumerated() {
                if byte == 0xFF {
                    run = run ?? at + index
                } else if let start = run, byte != 0x00 {
                    return start
                } else {
                    run = nil
                }
            }
            at += piece.count
        }
        throw PhotoFormatError("no marker after the stray bytes at offset \(offset) before the end of the file")
    }

    /// Why the image data that starts at `scanStart` (its first SOS marker) has no end-of-image
    /// marker: the file was cut inside it. Nil when it has one, wherever it is: a file may go on
    /// after its EOI (MPF's second pictures, Samsung's trailer, a motion photo's video, padding).
    ///
    /// Cheap for most files: one read of the last bytes, which end with EOI (padding `00`/`FF`
    /// stepped over). Only a file that ends otherwise is read from its first scan on, as libjpeg
    /// reads it (marker segments between scans skipped by their length, `FF 00` stuffing and
    /// `FF D0`–`D7` restarts stepped over), up to its EOI.
    static func missingEnd(_ source: some ByteSource, scanStart: Int) throws(PhotoFormatError) -> String? {
        let size = Int(source.size)
        let tailCount = min(4096, size - scanStart)
        let tail = try PhotoBytes.read(source, at: size - tailCount, count: tailCount)
        if let last = tail.lastIndex(where: { $0 != 0x00 && $0 != 0xFF }), last >= 1, tail[last] == 0xD9,
            tail[last - 1] == 0xFF
        {
            return nil
        }
        var reader = ChunkReader(source: source, offset: scanStart, size: size)
        while let byte = try reader.next() {
            guard byte == 0xFF else { continue }
            // A run of fill FFs, then the marker's own byte.
            var marker = try reader.next()
            while marker == 0xFF { marker = try reader.next() }
            guard let marker else { break }
            switch marker {
            case 0x00, 0x01, 0xD0...0xD7:  // stuffing, TEM, restarts: still image data
                continue
            case 0xD9:
                return nil
            case 0xD8:  // a second SOI inside the first picture: not a marker libjpeg accepts here
                continue
            default:
                // A marker segment between scans (SOS, DHT, DQT, DRI, COM, APPn): skip its length.
                guard let high = try reader.next(), let low = try reader.next() else { break }
                let length = Int(high) << 8 | Int(low)
                guard length >= 2 else { continue }
                let end = reader.offset + length - 2
                guard end <= size else {
                    return
                        "the \(markerName(marker)) segment at offset \(reader.offset - 4) has length \(length), past the end of the file at \(size) bytes: the rest of the picture is missing"
                }
                reader.seek(to: end)
            }
        }
        return
            "the image data ends at \(size) bytes with no end-of-image marker: the rest of the picture is missing"
    }

    /// Bytes one at a time from a source, read a megabyte at a time.
    struct ChunkReader<Source: ByteSource> {
        let source: Source
        private(set) var offset: Int
        let size: Int
        private var chunk: [UInt8] = []
        private var chunkStart = 0

        init(source: Source, offset: Int, size: Int) {
            self.source = source
            self.offset = offset
            self.size = size
        }

        mutating func next() throws(PhotoFormatError) -> UInt8? {
            guard offset < size else { return nil }
            if offset < chunkStart || offset >= chunkStart + chunk.count {
                chunkStart = offset
                chunk = try PhotoBytes.read(source, at: offset, count: min(1 << 20, size - offset))
            }
            defer { offset += 1 }
            return chunk[offset - chunkStart]
        }

        mutating func seek(to position: Int) { offset = position }
    }

    static func isFrameHeader(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// The first frame header; nil when there is none before the scan or the bytes are not a JPEG.
    /// Used for embedded JPEGs (EXIF thumbnails, raw previews), whose failure must not fail the file.
    package static func frameHeader(in source: some ByteSource) -> FrameHeader? {
        // Absent is fine: an embedded JPEG's failure must not fail the file (see above).
        try? firstFrameHeader(in: source)
    }

    static func firstFrameHeader(in source: some ByteSource) throws(PhotoFormatError) -> FrameHeader? {
        guard let segment = try segments(in: source).first(where: { isFrameHeader($0.marker) }) else { return nil }
        return try frameHeader(segment, in: source)
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
        let scan = try scan(source)
        if !scan.damage.isEmpty {
            evidence.readerFindings.append(
                PhotoBytes.damaged(scan.damage, consequence: scan.exiftoolConsequence))
        }
        // A segment the end of the file cut is read for what it has (an EXIF APP1's IFD0 comes first).
        let cutAPP1 = scan.cutSegment.map { $0.marker == 0xE1 ? [$0] : [] } ?? []
        for segment in scan.segments + cutAPP1 {
            if isFrameHeader(segment.marker), frame == nil {
                frame = try frameHeader(segment, in: source)
            } else if segment.marker == 0xE1 {
                let payload = try PhotoBytes.read(source, at: segment.payloadOffset, count: segment.payloadLength)
                if EXIFReader.isJPEGExif(payload) {
                    if sawEXIF {
                        // exiftool and decoders read the first; a second one is worth knowing about.
                        evidence.readerFindings.append(
                            .jpegSecondExif, .info,
                            "a second exif app1 at offset \(segment.payloadOffset - 4) is ignored")
                        continue
                    }
                    sawEXIF = true
                    // The sixth byte is a fill byte: the TIFF header starts after it whatever it is.
                    PhotoBytes.addEXIF(
                        EXIFReader.exifPrefix + payload.dropFirst(EXIFReader.exifPrefix.count),
                        fileOffset: segment.payloadOffset, location: "APP1 EXIF IFD0", to: &evidence)
                } else if payload.starts(with: xmpIdentifier) {
                    PhotoBytes.addXMP(payload.dropFirst(xmpIdentifier.count), location: "XMP in APP1", to: &evidence)
                }
            }
        }
        if let truncation = scan.truncation {
            // Said, not thrown: what was read before the end still states an orientation.
            evidence.readerFindings.append(
                PhotoBytes.truncated(
                    "\(truncation): the picture is missing", decoders: "libjpeg: premature end of jpeg file"))
            guard let frame else { return evidence }
            evidence.storedWidth = frame.width
            evidence.storedHeight = frame.height
            evidence.bitDepth = frame.precision
            evidence.formatDetail = frame.process
            return evidence
        }
        guard let frame else { throw PhotoFormatError("no frame header before the first scan") }
        if let start = scan.segments.last(where: { $0.marker == 0xDA }),
            let missing = try missingEnd(source, scanStart: start.payloadOffset - 4)
        {
            evidence.readerFindings.append(
                PhotoBytes.truncated(
                    missing, decoders: "libjpeg: premature end of jpeg file; viewers show the rest grey"))
        }
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

/// Where one chunk of a PNG or a RIFF (WebP) file sits. Both put 8 bytes before the data (PNG
/// its length then its type, RIFF its FourCC then its length); PNG ends a chunk with a 4-byte
/// CRC, RIFF with a pad byte when the length is odd.
struct ChunkPlace {
    var offset: Int
    var length: Int
    var type: String
    var dataOffset: Int { offset + 8 }
    /// Where the data ends: a PNG chunk's CRC starts here.
    var dataEnd: Int { offset + 8 + length }
}

/// What every reader shares: checked reads, damage said once, and EXIF and XMP payloads turned
/// into statements.
enum PhotoBytes {
    /// The most bytes read for one metadata block whose size the file states (a CR3 `CMT1` or
    /// `CMT2`, MRW's `TTW`, WebP's `EXIF` and `XMP ` chunks, PNG's text chunks, XMP): a claimed
    /// gigabyte is not allocated. An EXIF block longer than this is read for its first bytes,
    /// where IFD0 is; other blocks are passed over.
    static let maximumMetadataLength = 16 << 20

    /// The `file-damaged` finding: what is damaged and where (the first few places, then how many
    /// more), and what readers do about it. The orientation is still read from the rest.
    static func damaged(_ places: [String], consequence: String) -> Finding {
        let shown = places.prefix(4).joined(separator: "; ")
        let more = places.count > 4 ? "; and \(places.count - 4) more" : ""
        return Finding(
            .fileDamaged, severity: .warning, message: "the file is damaged: \(shown)\(more) (\(consequence))")
    }

    /// The `file-truncated` finding: where the file ends before its picture does, and what
    /// decoders make of it.
    static func truncated(_ place: String, decoders: String) -> Finding {
        Finding(.fileTruncated, severity: .error, message: "the file is truncated: \(place) (\(decoders))")
    }

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
            evidence.readerFindings.append(.exifUnreadable, .warning, "\(location): \(error.reason)")
        }
    }

    /// Reads an XMP packet's `tiff:Orientation` into a statement.
    static func addXMP(_ packet: some Collection<UInt8>, location: String, to evidence: inout PhotoEvidence) {
        if let value = XMPOrientation.value(in: Array(packet)) {
            evidence.statements.append(OrientationStatement(kind: .xmp, location: location, rawValue: value))
        }
    }
}
