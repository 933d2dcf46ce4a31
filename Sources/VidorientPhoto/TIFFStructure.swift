/// A TIFF structure in memory: the header, and the image file directories (IFDs) it links. This is
/// the one IFD walker every format shares: JPEG's APP1, PNG's `eXIf`, WebP's `EXIF` chunk, HEIF's
/// Exif item and TIFF files themselves (read whole or in part into memory).
///
/// Offsets are relative to the first byte of the header (`II` or `MM`), as TIFF defines them.
/// Nothing here trusts a count or an offset: every value is checked against the bytes there are.
package struct TIFFStructure: Sendable {
    package let bytes: [UInt8]
    /// `II` is little-endian (Intel), `MM` big-endian (Motorola).
    package let littleEndian: Bool
    package let firstIFDOffset: Int

    /// Reads the 8-byte header: byte order, 42, the first IFD's offset.
    package init(tiff: [UInt8]) throws(PhotoFormatError) {
        guard tiff.count >= 8 else { throw PhotoFormatError("tiff header is \(tiff.count) bytes, needs 8") }
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: throw PhotoFormatError("no tiff byte order mark (II or MM)")
        }
        bytes = tiff
        // 42 for TIFF; raw formats use their own: 0x4F52/0x5352 for Olympus ORF, 0x55 for Panasonic RW2.
        let magic = TIFFStructure.uint16(tiff, 2, littleEndian)
        guard [42, 0x4F52, 0x5352, 0x55].contains(magic) else {
            throw PhotoFormatError("tiff magic number is \(magic), not 42")
        }
        firstIFDOffset = TIFFStructure.uint32(tiff, 4, littleEndian)
    }

    package var byteOrderName: String { littleEndian ? "II" : "MM" }

    /// A TIFF block read for its IFD0 alone (CR3's CMT boxes, an MPF index, HEIF's Exif item):
    /// the structure, and IFD0. Throws when either cannot be read.
    package static func firstDirectory(
        of tiff: [UInt8]
    ) throws(PhotoFormatError) -> (structure: TIFFStructure, ifd0: TIFFDirectory) {
        let structure = try TIFFStructure(tiff: tiff)
        return (structure, try structure.directory(at: structure.firstIFDOffset))
    }

    static func uint16(_ b: [UInt8], _ at: Int, _ little: Bool) -> Int {
        little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1])
    }

    static func uint32(_ b: [UInt8], _ at: Int, _ little: Bool) -> Int {
        let (high, low) =
            little
            ? (uint16(b, at + 2, little), uint16(b, at, little)) : (uint16(b, at, little), uint16(b, at + 2, little))
        return high << 16 | low
    }

    func uint16(at offset: Int) -> Int { TIFFStructure.uint16(bytes, offset, littleEndian) }
    func uint32(at offset: Int) -> Int { TIFFStructure.uint32(bytes, offset, littleEndian) }

    /// The IFD at `offset`. Throws when its entry count does not fit in the bytes; an entry whose
    /// type is unknown or whose value lies past the end is skipped (and counted), as exiftool does.
    package func directory(at offset: Int) throws(PhotoFormatError) -> TIFFDirectory {
        guard offset >= 0, offset <= bytes.count - 2 else {
            throw PhotoFormatError("ifd offset \(offset) is past the end of the tiff data (\(bytes.count) bytes)")
        }
        let count = uint16(at: offset)
        let end = offset + 2 + 12 * count
        guard end <= bytes.count else {
            throw PhotoFormatError(
                "ifd at \(offset) claims \(count) entries, more than the \(bytes.count - offset - 2) bytes left hold")
        }
        var directory = TIFFDirectory(offset: offset)
        directory.entries.reserveCapacity(count)
        for index in 0..<count {
            let at = offset + 2 + 12 * index
            let tag = UInt16(uint16(at: at))
            let type = uint16(at: at + 2)
            let valueCount = uint32(at: at + 4)
            guard let type = TIFFType(rawValue: type) else {
                directory.skippedEntries += 1
                continue
            }
            // count × size cannot overflow with a 32-bit count and sizes up to 8 on a 64-bit Int,
            // but it is checked against the bytes there are.
            let length = valueCount.multipliedReportingOverflow(by: type.size)
            guard !length.overflow else {
                directory.skippedEntries += 1
                continue
            }
            let valueOffset = length.partialValue <= 4 ? at + 8 : uint32(at: at + 8)
            guard valueOffset <= bytes.count, length.partialValue <= bytes.count - valueOffset else {
                directory.skippedEntries += 1
                continue
            }
            directory.entries.append(
                TIFFEntry(tag: tag, type: type, count: valueCount, valueOffset: valueOffset, entryOffset: at))
        }
        // Some writers end the last IFD without the 4-byte link; that is the same as no next IFD.
        if end + 4 <= bytes.count {
            let next = uint32(at: end)
            directory.nextIFDOffset = next == 0 ? nil : next
        }
        return directory
    }

    /// Integer values (BYTE, SHORT, LONG, their signed forms, UNDEFINED and IFD), at most `limit`.
    /// Nil for other types: a RATIONAL is not an integer.
    package func integers(_ entry: TIFFEntry, limit: Int = 4096) -> [Int]? {
        let n = min(entry.count, limit)
        let at = entry.valueOffset
        switch entry.type {
        case .byte, .undefined: return (0..<n).map { Int(bytes[at + $0]) }
        case .sbyte: return (0..<n).map { Int(Int8(bitPattern: bytes[at + $0])) }
        case .short: return (0..<n).map { uint16(at: at + 2 * $0) }
        case .sshort: return (0..<n).map { Int(Int16(truncatingIfNeeded: uint16(at: at + 2 * $0))) }
        case .long, .ifd: return (0..<n).map { uint32(at: at + 4 * $0) }
        case .slong: return (0..<n).map { Int(Int32(truncatingIfNeeded: uint32(at: at + 4 * $0))) }
        default: return nil
        }
    }

    /// The first integer value; nil when the entry is empty or not an integer type.
    package func integer(_ entry: TIFFEntry) -> Int? { integers(entry, limit: 1)?.first }

    /// Numeric values of any numeric type (RATIONAL and SRATIONAL as quotients, FLOAT, DOUBLE).
    package func numbers(_ entry: TIFFEntry, limit: Int = 4096) -> [Double]? {
        if let integers = integers(entry, limit: limit) { return integers.map(Double.init) }
        let n = min(entry.count, limit)
        let at = entry.valueOffset
        switch entry.type {
        case .rational, .srational:
            return (0..<n).map {
                var numerator = uint32(at: at + 8 * $0)
                var denominator = uint32(at: at + 8 * $0 + 4)
                if entry.type == .srational {
                    numerator = Int(Int32(truncatingIfNeeded: numerator))
                    denominator = Int(Int32(truncatingIfNeeded: denominator))
                }
                return denominator == 0 ? .nan : Double(numerator) / Double(denominator)
            }
        case .float:
            return (0..<n).map { Double(Float(bitPattern: UInt32(uint32(at: at + 4 * $0)))) }
        case .double:
            return (0..<n).map {
                let high = UInt64(uint32(at: at + 8 * $0 + (littleEndian ? 4 : 0)))
                let low = UInt64(uint32(at: at + 8 * $0 + (littleEndian ? 0 : 4)))
                return Double(bitPattern: high << 32 | low)
            }
        default: return nil
        }
    }

    /// An ASCII (or UNDEFINED, as some writers store text) value up to its first NUL, with
    /// trailing spaces removed; nil when empty.
    package func string(_ entry: TIFFEntry, limit: Int = 4096) -> String? {
        guard entry.type == .ascii || entry.type == .undefined || entry.type == .byte else { return nil }
        let raw = bytes[entry.valueOffset..<entry.valueOffset + min(entry.count, limit)]
        let text = raw.prefix { $0 != 0 }
        var end = text.endIndex
        while end > text.startIndex, text[end - 1] == 0x20 { end -= 1 }
        guard end > text.startIndex else { return nil }
        return String(decoding: text[text.startIndex..<end], as: UTF8.self)
    }

    /// The raw bytes of an entry's value.
    package func data(_ entry: TIFFEntry) -> ArraySlice<UInt8> {
        bytes[entry.valueOffset..<entry.valueOffset + entry.count * entry.type.size]
    }
}

