package import VidorientCore
import VidorientIO

/// A JPEG file as `normalize` rebuilds it: the markers the file carries for itself (every APPn and
/// COM: JFIF, EXIF, XMP, ICC, MakerNotes, MPF, Adobe, …) in their order, then the turned image's
/// tables, frame and scans from libjpeg-turbo, then whatever followed the original's end of image
/// (the MPF images of a phone's photo). libjpeg-turbo is asked to copy no marker, so that every
/// one is kept exactly (and JFIF is not added to a file that had none, as jpegtran does).
package enum JPEGUpright {
    /// One marker segment of a whole file in memory: `start` is the 0xFF of its marker, `length`
    /// counts the marker, the length field and the payload.
    package struct Segment: Sendable, Hashable {
        package var marker: UInt8
        package var start: Int
        package var length: Int

        package var payloadStart: Int { start + 4 }
        package var payloadLength: Int { length - 4 }
        /// APPn or COM: a segment the file carries for itself, not part of the coded image.
        package var isApplication: Bool { (0xE0...0xEF).contains(marker) || marker == 0xFE }
    }

    /// The segments of the first image, and where its end-of-image marker ends.
    package struct Layout: Sendable, Hashable {
        /// From after SOI to the end of the image, scans' entropy-coded data left out.
        package var segments: [Segment]
        /// The offset just past EOI: the image is `bytes[0..<imageEnd]`, a trailer the rest.
        package var imageEnd: Int
        /// True for SOF2 and SOF10, a progressive image.
        package var isProgressive: Bool

        package init(_ bytes: [UInt8]) throws(PhotoFormatError) {
            var segments: [Segment] = []
            var progressive = false
            let count = bytes.count
            guard count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
                throw PhotoFormatError("no jpeg start-of-image marker")
            }
            var offset = 2
            var end: Int?
            try bytes.withUnsafeBufferPointer { (b) throws(PhotoFormatError) in
                while end == nil {
                    guard offset + 2 <= count else {
                        throw PhotoFormatError("the file ends before the image's end marker")
                    }
                    guard b[offset] == 0xFF, b[offset + 1] != 0x00 else {
                        // Stray bytes, stepped over as the reader and libjpeg step over them (the
                        // upright file is written without them).
                        offset = try JPEGReader.nextMarker(MemoryBytes(bytes), from: offset, size: count)
                        continue
                    }
                    let marker = b[offset + 1]
                    switch marker {
                    case 0xFF:
                        offset += 1
                        continue
                    case 0x01, 0xD0...0xD7:
                        offset += 2
                        continue
                    case 0xD9:
                        end = offset + 2
                        continue
                    default: break
                    }
                    guard offset + 4 <= count else {
                        throw PhotoFormatError("the file ends inside the marker at offset \(offset)")
                    }
                    let length = Int(b[offset + 2]) << 8 | Int(b[offset + 3])
                    guard length >= 2, offset + 2 + length <= count else {
                        throw PhotoFormatError(
                            "marker 0x\(String(marker, radix: 16)) at offset \(offset) runs past the end of the file")
                    }
                    segments.append(Segment(marker: marker, start: offset, length: 2 + length))
                    if marker == 0xC2 || marker == 0xCA { progressive = true }
                    offset += 2 + length
                    guard marker == 0xDA else { continue }
                    // Entropy-coded data: 0xFF is followed by 0 (a stuffed byte) or a restart marker;
                    // anything else is the next marker.
                    // memchr finds each 0xFF (a 12 MP photo has megabytes of scan data to pass).
                    while offset + 1 < count, let base = b.baseAddress {
                        guard let found = memchr(base + offset, 0xFF, count - 1 - offset) else {
                            offset = count
                            break
                        }
                        offset = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
                        let next = b[offset + 1]
                        if next != 0 && !(0xD0...0xD7).contains(next) && next != 0xFF { break }
                        offset += 1
                    }
                    guard offset + 1 < count else { throw PhotoFormatError("the file ends inside the image data") }
                }
            }
            self.segments = segments
            self.imageEnd = end!
            self.isProgressive = progressive
        }
    }

    /// The rebuilt file and what changed in it. The file is the markers, then the image, then the
    /// original's trailer: three pieces a writer streams one after another, never copied together.
    package struct Rebuilt: Sendable, Hashable {
        /// SOI and the markers kept (and edited).
        package var markers: [UInt8]
        /// The turned image from its first table to its EOI (a part of libjpeg-turbo's output).
        package var image: ArraySlice<UInt8>
        /// What followed the original's end of image (MPF images), as offsets in the original.
        package var trailer: Range<Int>
        package var changes: [String]
        package var thumbnail: ThumbnailOutcome
        package var warnings: [String]
    }

    /// `jpeg` without its APPn and COM segments: libjpeg-turbo's output for an embedded image
    /// (an EXIF thumbnail) carries a JFIF segment the original did not have.
    package static func withoutApplicationSegments(_ jpeg: [UInt8]) -> [UInt8] {
        // Absent is fine: libjpeg-turbo's own output; one that does not parse is kept whole.
        guard let layout = try? Layout(jpeg), let first = layout.segments.first(where: { !$0.isApplication }) else {
            return jpeg
        }
        return [0xFF, 0xD8] + jpeg[first.start..<layout.imageEnd]
    }

    static let mpfIdentifier: [UInt8] = Array("MPF\0".utf8)

    /// Where the first segment that is not APPn or COM starts in a whole JPEG that libjpeg-turbo
    /// wrote (SOI, its APPn, tables, frame, scans, EOI at the very end): only the leading segments
    /// are read, not megabytes of scan data.
    static func firstTable(ofWhole jpeg: [UInt8]) throws(PhotoFormatError) -> Int {
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8, jpeg[jpeg.count - 2] == 0xFF,
            jpeg[jpeg.count - 1] == 0xD9
        else { throw PhotoFormatError("the turned image is not a whole jpeg") }
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            guard (0xE0...0xEF).contains(marker) || marker == 0xFE else { return offset }
            offset += 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
        }
        throw PhotoFormatError("the turned image has no frame")
    }

    /// `original` with its image replaced by `turned` (a whole JPEG from the lossless transform).
    package static func rebuild(
        original: [UInt8], layout: Layout, turned: [UInt8], transform: UprightTransform,
        turnThumbnail: ([UInt8]) -> Result<[UInt8], PhotoFormatError>
    ) throws(PhotoFormatError) -> Rebuilt {
        var changes: [String] = []
        var warnings: [String] = []
        var thumbnail = ThumbnailOutcome.absent
        var output: [UInt8] = [0xFF, 0xD8]
        var sawEXIF = false
        var mpf: (segmentStart: Int, originalStart: Int)?
        let firstScan = layout.segments.firstIndex { $0.marker == 0xDA } ?? layout.segments.count
        for segment in layout.segments[..<firstScan] where segment.isApplication {
            let payload = original[segment.payloadStart..<segment.start + segment.length]
            var replacement: [UInt8]?
            if segment.marker == 0xE1, !sawEXIF, EXIFReader.isJPEGExif(payload) {
                sawEXIF = true
                let exif = try EXIFUpright(
                    tiff: Array(payload.dropFirst(EXIFReader.exifPrefix.count)), transform: transform,
                    turnThumbnail: turnThumbnail)
                changes += exif.changes.map { "APP1 EXIF " + $0 }
                thumbnail = exif.thumbnail
                replacement = EXIFReader.exifPrefix + exif.tiff
            } else if segment.marker == 0xE1, payload.starts(with: JPEGReader.xmpIdentifier) {
                if let packet = XMPOrientation.upright(Array(payload.dropFirst(JPEGReader.xmpIdentifier.count))) {
                    replacement = JPEGReader.xmpIdentifier + packet
                    changes.append("APP1 XMP tiff:Orientation -> 1")
                }
            } else if segment.marker == 0xE2, payload.starts(with: mpfIdentifier), mpf == nil {
                mpf = (output.count, segment.start)
            }
            if let replacement {
                guard replacement.count + 2 <= 0xFFFF else {
                    throw PhotoFormatError(
                        "the edited app\(segment.marker - 0xE0) segment would be \(replacement.count + 2) bytes, more than a segment holds"
                    )
                }
                output += [
                    0xFF, segment.marker, UInt8(truncatingIfNeeded: (replacement.count + 2) >> 8),
                    UInt8(truncatingIfNeeded: replacement.count + 2),
                ]
                output += replacement
            } else {
                output += original[segment.start..<segment.start + segment.length]
            }
        }
        let dropped = layout.segments[firstScan...].filter(\.isApplication).count
        if dropped > 0 { warnings.append("\(dropped) app or com segments between the scans were not kept") }
        // The turned image from its first table on: its own APPn (JFIF, Adobe) give way to the original's.
        let image = turned[try firstTable(ofWhole: turned)...]
        let imageEnd = output.count + image.count
        if let mpf {
            let moved = try relocateMPF(
                in: &output, segmentStart: mpf.segmentStart, originalSegmentStart: mpf.originalStart,
                originalImageEnd: layout.imageEnd, imageEnd: imageEnd)
            if moved > 0 {
                changes.append("APP2 MPF image offsets moved")
                warnings.append(
                    moved == 1
                        ? "the further image of the mpf index (a preview, depth or gain map) was kept as stored, not turned"
                        : "the \(moved) further images of the mpf index (previews, depth or gain maps) were kept as stored, not turned"
                )
            }
        }
        // The turned image and the trailer are not copied: the writer streams them after the markers.
        return Rebuilt(
            markers: output, image: image, trailer: layout.imageEnd..<original.count, changes: changes,
            thumbnail: thumbnail, warnings: warnings)
    }

    /// Rewrites an MPF index (CIPA DC-007: offsets from the MP header, the `II`/`MM` after
    /// `MPF\0`) for the rebuilt file: the first image's size, and each further image's offset
    /// moved by how much the distance from the header to the end of the first image changed.
    /// Returns how many further images it points to.
    static func relocateMPF(
        in output: inout [UInt8], segmentStart: Int, originalSegmentStart: Int, originalImageEnd: Int, imageEnd: Int
    ) throws(PhotoFormatError) -> Int {
        let header = segmentStart + 4 + mpfIdentifier.count
        let originalHeader = originalSegmentStart + 4 + mpfIdentifier.count
        let length = Int(output[segmentStart + 2]) << 8 | Int(output[segmentStart + 3])
        let tiffBytes = Array(output[header..<segmentStart + 2 + length])
        // Absent is fine: an MPF that does not parse pointed nowhere already; it is kept as it was.
        guard let (structure, ifd) = try? TIFFStructure.firstDirectory(of: tiffBytes),
            let entries = ifd[0xB002], entries.count % 16 == 0
        else { return 0 }
        var editor = TIFFEditor(structure: structure)
        let shift = (imageEnd - header) - (originalImageEnd - originalHeader)
        var further = 0
        for index in 0..<entries.count / 16 {
            let at = entries.valueOffset + 16 * index
            let offset = structure.uint32(at: at + 8)
            if offset == 0 {
                editor.put(imageEnd, at: at + 4, size: 4)
            } else if originalHeader + offset >= originalImageEnd {
                editor.put(offset + shift, at: at + 8, size: 4)
                further += 1
            }
        }
        output.replaceSubrange(header..<header + tiffBytes.count, with: editor.bytes)
        return further
    }
}
