package import VidorientCore

/// What became of the EXIF thumbnail (IFD1's JPEG) when the picture was turned upright.
public enum ThumbnailOutcome: Sendable, Hashable {
    /// There was none.
    case absent
    /// Turned by the same lossless transform as the picture.
    case transformed
    /// Removed, because it could not be turned losslessly; the reason, lowercase.
    case dropped(String)

    /// As in the JSON: `absent`, `transformed` or `dropped`.
    public var name: String {
        switch self {
        case .absent: "absent"
        case .transformed: "transformed"
        case .dropped: "dropped"
        }
    }
}

/// The EXIF (a TIFF structure) of a picture whose pixels were turned upright: Orientation 1 (in
/// IFD0 and, when there, IFD1), the stated sizes swapped when the turn swaps the axes, the
/// thumbnail turned too (or dropped). Every other byte stays where it was, so offsets into the
/// block (MakerNotes, which some makers address absolutely) keep pointing at the same data.
package struct EXIFUpright: Sendable, Hashable {
    /// The edited TIFF bytes.
    package var tiff: [UInt8]
    /// Each change, for a person: `IFD0 Orientation: 6 -> 1`.
    package var changes: [String]
    package var thumbnail: ThumbnailOutcome

    /// Edits `tiff` for pixels moved by `transform`. `turnThumbnail` turns the thumbnail's JPEG
    /// (it is stored as the main picture is, so the same transform applies), or says why not.
    package init(
        tiff original: [UInt8], transform: UprightTransform,
        turnThumbnail: ([UInt8]) -> Result<[UInt8], PhotoFormatError>
    ) throws(PhotoFormatError) {
        let structure = try TIFFStructure(tiff: original)
        var editor = TIFFEditor(structure: structure)
        let ifd0 = try structure.directory(at: structure.firstIFDOffset)
        var changes: [String] = []
        if let entry = ifd0[TIFFTag.orientation], let old = structure.integer(entry), old != 1 {
            try editor.set(entry, to: 1)
            changes.append("IFD0 Orientation: \(old) -> 1")
        }
        if transform.swapsAxes {
            if try editor.swap(ifd0[TIFFTag.imageWidth], ifd0[TIFFTag.imageLength]) {
                changes.append("IFD0 ImageWidth and ImageLength swapped")
            }
            // Absent is fine: the Exif IFD's sizes are only kept in step; IFD0's orientation is what is changed.
            if let pointer = ifd0[TIFFTag.exifIFD].flatMap(structure.integer),
                let exif = try? structure.directory(at: pointer), pointer != structure.firstIFDOffset
            {
                if try editor.swap(exif[TIFFTag.pixelXDimension], exif[TIFFTag.pixelYDimension]) {
                    changes.append("ExifIFD PixelXDimension and PixelYDimension swapped")
                }
            }
        }
        var thumbnail = ThumbnailOutcome.absent
        // Absent is fine: no thumbnail to turn (reported as absent).
        if let next = ifd0.nextIFDOffset, next != ifd0.offset, let ifd1 = try? structure.directory(at: next),
            let startEntry = ifd1[TIFFTag.jpegInterchangeFormat],
            let lengthEntry = ifd1[TIFFTag.jpegInterchangeFormatLength],
            let start = structure.integer(startEntry), let length = structure.integer(lengthEntry), length > 0,
            start >= 0, start <= original.count, length <= original.count - start
        {
            let old = Array(original[start..<start + length])
            switch turnThumbnail(old) {
            case .success(let turned):
                try editor.replaceBlock(
                    at: start, length: length, with: turned, offsetEntry: startEntry, lengthEntry: lengthEntry)
                if let entry = ifd1[TIFFTag.orientation], let value = structure.integer(entry), value != 1 {
                    try editor.set(entry, to: 1)
                }
                if transform.swapsAxes { _ = try editor.swap(ifd1[TIFFTag.imageWidth], ifd1[TIFFTag.imageLength]) }
                thumbnail = .transformed
                changes.append("IFD1 thumbnail turned (\(transform.rawValue))")
            case .failure(let error):
                // Unlinking IFD1 drops the thumbnail for every reader; its bytes go too when last.
                editor.unlinkNextIFD(of: ifd0, rawCount: structure.uint16(at: ifd0.offset))
                if editor.bytes[(start + length)...].allSatisfy({ $0 == 0 }) && editor.bytes.count - start - length < 4
                {
                    editor.bytes.removeSubrange(start...)
                }
                thumbnail = .dropped(error.reason)
                changes.append("IFD1 thumbnail dropped: \(error.reason)")
            }
        }
        self.tiff = editor.bytes
        self.changes = changes
        self.thumbnail = thumbnail
    }

    /// The EXIF chunk of a PNG (`eXIf`) or a WebP (`EXIF`) edited the same way: its TIFF bytes,
    /// after an `Exif\0\0` prefix when it has one (kept). Its thumbnail, if any, is dropped: a
    /// chunk's thumbnail is not turned. The changes are named after the chunk.
    package static func chunk(
        _ payload: [UInt8], named name: String, of format: String, transform: UprightTransform
    ) throws(PhotoFormatError) -> (bytes: [UInt8], changes: [String]) {
        let skip = EXIFReader.tiffStart(ofPayload: payload)
        let exif = try EXIFUpright(
            tiff: Array(payload.dropFirst(skip)), transform: transform,
            turnThumbnail: { _ in .failure(PhotoFormatError("a \(format)'s exif thumbnail is not turned")) })
        return (payload.prefix(skip) + exif.tiff, exif.changes.map { "\(name) " + $0 })
    }
}