/// The twelve TIFF 6.0 field types, and the IFD type of the TIFF/EP and Exif 2.3 pointers.
package enum TIFFType: Int, Sendable, Hashable, CaseIterable {
    case byte = 1, ascii, short, long, rational, sbyte, undefined, sshort, slong, srational, float, double, ifd

    /// Bytes per value.
    package var size: Int {
        switch self {
        case .byte, .ascii, .sbyte, .undefined: 1
        case .short, .sshort: 2
        case .long, .slong, .float, .ifd: 4
        case .rational, .srational, .double: 8
        }
    }
}

/// One IFD entry whose value lies wholly inside the TIFF bytes.
package struct TIFFEntry: Sendable, Hashable {
    package var tag: UInt16
    package var type: TIFFType
    package var count: Int
    /// Where the value starts, relative to the TIFF header: inside the entry when it fits in 4 bytes.
    package var valueOffset: Int
    /// Where the 12-byte entry itself starts.
    package var entryOffset: Int
}

/// One image file directory.
package struct TIFFDirectory: Sendable, Hashable {
    package var offset: Int
    package var entries: [TIFFEntry] = []
    /// The next IFD in the chain (IFD0 → IFD1); nil at the end.
    package var nextIFDOffset: Int?
    /// Entries left out: an unknown type, or a value past the end of the data.
    package var skippedEntries = 0

    package init(offset: Int) { self.offset = offset }

    package subscript(tag: UInt16) -> TIFFEntry? { entries.first { $0.tag == tag } }
}

