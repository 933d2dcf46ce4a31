package import VidorientCore
package import VidorientIO
import VidorientISOBMFF

/// Camera raws whose container is not TIFF, each read from its own structure, the orientation
/// taken where the camera's own software and the raw developers (dcraw/LibRaw, so RawTherapee
/// and darktable, and exiv2) take it, and the embedded JPEGs kept as previews for thumbnails:
///
/// - Fujifilm RAF: the embedded JPEG (offset and length at bytes 84 and 88), its EXIF IFD0
///   (dcraw: `parse_tiff(thumb_offset + 12)`); the raw size from the CFA header's tag 0x100.
/// - Canon CR3: `CMT1`'s IFD0 (`CR3Layout`), the Exif IFD in `CMT2`, XMP in its `uuid` box.
/// - Minolta MRW: the `TTW` block's TIFF IFD0 (dcraw's `parse_minolta`); the size from `PRD`.
/// - Canon CRW (CIFF): ImageInfo (0x1810) Rotation in degrees, the only orientation the camera
///   writes (dcraw and exiv2 map 90 to 6, 180 to 3, 270 to 8); it plays EXIF's part in the
///   decision. XMP that tools add in the trailer is read as XMP.
package enum RawContainerReader {
    package static func read(_ source: some ByteSource, path: String, container: String) throws(PhotoFormatError)
        -> PhotoEvidence
    {
        var evidence = PhotoEvidence(path: path, format: .raw(container))
        evidence.fileSize = Int(source.size)
        evidence.formatDetail = container
        switch container {
        case "raf": try readRAF(source, into: &evidence)
        case "cr3": try readCR3(source, into: &evidence)
        case "mrw": try readMRW(source, into: &evidence)
        case "crw": try readCRW(source, into: &evidence)
        default: throw PhotoFormatError("no reader for \(container) files")
        }
        evidence.previews.sort { ($0.width ?? 0) * ($0.height ?? 0) > ($1.width ?? 0) * ($1.height ?? 0) }
        if evidence.storedWidth == nil, let largest = evidence.previews.first {
            evidence.storedWidth = largest.width
            evidence.storedHeight = largest.height
        }
        guard evidence.storedWidth != nil else {
            throw PhotoFormatError("the \(container) file states no picture size")
        }
        return evidence
    }

    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int { bytes.reduce(0) { $0 << 8 | Int($1) } }

    /// A JPEG at `offset` in the file, as a preview: nil when it is not one (its frame header decides).
    static func preview(_ source: some ByteSource, offset: Int, length: Int, location: String) -> EmbeddedImage? {
        guard offset >= 0, length > 0, offset <= Int(source.size) - length,
            let frame = JPEGReader.frameHeader(in: WindowBytes(source, offset: offset, length: length))
        else { return nil }
        return EmbeddedImage(
            codec: "jpeg", offset: offset, length: length, width: frame.width, height: frame.height, location: location)
    }

    // MARK: - Fujifilm RAF

    static func readRAF(_ source: some ByteSource, into evidence: inout PhotoEvidence) throws(PhotoFormatError) {
        guard source.size >= 108 else { throw PhotoFormatError("raf header is \(source.size) bytes, needs 108") }
        let header = try PhotoBytes.read(source, at: 0, count: 108)
        let jpegOffset = bigEndian(header[84..<88]), jpegLength = bigEndian(header[88..<92])
        guard jpegLength > 0, jpegOffset >= 108, jpegOffset <= Int(source.size) - jpegLength else {
            throw PhotoFormatError(
                jpegLength <= 0 || jpegOffset < 108
                    ? "raf jpeg at offset \(jpegOffset) of \(jpegLength) bytes is not where a jpeg can be"
                    : rangeBeyondTheFile(
                        "raf jpeg", from: Int64(jpegOffset), to: Int64(jpegOffset) + Int64(jpegLength),
                        fileSize: source.size))
        }
        let jpeg: PhotoEvidence
        do {
            jpeg = try JPEGReader.read(WindowBytes(source, offset: jpegOffset, length: jpegLength), path: evidence.path)
        } catch {
            throw PhotoFormatError("raf embedded jpeg: \(error.reason)")
        }
        evidence.statements = jpeg.statements.map {
            var statement = $0
            statement.location = "RAF JPEG \($0.location)"
            return statement
        }
        evidence.exif = jpeg.exif
        evidence.readerFindings = jpeg.readerFindings
        evidence.codec = "raf"
        evidence.previews.append(
            EmbeddedImage(
                codec: "jpeg", offset: jpegOffset, length: jpegLength, width: jpeg.storedWidth,
                height: jpeg.storedHeight, location: "RAF JPEG"))
        for thumbnail in jpeg.previews {
            var moved = thumbnail
            moved.offset = thumbnail.offset.map { $0 + jpegOffset }
            moved.location = "RAF JPEG \(thumbnail.location)"
            evidence.previews.append(moved)
        }
        // The CFA header: a count, then tag (2), size (2), data; 0x100 is the raw size, height first.
        let cfaOffset = bigEndian(header[92..<96]), cfaLength = bigEndian(header[96..<100])
        // The range is checked against the file: a read that fails there is the disk's, and said.
        if cfaLength >= 4, cfaLength <= 1 << 20, cfaOffset >= 0, cfaOffset <= Int(source.size) - cfaLength {
            let cfa = try PhotoBytes.read(source, at: cfaOffset, count: cfaLength)
            var at = 4
            for _ in 0..<min(bigEndian(cfa[0..<4]), 256) {
                guard at + 4 <= cfa.count else { break }
                let tag = bigEndian(cfa[at..<at + 2]), size = bigEndian(cfa[at + 2..<at + 4])
                guard at + 4 + size <= cfa.count else { break }
                if tag == 0x100, size >= 4 {
                    evidence.storedHeight = bigEndian(cfa[at + 4..<at + 6])
                    evidence.storedWidth = bigEndian(cfa[at + 6..<at + 8])
                }
                at += 4 + size
            }
        }
        if evidence.storedWidth == 0 || evidence.storedHeight == 0 {
            (evidence.storedWidth, evidence.storedHeight) = (nil, nil)
        }
    }

    // MARK: - Canon CR3

    static func readCR3(_ source: some ByteSource, into evidence: inout PhotoEvidence) throws(PhotoFormatError) {
        let layout: CR3Layout
        do { layout = try CR3Layout.read(source) } catch { throw PhotoFormatError(error.reason) }
        evidence.codec = "crx"
        guard let cmt1 = layout.metadata["CMT1"] else { throw PhotoFormatError("cr3 has no 'CMT1' (ifd0) box") }
        let block: EXIFBlock
        do {
            block = try EXIFReader.read(
                // A CMT1 that claims more than the cap is read for its first bytes (IFD0 comes first).
                tiff: try PhotoBytes.read(
                    source, at: Int(cmt1.offset), count: min(cmt1.length, PhotoBytes.maximumMetadataLength)),
                fileOffset: Int(cmt1.offset))
        } catch {
            throw PhotoFormatError("cr3 'CMT1': \(error.reason)")
        }
        var metadata = block.metadata
        if let statement = block.statement(location: "CMT1 IFD0") { evidence.statements.append(statement) }
        evidence.readerFindings = block.findings
        if !layout.repeated.isEmpty {
            evidence.readerFindings.append(
                .cr3RepeatedMetadata, .info,
                "the canon metadata boxes repeat: the first of each is read, as exiftool reads it; ignored: \(layout.repeated.joined(separator: ", "))"
            )
        }
        // CMT2 is the Exif IFD as a TIFF of its own: its IFD0 holds what the Exif IFD holds elsewhere.
        // Absent is fine: it holds no orientation (CMT1 does); only the dates, sizes and lens are lost.
        if let (tiff, exif) = try? cr3TIFF(layout.metadata["CMT2"], in: source) {
            EXIFReader.readExifIFD(exif, of: tiff, into: &metadata)
        }
        // CMT4 is the GPS IFD as a TIFF of its own. Absent or unreadable is fine: it holds no
        // orientation; only the position is lost.
        metadata.gps = nil
        if let (tiff, gps) = try? cr3TIFF(layout.metadata["CMT4"], in: source) {
            metadata.gps = EXIFReader.position(in: gps, of: tiff)
        }
        evidence.exif = metadata
        evidence.storedWidth = metadata.imageWidth
        evidence.storedHeight = metadata.imageHeight
        // The box lies inside the file (the layout checks every box against its parent): a read
        // that fails there is the disk's, and said.
        if let xmp = layout.xmp, xmp.length <= XMPOrientation.maximumLength {
            let packet = try PhotoBytes.read(source, at: Int(xmp.offset), count: xmp.length)
            PhotoBytes.addXMP(packet, location: "XMP uuid box", to: &evidence)
        }
        for item in layout.previews {
            if let image = preview(
                source, offset: Int(item.extent.offset), length: item.extent.length, location: item.location)
            {
                evidence.previews.append(image)
            }
        }
    }

    /// A CR3 metadata box (CMT2, CMT4) that is a TIFF of its own: its structure and IFD0; nil when
    /// the file has no such box.
    private static func cr3TIFF(
        _ box: CR3Layout.Extent?, in source: some ByteSource
    ) throws(PhotoFormatError) -> (TIFFStructure, TIFFDirectory)? {
        guard let box else { return nil }
        guard box.length <= PhotoBytes.maximumMetadataLength else {
            throw PhotoFormatError("cr3 metadata box of \(box.length) bytes is over the limit")
        }
        return try TIFFStructure.firstDirectory(of: PhotoBytes.read(source, at: Int(box.offset), count: box.length))
    }

    // MARK: - Minolta MRW

    static func readMRW(_ source: some ByteSource, into evidence: inout PhotoEvidence) throws(PhotoFormatError) {
        guard source.size >= 8 else { throw PhotoFormatError("mrw header is \(source.size) bytes, needs 8") }
        let dataOffset = 8 + bigEndian(try PhotoBytes.read(source, at: 4, count: 4)[...])
        guard dataOffset <= Int(source.size) else {
            throw PhotoFormatError("mrw header blocks end at \(dataOffset), past the end of the file")
        }
        evidence.codec = "mrw"
        var at = 8
        var sawTIFF = false
        while at + 8 <= dataOffset {
            let head = try PhotoBytes.read(source, at: at, count: 8)
            let name = String(decoding: head[1..<4], as: UTF8.self), length = bigEndian(head[4..<8])
            guard length <= dataOffset - at - 8 else {
                throw PhotoFormatError("mrw block '\(name)' at offset \(at) runs past the header blocks")
            }
            if name == "PRD", length >= 16 {
                let prd = try PhotoBytes.read(source, at: at + 8, count: 16)
                evidence.storedHeight = bigEndian(prd[12..<14])
                evidence.storedWidth = bigEndian(prd[14..<16])
            } else if name == "TTW", !sawTIFF {
                sawTIFF = true
                let block: EXIFBlock
                do {
                    block = try EXIFReader.read(
                        tiff: try PhotoBytes.read(
                            source, at: at + 8, count: min(length, PhotoBytes.maximumMetadataLength)),
                        fileOffset: at + 8)
                } catch {
                    throw PhotoFormatError("mrw 'TTW' block: \(error.reason)")
                }
                if let statement = block.statement(location: "TTW IFD0") { evidence.statements.append(statement) }
                evidence.exif = block.metadata
                evidence.readerFindings += block.findings
                if let thumbnail = block.metadata.thumbnail { evidence.previews.append(thumbnail) }
            }
            at += 8 + length
        }
        guard sawTIFF else { throw PhotoFormatError("mrw has no 'TTW' (tiff) block") }
        if evidence.storedWidth == 0 || evidence.storedHeight == 0 {
            (evidence.storedWidth, evidence.storedHeight) = (nil, nil)
        }
    }

    // MARK: - Canon CRW (CIFF)

    /// At most this many CIFF directories, and this deep: far more than any camera writes.
    static let maximumHeaps = 64
    static let maximumDepth = 8

    static func readCRW(_ source: some ByteSource, into evidence: inout PhotoEvidence) throws(PhotoFormatError) {
        let size = Int(source.size)
        guard size >= 26 else { throw PhotoFormatError("crw header is \(size) bytes, needs 26") }
        let header = try PhotoBytes.read(source, at: 0, count: 14)
        let little = header[0] == 0x49
        func uint(_ bytes: ArraySlice<UInt8>) -> Int {
            little ? bytes.reversed().reduce(0) { $0 << 8 | Int($1) } : bigEndian(bytes)
        }
        let headerLength = uint(header[2..<6])
        guard headerLength >= 14, headerLength < size else {
            throw PhotoFormatError("crw header length \(headerLength) is outside the file")
        }
        evidence.codec = "crw"
        var heaps = 0
        var rotation: Int?
        var rootDirectoryEnd = size
        // Each heap: its entries' directory at the offset its last 4 bytes give; an entry is a tag
        // (the top 2 bits say where its data is, bits 11-13 its type), a size and an offset.
        func walk(start: Int, end: Int, depth: Int) throws(PhotoFormatError) {
            heaps += 1
            guard heaps <= maximumHeaps, depth <= maximumDepth, end - start >= 6 else {
                throw PhotoFormatError("crw directories nest too deep or too many at offset \(start)")
            }
            let directory = start + uint(try PhotoBytes.read(source, at: end - 4, count: 4)[...])
            guard directory >= start, directory <= end - 6 else {
                throw PhotoFormatError("crw directory at \(directory) is outside its heap (\(start) to \(end))")
            }
            let count = uint(try PhotoBytes.read(source, at: directory, count: 2)[...])
            guard directory + 2 + 10 * count <= end - 4 else {
                throw PhotoFormatError(
                    "crw directory at \(directory) claims \(count) entries, more than its heap holds")
            }
            if depth == 0 { rootDirectoryEnd = directory + 2 + 10 * count }
            let entries = try PhotoBytes.read(source, at: directory + 2, count: 10 * count)
            for index in 0..<count {
                let e = entries[(10 * index)..<(10 * index + 10)]
                let tag = uint(e[e.startIndex..<e.startIndex + 2])
                guard tag & 0xC000 == 0 else { continue }  // data in the entry itself: nothing read here
                let length = uint(e[e.startIndex + 2..<e.startIndex + 6])
                let offset = start + uint(e[e.startIndex + 6..<e.startIndex + 10])
                guard length > 0, offset >= start, offset <= directory - length else { continue }
                switch tag & 0x3FFF {
                case let id where [0x2800, 0x3000].contains(id & 0x3800):
                    try walk(start: offset, end: offset + length, depth: depth + 1)
                case 0x1810 where length >= 16:  // ImageInfo: width, height, aspect ratio, rotation
                    let info = try PhotoBytes.read(source, at: offset, count: 16)
                    evidence.storedWidth = uint(info[0..<4])
                    evidence.storedHeight = uint(info[4..<8])
                    rotation = Int(Int32(truncatingIfNeeded: uint(info[12..<16])))
                case 0x080A where length <= 256:  // Make, NUL, Model
                    let text = try PhotoBytes.read(source, at: offset, count: length).split(
                        separator: 0, omittingEmptySubsequences: false)
                    var metadata = evidence.exif ?? EXIFMetadata(byteOrder: little ? "II" : "MM")
                    metadata.make = text.first.map { String(decoding: $0, as: UTF8.self) }.flatMap {
                        $0.isEmpty ? nil : $0
                    }
                    metadata.model = text.dropFirst().first.map { String(decoding: $0, as: UTF8.self) }
                        .flatMap { $0.isEmpty ? nil : $0 }
                    evidence.exif = metadata
                case 0x2007:
                    if let image = preview(source, offset: offset, length: length, location: "CIFF JpgFromRaw") {
                        evidence.previews.append(image)
                    }
                case 0x2008:
                    if let image = preview(source, offset: offset, length: length, location: "CIFF ThumbnailImage") {
                        evidence.previews.append(image)
                    }
                default: break
                }
            }
        }
        try walk(start: headerLength, end: size, depth: 0)
        if let rotation {
            let degrees = ((rotation % 360) + 360) % 360
            let orientation: Orientation? =
                switch degrees {
                case 0: .up
                case 90: .right
                case 180: .down
                case 270: .left
                default: nil
                }
            evidence.statements.append(
                OrientationStatement(
                    kind: .exif, location: "CIFF ImageInfo Rotation (\(rotation)°)", rawValue: rotation,
                    orientation: orientation))
        }
        // Canon's DPP (and exiftool, for XMP) append a 'CANON OPTIONAL DATA' trailer after the
        // heap (whose last 4 bytes follow the root directory); its XMP is read as XMP.
        let trailer = (rootDirectoryEnd + 4)..<size
        // The trailer is the file's last bytes: a read that fails there is the disk's, and said.
        if trailer.count > 20, trailer.count <= XMPOrientation.maximumLength {
            let bytes = try PhotoBytes.read(source, at: trailer.lowerBound, count: trailer.count)
            if bytes.starts(with: Array("CANON OPTIONAL DATA\0".utf8)) {
                PhotoBytes.addXMP(bytes, location: "XMP in the CANON OPTIONAL DATA trailer", to: &evidence)
            }
        }
        if evidence.storedWidth == 0 || evidence.storedHeight == 0 {
            (evidence.storedWidth, evidence.storedHeight) = (nil, nil)
        }
    }
}
