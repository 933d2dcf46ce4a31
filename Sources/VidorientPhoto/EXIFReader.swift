package import VidorientCore
import VidorientIO
import VidorientISOBMFF

/// What an EXIF block (a TIFF structure) says: the metadata a report shows, the IFD0 orientation
/// entry as stored, and what the walk met on the way.
package struct EXIFBlock: Sendable, Hashable {
    package var metadata: EXIFMetadata
    /// The field type the Orientation was stored with; only one SHORT is shown (`orientation-type`).
    package var orientationType: TIFFType?
    /// IFD offset loops, unreadable sub-IFDs, skipped entries.
    package var findings: [Finding]

    /// The `.exif` statement for IFD0's Orientation, when there is one.
    package func statement(location: String) -> OrientationStatement? {
        metadata.orientation.map { OrientationStatement(kind: .exif, location: location, rawValue: $0) }
    }
}

/// Reads EXIF: IFD0, then the Exif IFD (0x8769), the GPS IFD (0x8825), IFD1 (the thumbnail) by the
/// next-IFD link, and SubIFDs (0x014A), each visited once.
package enum EXIFReader {
    /// Reads a TIFF structure (what follows `Exif\0\0`). `fileOffset` is where its first byte sits in
    /// the file, so that the thumbnail's offset can be given absolutely; nil when unknown.
    ///
    /// Throws only when the header or IFD0 cannot be read; trouble further on becomes a finding.
    package static func read(tiff: [UInt8], fileOffset: Int?) throws(PhotoFormatError) -> EXIFBlock {
        let structure = try TIFFStructure(tiff: tiff)
        return try read(structure, fileOffset: fileOffset)
    }

    /// The same for an `APP1`-style payload that may start with `Exif\0\0` (PNG `eXIf` and WebP
    /// `EXIF` are written both ways); `fileOffset` is the payload's.
    package static func read(exifPayload payload: [UInt8], fileOffset: Int?) throws(PhotoFormatError) -> EXIFBlock {
        let skip = tiffStart(ofPayload: payload)
        return try read(tiff: Array(payload.dropFirst(skip)), fileOffset: fileOffset.map { $0 + skip })
    }

    /// Where the TIFF header starts in such a payload (a PNG `eXIf` or WebP `EXIF` chunk, an
    /// ImageMagick text profile): 6 after `Exif\0\0`, else 0. Read, fix and normalize ask here.
    package static func tiffStart(ofPayload payload: some Collection<UInt8>) -> Int {
        payload.starts(with: exifPrefix) ? exifPrefix.count : 0
    }

    /// The same for a HEIF `Exif` item's data (ISO/IEC 23008-12 annex A.2.1): a 4-byte big-endian
    /// offset to the TIFF header from the end of that field (usually 6, past `Exif\0\0`), then the
    /// bytes. `fileOffset` is the item data's first byte in the file.
    package static func read(heifExifItem item: [UInt8], fileOffset: Int?) throws(PhotoFormatError) -> EXIFBlock {
        guard item.count >= 4 else {
            throw PhotoFormatError("exif item is \(item.count) bytes, too short for its header offset")
        }
        let skip = Int(item[0]) << 24 | Int(item[1]) << 16 | Int(item[2]) << 8 | Int(item[3])
        guard skip <= item.count - 4 else {
            throw PhotoFormatError("exif item's tiff header offset \(skip) is past its \(item.count) bytes")
        }
        return try read(tiff: Array(item[(4 + skip)...]), fileOffset: fileOffset.map { $0 + 4 + skip })
    }

    /// `Exif\0\0`, the identifier before the TIFF header in JPEG's APP1.
    package static let exifPrefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]

    /// Whether a JPEG APP1 payload is EXIF as Chromium and exiftool take it: `Exif\0`, then any
    /// sixth byte (a fill byte some writers make 0xFF), then the TIFF header at byte 6.
    /// Every JPEG reader, planner and rebuilder asks this one question.
    package static func isJPEGExif(_ payload: some Collection<UInt8>) -> Bool {
        payload.count >= exifPrefix.count && payload.starts(with: exifPrefix.prefix(5))
    }

    /// What the Exif IFD adds to IFD0's: the time taken, the picture's size, the lens. CR3 keeps
    /// the same IFD as a TIFF of its own (CMT2).
    package static func readExifIFD(_ exif: TIFFDirectory, of tiff: TIFFStructure, into metadata: inout EXIFMetadata) {
        metadata.dateTimeOriginal = exif[TIFFTag.dateTimeOriginal].flatMap { tiff.string($0) }
        metadata.offsetTimeOriginal = exif[TIFFTag.offsetTimeOriginal].flatMap { tiff.string($0) }
        metadata.pixelXDimension = exif[TIFFTag.pixelXDimension].flatMap(tiff.integer)
        metadata.pixelYDimension = exif[TIFFTag.pixelYDimension].flatMap(tiff.integer)
        metadata.lensMake = exif[TIFFTag.lensMake].flatMap { tiff.string($0) }
        metadata.lensModel = exif[TIFFTag.lensModel].flatMap { tiff.string($0) }
    }

    package static func read(_ tiff: TIFFStructure, fileOffset: Int?) throws(PhotoFormatError) -> EXIFBlock {
        var walk = IFDWalk(tiff: tiff)
        guard let ifd0 = try walk.visit(tiff.firstIFDOffset, name: "IFD0", required: true) else {
            throw PhotoFormatError("ifd0 could not be read")
        }
        var metadata = EXIFMetadata(byteOrder: tiff.byteOrderName)
        var orientationType: TIFFType?
        var findings: [Finding] = []
        if let entry = ifd0[TIFFTag.orientation], let value = tiff.integer(entry) {
            orientationType = entry.type
            // Chromium reads one SHORT and nothing else (exiftool any integer type, the first
            // value): what viewers show is the picture as stored, and that is what is reported.
            if entry.type == .short, entry.count == 1 {
                metadata.orientation = value
            } else {
                findings.append(unreadOrientation(value: value, type: entry.type, count: entry.count))
            }
        }
        metadata.make = ifd0[TIFFTag.make].flatMap { tiff.string($0) }
        metadata.model = ifd0[TIFFTag.model].flatMap { tiff.string($0) }
        metadata.software = ifd0[TIFFTag.software].flatMap { tiff.string($0) }
        metadata.imageWidth = ifd0[TIFFTag.imageWidth].flatMap(tiff.integer)
        metadata.imageHeight = ifd0[TIFFTag.imageLength].flatMap(tiff.integer)

        var misplaced: [(place: String, value: Int)] = []
        if let pointer = ifd0[TIFFTag.exifIFD].flatMap(tiff.integer),
            let exif = walk.visitOptional(pointer, name: "Exif IFD")
        {
            if let value = exif[TIFFTag.orientation].flatMap(tiff.integer) { misplaced.append(("the Exif IFD", value)) }
            readExifIFD(exif, of: tiff, into: &metadata)
        }
        if let pointer = ifd0[TIFFTag.gpsIFD].flatMap(tiff.integer),
            let gps = walk.visitOptional(pointer, name: "GPS IFD")
        {
            metadata.gps = position(in: gps, of: tiff)
        }
        if let next = ifd0.nextIFDOffset, let ifd1 = walk.visitOptional(next, name: "IFD1") {
            metadata.thumbnail = thumbnail(in: ifd1, of: tiff, fileOffset: fileOffset, location: "IFD1")
            if let value = ifd1[TIFFTag.orientation].flatMap(tiff.integer) { misplaced.append(("IFD1", value)) }
        }
        findings = walk.findings + findings
        if metadata.orientation == nil, orientationType == nil, let first = misplaced.first {
            findings.append(misplacedOrientation(value: first.value, place: first.place))
        }
        return EXIFBlock(metadata: metadata, orientationType: orientationType, findings: findings)
    }

    /// A GPS IFD's position, as exiftool's composite GPSPosition takes it: GPSLatitude and
    /// GPSLongitude (degrees, minutes, seconds) each with its reference (N/S, E/W), GPSAltitude
    /// below sea level when GPSAltitudeRef is 1. Nil when a coordinate or its reference is missing,
    /// empty or not a number (0/0): a GPS IFD written without a fix holds no position.
    package static func position(in gps: TIFFDirectory, of tiff: TIFFStructure) -> Location? {
        func coordinate(_ tag: UInt16, reference: UInt16, positive: String, negative: String) -> Double? {
            guard let entry = gps[tag], let parts = tiff.numbers(entry, limit: 3), !parts.isEmpty,
                parts.allSatisfy(\.isFinite),
                let side = gps[reference].flatMap({ tiff.string($0) })?.uppercased().first.map(String.init),
                side == positive || side == negative
            else { return nil }
            let degrees = parts.enumerated().reduce(0.0) { sum, part in
                sum + part.element / [1.0, 60, 3600][part.offset]
            }
            return side == negative ? -degrees : degrees
        }
        guard
            let latitude = coordinate(
                TIFFTag.gpsLatitude, reference: TIFFTag.gpsLatitudeRef, positive: "N", negative: "S"),
            let longitude = coordinate(
                TIFFTag.gpsLongitude, reference: TIFFTag.gpsLongitudeRef, positive: "E", negative: "W")
        else { return nil }
        var altitude = gps[TIFFTag.gpsAltitude].flatMap { tiff.numbers($0, limit: 1)?.first }
        if let height = altitude, gps[TIFFTag.gpsAltitudeRef].flatMap(tiff.integer) == 1 { altitude = -height }
        return Location(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    /// `orientation-misplaced`: an Orientation where viewers do not look, IFD0 holding none. A
    /// warning, but for the value 1, which every viewer shows anyway (real cameras write it in
    /// IFD1): then only information, so that an audit does not fail on it.
    static func misplacedOrientation(value: Int, place: String) -> Finding {
        guard value != 1 else {
            return Finding(
                .orientationMisplaced, severity: .info,
                message:
                    "Orientation 1 is stored only in \(place), not in IFD0: viewers read IFD0 and show the picture as stored, which is what 1 says anyway"
            )
        }
        return Finding(
            .orientationMisplaced, severity: .warning,
            message:
                "Orientation \(value) is stored only in \(place), not in IFD0: browsers, libvips and most viewers read IFD0 and show the picture as stored (1), while exiftool's Orientation reports \(value); vidorient reports 1"
        )
    }

    /// `orientation-type`: IFD0's Orientation stored as another type than SHORT, or with more than
    /// one value. Chromium (checked with `naturalWidth` of such JPEGs) shows the picture as stored;
    /// exiftool reads the first value of any integer type.
    static func unreadOrientation(value: Int, type: TIFFType, count: Int) -> Finding {
        Finding(
            .orientationType, severity: .warning,
            message:
                "IFD0's Orientation \(value) is stored as \(String(describing: type).uppercased()) with \(count) value\(count == 1 ? "" : "s"), not one SHORT: browsers show the picture as stored (1), while exiftool reports \(value); vidorient reports 1 (fix writes one SHORT)"
        )
    }

    /// An IFD's JPEG (JPEGInterchangeFormat and its length), with its size from its own frame header.
    static func thumbnail(in ifd: TIFFDirectory, of tiff: TIFFStructure, fileOffset: Int?, location: String)
        -> EmbeddedImage?
    {
        guard let start = ifd[TIFFTag.jpegInterchangeFormat].flatMap(tiff.integer),
            let length = ifd[TIFFTag.jpegInterchangeFormatLength].flatMap(tiff.integer), length > 0,
            start >= 0, start <= tiff.bytes.count, length <= tiff.bytes.count - start
        else { return nil }
        let frame = JPEGReader.frameHeader(in: MemoryBytes(Array(tiff.bytes[start..<start + length])))
        return EmbeddedImage(
            codec: "jpeg", offset: fileOffset.map { $0 + start }, length: length, width: frame?.width,
            height: frame?.height, location: location)
    }
}

/// The IFDs visited so far, by offset: an offset seen twice ends the walk there (a loop), however
/// the files link them (next-IFD, Exif pointer, SubIFDs).
struct IFDWalk {
    let tiff: TIFFStructure
    var visited: Set<Int> = []
    var findings: [Finding] = []
    /// At most this many IFDs in one file: enough for any camera's raw, small enough to bound time.
    static let maximumIFDs = 64

    init(tiff: TIFFStructure) { self.tiff = tiff }

    /// The IFD at `offset`, or nil when it was seen before or cannot be read (a finding then, or an
    /// error when `required`).
    mutating func visit(_ offset: Int, name: String, required: Bool) throws(PhotoFormatError) -> TIFFDirectory? {
        guard required else { return visitOptional(offset, name: name) }
        guard visited.insert(offset).inserted else {
            findings.append(.exifIfdLoop, .warning, "\(name) at offset \(offset) was already read: the ifd links loop")
            return nil
        }
        guard visited.count <= IFDWalk.maximumIFDs else {
            findings.append(.exifIfdLimit, .warning, "more than \(IFDWalk.maximumIFDs) ifds; \(name) not read")
            return nil
        }
        let directory = try tiff.directory(at: offset)
        if directory.skippedEntries > 0 {
            findings.append(
                .exifBadEntry, .info,
                "\(name): \(directory.skippedEntries) entries skipped (unknown type or value past the end)")
        }
        return directory
    }

    /// An IFD the photo can do without (the Exif, GPS and thumbnail IFDs): nil when it was seen
    /// before or cannot be read, the reason kept as a finding.
    mutating func visitOptional(_ offset: Int, name: String) -> TIFFDirectory? {
        do throws(PhotoFormatError) {
            return try visit(offset, name: name, required: true)
        } catch {
            findings.append(.exifIfdUnreadable, .warning, "\(name): \(error.reason)")
            return nil
        }
    }
}