/// Writes values into a TIFF structure's bytes in its byte order, without moving anything.
struct TIFFEditor {
    let structure: TIFFStructure
    var bytes: [UInt8]

    init(structure: TIFFStructure) {
        self.structure = structure
        bytes = structure.bytes
    }

    mutating func put(_ value: Int, at offset: Int, size: Int) {
        for index in 0..<size {
            let shift = structure.littleEndian ? 8 * index : 8 * (size - 1 - index)
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> shift)
        }
    }

    /// Sets a one-value integer entry, in its own type.
    mutating func set(_ entry: TIFFEntry, to value: Int) throws(PhotoFormatError) {
        switch entry.type {
        case .byte, .undefined, .sbyte:
            guard value <= 0xFF else {
                throw PhotoFormatError("\(value) does not fit tag 0x\(String(entry.tag, radix: 16))'s byte")
            }
            put(value, at: entry.valueOffset, size: 1)
        case .short, .sshort:
            guard value <= 0xFFFF else {
                throw PhotoFormatError("\(value) does not fit tag 0x\(String(entry.tag, radix: 16))'s short")
            }
            put(value, at: entry.valueOffset, size: 2)
        case .long, .slong, .ifd: put(value, at: entry.valueOffset, size: 4)
        default: throw PhotoFormatError("tag 0x\(String(entry.tag, radix: 16)) is not an integer")
        }
    }

    /// Swaps two integer entries' values; false when either is missing or unreadable.
    mutating func swap(_ first: TIFFEntry?, _ second: TIFFEntry?) throws(PhotoFormatError) -> Bool {
        guard let first, let second, let a = structure.integer(first), let b = structure.integer(second), a != b else {
            return false
        }
        try set(first, to: b)
        try set(second, to: a)
        return true
    }

    /// Puts `block` where `length` bytes at `start` were: over them, zero-padded, when it is not
    /// longer, or at the end of the structure; then points the offset and length entries at it.
    mutating func replaceBlock(
        at start: Int, length: Int, with block: [UInt8], offsetEntry: TIFFEntry, lengthEntry: TIFFEntry
    )
        throws(PhotoFormatError)
    {
        var at = start
        // Last in the structure, but for the padding that keeps the structure's length even.
        if bytes[(start + length)...].allSatisfy({ $0 == 0 }) && bytes.count - start - length < 4 {
            bytes.removeSubrange((start + length)...)
            bytes.replaceSubrange(start..<start + length, with: block)
        } else if block.count <= length {
            bytes.replaceSubrange(start..<start + block.count, with: block)
            for index in start + block.count..<start + length { bytes[index] = 0 }
        } else {
            if bytes.count % 2 == 1 { bytes.append(0) }  // TIFF values start on a word boundary
            at = bytes.count
            bytes += block
        }
        try set(offsetEntry, to: at)
        try set(lengthEntry, to: block.count)
    }

    /// Ends the IFD chain after `directory`.
    mutating func unlinkNextIFD(of directory: TIFFDirectory, rawCount: Int) {
        let link = directory.offset + 2 + 12 * rawCount
        guard link + 4 <= bytes.count else { return }
        put(0, at: link, size: 4)
    }
}