/// The tags this package reads, by their TIFF/Exif names.
package enum TIFFTag {
    package static let newSubfileType: UInt16 = 0x00FE
    package static let imageWidth: UInt16 = 0x0100
    package static let imageLength: UInt16 = 0x0101
    package static let bitsPerSample: UInt16 = 0x0102
    package static let compression: UInt16 = 0x0103
    package static let photometricInterpretation: UInt16 = 0x0106
    package static let make: UInt16 = 0x010F
    package static let model: UInt16 = 0x0110
    package static let stripOffsets: UInt16 = 0x0111
    package static let orientation: UInt16 = 0x0112
    package static let samplesPerPixel: UInt16 = 0x0115
    package static let stripByteCounts: UInt16 = 0x0117
    package static let software: UInt16 = 0x0131
    package static let subIFDs: UInt16 = 0x014A
    package static let extraSamples: UInt16 = 0x0152
    package static let jpegInterchangeFormat: UInt16 = 0x0201
    package static let jpegInterchangeFormatLength: UInt16 = 0x0202
    package static let exifIFD: UInt16 = 0x8769
    package static let gpsIFD: UInt16 = 0x8825
    package static let dateTimeOriginal: UInt16 = 0x9003
    package static let offsetTimeOriginal: UInt16 = 0x9011
    package static let pixelXDimension: UInt16 = 0xA002
    package static let pixelYDimension: UInt16 = 0xA003
    package static let lensMake: UInt16 = 0xA433
    package static let lensModel: UInt16 = 0xA434
    package static let dngVersion: UInt16 = 0xC612
    package static let gpsLatitudeRef: UInt16 = 0x0001
    package static let gpsLatitude: UInt16 = 0x0002
    package static let gpsLongitudeRef: UInt16 = 0x0003
    package static let gpsLongitude: UInt16 = 0x0004
    package static let gpsAltitudeRef: UInt16 = 0x0005
    package static let gpsAltitude: UInt16 = 0x0006
}
