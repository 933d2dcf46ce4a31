import VidorientCore
import VidorientIO
import VidorientISOBMFF

/// JPEG: the EXIF APP1's IFD0 Orientation, and every XMP APP1's `tiff:Orientation`.
enum JPEGOrientationFix {
    /// The largest APP1 payload: the segment length field (65535) counts its own two bytes.
    static let maximumPayload = 65533

    static func plan(_ source: some ByteSource, target: Orientation, xmpDecides: Bool) throws(PhotoFormatError)
        -> PhotoTagFix.Changes
    {
        let scan = try JPEGReader.scan(source)
        // Cut before its first scan: nothing to splice safely into (`JPEGReader.segments`' rule).
        if let truncation = scan.truncation { throw PhotoFormatError(truncation) }
        // Written, the orientation would show to vidorient and libjpeg but not to exiftool, which
        // stops at such a segment and reads nothing (issue 23's mutated JPEGs).
        if let short = scan.shortSegments.first {
            throw .unsupported(
                "the file is damaged: \(short); exiftool reads no metadata past it, so the fix is refused")
        }
        let segments = scan.segments
        var changes = PhotoTagFix.Changes()
        var exifSegment: JPEGReader.Segment?
        for segment in segments where segment.marker == 0xE1 {
            let payload = try PhotoBytes.read(source, at: segment.payloadOffset, count: segment.payloadLength)
            if EXIFReader.isJPEGExif(payload) {
                // Readers take the first EXIF APP1; a second one is ignored as they ignore it.
                if exifSegment == nil { exifSegment = segment }
            } else if payload.starts(with: JPEGReader.xmpIdentifier) {
                try changes.addXMP(
                    Array(payload.dropFirst(JPEGReader.xmpIdentifier.count)),
                    at: Int64(segment.payloadOffset + JPEGReader.xmpIdentifier.count), target: target,
                    location: "XMP in APP1")
            }
        }
        if let segment = exifSegment {
            let tiffStart = segment.payloadOffset + 6
            let tiffLength = segment.payloadLength - 6
            let tiff = try PhotoBytes.read(source, at: tiffStart, count: tiffLength)
            try IFD0Editor.refuseLoops(tiff: tiff, location: "APP1 EXIF")
            let editor = try IFD0Editor(MemoryBytes(tiff), base: 0, length: Int64(tiffLength))
            let block = try TIFFBlockEdit(
                editor, target: target, tiffLength: Int64(tiffLength), location: "APP1 EXIF IFD0")
            // The editor worked on the block alone: its splices move to where the block is.
            changes.splices += block.splices.map {
                ByteSplice(offset: $0.offset + Int64(tiffStart), old: $0.old, new: $0.new)
            }
            changes.places += block.places
            if block.inserted > 0 {
                let payload = segment.payloadLength + block.inserted
                guard payload <= maximumPayload else {
                    throw .unsupported(
                        "the exif app1 would grow to \(payload) bytes, past the \(maximumPayload) a jpeg segment holds")
                }
                let lengthOffset = Int64(segment.payloadOffset - 2)
                changes.splices.append(
                    ByteSplice(
                        offset: lengthOffset,
                        old: IFD0Editor.encode(segment.payloadLength + 2, size: 2, littleEndian: false),
                        new: IFD0Editor.encode(payload + 2, size: 2, littleEndian: false)))
                changes.places.append("APP1 EXIF length: \(segment.payloadLength + 2) -> \(payload + 2)")
            }
        } else if !xmpDecides {
            // A new EXIF APP1 right after SOI, or after a JFIF APP0 that must stay first.
            var at = 2
            var after = "SOI"
            if let first = segments.first, first.marker == 0xE0, first.payloadOffset == 6,
                try PhotoBytes.read(source, at: first.payloadOffset, count: min(5, first.payloadLength))
                    == Array("JFIF\0".utf8)
            {
                at = first.payloadOffset + first.payloadLength
                after = "JFIF APP0"
            }
            let payload = EXIFReader.exifPrefix + IFD0Editor.minimalTIFF(target)
            let segment: [UInt8] =
                [0xFF, 0xE1] + IFD0Editor.encode(payload.count + 2, size: 2, littleEndian: false) + payload
            changes.splices.append(ByteSplice(offset: Int64(at), old: [], new: segment))
            changes.places.append(
                "new APP1 EXIF (\(segment.count) bytes, IFD0 Orientation \(target.exif)) after \(after)")
        }
        return changes
    }
}
