package import VidorientCore
package import VidorientIO
import VidorientISOBMFF

/// Reads TIFF files and the TIFF-based raws (DNG, CR2, NEF, ARW, ORF, PEF, RW2, SRW…): IFD0's
/// Orientation, the main image's size, depth and compression, and the embedded JPEG previews.
package enum TIFFFileReader {
    /// The first read: raws keep their IFDs in the first kilobytes, before the sensor data.
    static let headLength = 4 << 20
    /// libtiff writes the IFDs after the image data; such a file is read whole, up to this size.
    package static let maximumLength = 256 << 20

    package static func read(_ source: some ByteSource, path: String) throws(PhotoFormatError) -> PhotoEvidence {
        let size = Int(source.size)
        var walked: (tiff: TIFFStructure, images: [Image], block: EXIFBlock, findings: [Finding])
        do {
            walked = try walk(source, length: min(size, headLength))
            // An IFD beyond the head: read as much as the limit allows, once.
            if size > headLength, walked.findings.contains(where: { $0.kind == .exifIfdUnreadable }) {
                walked = try walk(source, length: min(size, maximumLength))
            }
        } catch {
            guard size > headLength else { throw error }
            walked = try walk(source, length: min(size, maximumLength))
        }
        let (tiff, images, block, findings) = walked
        // In a TIFF file the IFD links are the file's own structure: links that loop make it a bad
        // file (one clear error), as any looping offset is. Inside another format's EXIF block
        // the picture is still there, and a loop is only a finding.
        if let loop = findings.first(where: { $0.kind == .exifIfdLoop }) {
            throw PhotoFormatError(loop.message)
        }
        var evidence = PhotoEvidence(path: path, format: .tiff)
        evidence.fileSize = size
        evidence.exif = block.metadata
        evidence.readerFindings = findings
        // A later page (IFD2 on: IFD1 is the EXIF walk's) holding the only Orientation.
        if block.metadata.orientation == nil, block.orientationType == nil,
            !findings.contains(where: { $0.kind == .orientationMisplaced }),
            let later = images.first(where: { $0.name != "IFD0" && $0.orientation != nil })
        {
            evidence.readerFindings.append(
                EXIFReader.misplacedOrientation(value: later.orientation!, place: later.name))
        }
        if let statement = block.statement(location: "IFD0") { evidence.statements.append(statement) }
        if let xmp = images.first?.directory[0x02BC], xmp.count <= XMPOrientation.maximumLength {
            PhotoBytes.addXMP(tiff.data(xmp), location: "XMP in IFD0 (tag 700)", to: &evidence)
        }
        evidence.formatDetail = rawName(tiff, block.metadata, images)

        // The main image: the largest full-resolution one (NewSubfileType 0) that is not a
        // thumbnail; for a plain TIFF that is IFD0.
        let full = images.filter { $0.subfileType & 1 == 0 && $0.width != nil }
        guard let main = full.max(by: { $0.area < $1.area }) ?? images.first else {
            throw PhotoFormatError("no image file directory could be read")
        }
        evidence.storedWidth = main.width
        evidence.storedHeight = main.height
        evidence.bitDepth = main.bitsPerSample
        evidence.hasAlpha = main.hasAlpha
        evidence.codec = [6, 7, 34892].contains(main.compression ?? 1) ? "jpeg" : "tiff"

        // Previews: IFD JPEGs (JPEGInterchangeFormat) and single-strip JPEG images other than the main one.
        var previews: [EmbeddedImage] = []
        for image in images {
            for candidate in image.jpegs where !(image.name == main.name && candidate.strip) {
                guard candidate.length > 0, candidate.offset + candidate.length <= size,
                    let frame = JPEGReader.frameHeader(
                        in: WindowBytes(source, offset: candidate.offset, length: candidate.length)),
                    frame.marker != 0xC3  // lossless JPEG is raw sensor data, not a picture
                else { continue }
                previews.append(
                    EmbeddedImage(
                        codec: "jpeg", offset: candidate.offset, length: candidate.length, width: frame.width,
                        height: frame.height, location: image.name))
            }
        }
        var seen = Set<Int>()
        evidence.previews = previews.filter { seen.insert($0.offset ?? -1).inserted }
            .sorted { ($0.width ?? 0) * ($0.height ?? 0) > ($1.width ?? 0) * ($1.height ?? 0) }
        return evidence
    }

    /// One image's facts from its IFD.
    struct Image {
        var name: String
        /// The IFD itself; the walk reads IFD0 first, and a file whose IFD0 cannot be read is refused.
        var directory: TIFFDirectory
        var subfileType: Int
        var width: Int?
        var height: Int?
        var bitsPerSample: Int?
        var compression: Int?
        var hasAlpha: Bool
        var orientation: Int?
        /// JPEG streams this IFD points at: its JPEGInterchangeFormat, or its one strip when compressed as JPEG.
        var jpegs: [(offset: Int, length: Int, strip: Bool)]
        /// Width × height, saturating: both are LONGs from the file, and 2³² × 2³² passes `Int.max`.
        var area: Int {
            let (product, overflow) = (width ?? 0).multipliedReportingOverflow(by: height ?? 0)
            return overflow ? Int.max : product
        }
    }

    /// Reads the first `length` bytes, the EXIF block, and every image IFD: IFD0's chain and each
    /// one's SubIFDs, each once.
    /// The findings are the EXIF walk's, then the image walk's that differ (a loop met by both is one finding).
    static func walk(_ source: some ByteSource, length: Int) throws(PhotoFormatError) -> (
        TIFFStructure, [Image], EXIFBlock, [Finding]
    ) {
        let tiff = try TIFFStructure(tiff: try PhotoBytes.read(source, at: 0, count: length))
        let block = try EXIFReader.read(tiff, fileOffset: 0)
        var walk = IFDWalk(tiff: tiff)
        var images: [Image] = []
        var pending: [(offset: Int, name: String)] = [(tiff.firstIFDOffset, "IFD0")]
        var chainIndex = 0
        while !pending.isEmpty {
            let (offset, name) = pending.removeFirst()
            guard let ifd = try walk.visit(offset, name: name, required: images.isEmpty && name == "IFD0") else {
                continue
            }
            images.append(image(ifd, in: tiff, name: name))
            if let subIFDs = ifd[TIFFTag.subIFDs].flatMap({ tiff.integers($0, limit: 16) }) {
                for (index, sub) in subIFDs.enumerated() { pending.append((sub, "\(name) SubIFD \(index)")) }
            }
            if name.hasPrefix("IFD"), !name.contains(" "), let next = ifd.nextIFDOffset {
                chainIndex += 1
                pending.append((next, "IFD\(chainIndex)"))
            }
        }
        return (tiff, images, block, block.findings + walk.findings.filter { !block.findings.contains($0) })
    }

    static func image(_ ifd: TIFFDirectory, in tiff: TIFFStructure, name: String) -> Image {
        let compression = ifd[TIFFTag.compression].flatMap { tiff.integer($0) }
        var image = Image(
            name: name, directory: ifd, subfileType: ifd[TIFFTag.newSubfileType].flatMap { tiff.integer($0) } ?? 0,
            width: ifd[TIFFTag.imageWidth].flatMap { tiff.integer($0) },
            height: ifd[TIFFTag.imageLength].flatMap { tiff.integer($0) },
            bitsPerSample: ifd[TIFFTag.bitsPerSample].flatMap { tiff.integer($0) }, compression: compression,
            hasAlpha: (ifd[TIFFTag.extraSamples].flatMap { tiff.integers($0, limit: 8) } ?? []).contains {
                $0 == 1 || $0 == 2
            },
            orientation: ifd[TIFFTag.orientation].flatMap { tiff.integer($0) }, jpegs: [])
        if let start = ifd[TIFFTag.jpegInterchangeFormat].flatMap({ tiff.integer($0) }),
            let length = ifd[TIFFTag.jpegInterchangeFormatLength].flatMap({ tiff.integer($0) })
        {
            image.jpegs.append((start, length, false))
        }
        // Panasonic RW2: IFD0 holds the sensor size (SensorWidth 0x02, SensorHeight 0x03, not
        // ImageWidth) and the full-size JPEG as the value of JpgFromRaw (0x2E), as exiftool reads them.
        if tiff.uint16(at: 2) == 0x55, name == "IFD0" {
            image.width = image.width ?? ifd[0x0002].flatMap { tiff.integer($0) }
            image.height = image.height ?? ifd[0x0003].flatMap { tiff.integer($0) }
            if let jpeg = ifd[0x002E], jpeg.type == .undefined, jpeg.count > 0 {
                image.jpegs.append((jpeg.valueOffset, jpeg.count, false))
            }
        }
        if [6, 7].contains(compression ?? 1), let offsets = ifd[TIFFTag.stripOffsets],
            let counts = ifd[TIFFTag.stripByteCounts],
            offsets.count == 1, let start = tiff.integer(offsets), let length = tiff.integer(counts)
        {
            image.jpegs.append((start, length, true))
        }
        return image
    }

    /// `dng`, `cr2`, `nef`, `arw`…: by DNGVersion, CR2's `CR` at byte 8, the magic number, or
    /// the camera maker for a raw (one with SubIFDs or a vendor compression); nil for a plain TIFF.
    static func rawName(_ tiff: TIFFStructure, _ metadata: EXIFMetadata, _ images: [Image]) -> String? {
        if images.first?.directory[TIFFTag.dngVersion] != nil { return "dng" }
        if tiff.bytes.count >= 10, tiff.bytes[8] == UInt8(ascii: "C"), tiff.bytes[9] == UInt8(ascii: "R") {
            return "cr2"
        }
        let magic = tiff.uint16(at: 2)
        if magic == 0x4F52 || magic == 0x5352 { return "orf" }
        if magic == 0x55 { return "rw2" }
        let looksRaw =
            images.count > 1
            && images.contains {
                ($0.compression ?? 1) == 7 || ($0.compression ?? 1) >= 32767 || $0.name.contains("SubIFD")
            }
        guard looksRaw, let make = metadata.make?.uppercased() else { return nil }
        let names: [(String, String)] = [
            ("NIKON", "nef"), ("SONY", "arw"), ("CANON", "cr2"), ("OLYMPUS", "orf"), ("OM DIGITAL", "orf"),
            ("PENTAX", "pef"),
            ("RICOH", "pef"), ("SAMSUNG", "srw"), ("PANASONIC", "rw2"), ("LEICA", "rwl"), ("HASSELBLAD", "3fr"),
            ("KODAK", "dcr"), ("MAMIYA", "mef"), ("SIGMA", "x3f"), ("EPSON", "erf"), ("PHASE ONE", "iiq"),
        ]
        return names.first { make.hasPrefix($0.0) }?.1
    }
}

/// A part of another byte source, seen from its own offset 0: an embedded JPEG read in place.
struct WindowBytes<Base: ByteSource>: ByteSource {
    let base: Base
    let offset: Int
    let length: Int

    init(_ base: Base, offset: Int, length: Int) {
        self.base = base
        self.offset = offset
        self.length = length
    }

    var size: Int64 { Int64(length) }

    func read(at position: Int64, count: Int) throws(ISOBMFFError) -> [UInt8] {
        guard position >= 0, count >= 0, position <= Int64(length), Int64(count) <= Int64(length) - position else {
            throw ISOBMFFError(
                .malformed, "read of \(count) bytes at offset \(position) is past the end of the embedded image")
        }
        return try base.read(at: Int64(offset) + position, count: count)
    }
}
