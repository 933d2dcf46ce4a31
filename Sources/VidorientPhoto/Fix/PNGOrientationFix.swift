import VidorientCore
import VidorientIO
import VidorientISOBMFF

/// PNG: the `eXIf` chunk's IFD0 Orientation (its CRC recomputed), ImageMagick's
/// `Raw profile type exif`/`APP1` text chunk (the hex digits of the value, in a `tEXt` or an
/// uncompressed `iTXt`), and XMP in an uncompressed `iTXt`. With no EXIF anywhere, a new `eXIf`
/// chunk goes before the first `IDAT`, where PNG 1.6 (third edition) wants it.
///
/// A compressed text chunk (`zTXt`, compressed `iTXt`) that states another orientation is refused
/// rather than re-compressed: the fix changes a few bytes or inserts one chunk, never rewrites one.
enum PNGOrientationFix {
    static func plan(_ source: some ByteSource, target: Orientation, xmpDecides: Bool) throws(PhotoFormatError)
        -> PhotoTagFix.Changes
    {
        let size = Int(source.size)
        var changes = PhotoTagFix.Changes()
        var offset = 8
        var firstIDAT: Int?
        var exif: ChunkPlace?
        var profileStatesOrientation = false
        while offset + 12 <= size {
            let head = try PhotoBytes.read(source, at: offset, count: 8)
            let length = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
            let chunk = ChunkPlace(offset: offset, length: length, type: String(decoding: head[4..<8], as: UTF8.self))
            guard length <= Int(Int32.max), chunk.dataEnd + 4 <= size else {
                throw PhotoFormatError(
                    "chunk '\(chunk.type)' at offset \(offset) has length \(length), past the end of the file")
            }
            offset = chunk.dataEnd + 4
            switch chunk.type {
            case "IDAT": if firstIDAT == nil { firstIDAT = chunk.offset }
            case "eXIf": if exif == nil { exif = chunk }
            case "tEXt", "iTXt", "zTXt":
                guard length <= PNGReader.maximumTextChunkLength else { continue }
                let data = try PhotoBytes.read(source, at: chunk.dataOffset, count: length)
                // A chunk with a bad CRC is ignored by readers (ours says so: png-bad-crc): not edited.
                guard try storedCRC(of: chunk, in: source) == crc(type: chunk.type, data) else { continue }
                if try text(chunk, data, target: target, into: &changes) { profileStatesOrientation = true }
            case "IEND": offset = size
            default: break
            }
        }
        guard let firstIDAT else { throw PhotoFormatError("no 'IDAT' chunk") }

        if let exif {
            let data = try PhotoBytes.read(source, at: exif.dataOffset, count: exif.length)
            guard try storedCRC(of: exif, in: source) == crc(type: "eXIf", data) else {
                throw PhotoFormatError(
                    "the eXIf chunk at offset \(exif.offset) has a bad crc (readers ignore it); fix does not edit a "
                        + "damaged chunk")
            }
            let (block, tiff, skip) = try TIFFBlockEdit.chunk(data, named: "eXIf", target: target)
            // Chromium ignores an eXIf that starts `Exif\0\0` (the PNG specification has none):
            // the prefix goes, so that the chunk says the target to every reader.
            guard !block.splices.isEmpty || skip > 0 else { return changes }
            // The chunk's new data, to checksum: the block's splices applied to the TIFF bytes.
            let newTIFF: [UInt8]
            do { newTIFF = try FileEdit(block.splices).applied(to: tiff) } catch {
                throw error.context("the planned edit of the eXIf chunk is inconsistent")
            }
            let newData = newTIFF
            let oldCRC = try PhotoBytes.read(source, at: exif.dataEnd, count: 4)
            let newCRC = crc(type: "eXIf", newData)
            let shifted = block.splices.map {
                ByteSplice(offset: $0.offset + Int64(exif.dataOffset + skip), old: $0.old, new: $0.new)
            }
            let lengthSplice = ByteSplice(
                offset: Int64(exif.offset), old: IFD0Editor.encode(exif.length, size: 4, littleEndian: false),
                new: IFD0Editor.encode(newData.count, size: 4, littleEndian: false))
            if skip > 0 {
                changes.splices.append(ByteSplice(offset: Int64(exif.dataOffset), old: Array(data[..<skip]), new: []))
                changes.places.append("eXIf chunk: its 'Exif\\0\\0' prefix removed (browsers ignore a prefixed chunk)")
            }
            if block.inserted == 0 {
                changes.splices += shifted
                changes.splices.append(ByteSplice(offset: Int64(exif.dataEnd), old: oldCRC, new: newCRC))
                changes.places += block.places.map { $0 + " (chunk crc recomputed)" }
                if skip > 0 {
                    changes.splices.append(lengthSplice)
                    changes.places.append(
                        "eXIf chunk length: \(exif.length) -> \(newData.count) (chunk crc recomputed)")
                }
            } else {
                // The pointer change stays; the inserted IFD and the new CRC replace the old CRC.
                let inserted = shifted.first { $0.old.isEmpty }!.new
                changes.splices += shifted.filter { !$0.old.isEmpty }
                changes.splices.append(ByteSplice(offset: Int64(exif.dataEnd), old: oldCRC, new: inserted + newCRC))
                changes.splices.append(lengthSplice)
                changes.places += block.places
                changes.places.append("eXIf chunk length: \(exif.length) -> \(newData.count) (chunk crc recomputed)")
            }
        } else if !profileStatesOrientation && !xmpDecides {
            let data = IFD0Editor.minimalTIFF(target)
            let chunk =
                IFD0Editor.encode(data.count, size: 4, littleEndian: false) + Array("eXIf".utf8) + data
                + crc(type: "eXIf", data)
            changes.splices.append(ByteSplice(offset: Int64(firstIDAT), old: [], new: chunk))
            changes.places.append("new eXIf chunk (\(chunk.count) bytes, IFD0 Orientation \(target.exif)) before IDAT")
        }
        return changes
    }

    /// The four CRC bytes the file stores after `chunk`'s data.
    static func storedCRC(of chunk: ChunkPlace, in source: some ByteSource) throws(PhotoFormatError) -> [UInt8] {
        try PhotoBytes.read(source, at: chunk.dataEnd, count: 4)
    }

    static func crc(type: String, _ data: [UInt8]) -> [UInt8] {
        let value = PNGReader.crc32(of: (Array(type.utf8) + data)[...])
        return IFD0Editor.encode(value, size: 4, littleEndian: false)
    }

    /// A text chunk: XMP, or a raw EXIF profile. Adds the splices that make it say `target`
    /// (its changed bytes and its CRC); returns whether it is a raw EXIF profile that states an
    /// orientation.
    static func text(_ chunk: ChunkPlace, _ data: [UInt8], target: Orientation, into changes: inout PhotoTagFix.Changes)
        throws(PhotoFormatError) -> Bool
    {
        guard let nul = data.firstIndex(of: 0), nul <= 79 else { return false }
        let keyword = String(decoding: data[..<nul], as: UTF8.self)
        let isXMP = keyword == "XML:com.adobe.xmp"
        let isProfile = keyword == "Raw profile type exif" || keyword == "Raw profile type APP1"
        guard isXMP || isProfile else { return false }
        let location = isXMP ? "XMP in \(chunk.type)" : "\(chunk.type) '\(keyword)'"
        // Where the text starts, and whether it is compressed.
        var textStart = nul + 1
        var compressed = chunk.type == "zTXt"
        if chunk.type == "iTXt" {
            guard nul + 3 <= data.count else { return false }
            compressed = data[nul + 1] == 1
            textStart = nul + 3
            for _ in 0..<2 {
                guard let end = data[textStart...].firstIndex(of: 0) else { return false }
                textStart = end + 1
            }
        } else if compressed {
            textStart = nul + 2
        }
        let text: [UInt8]
        if compressed {
            guard textStart <= data.count, let inflated = PNGReader.inflate(data[textStart...]) else { return false }
            text = inflated
        } else {
            text = Array(data[textStart...])
        }

        // The edited text, and the places, or nil when this chunk already agrees.
        var edited: (text: [UInt8], places: [String])?
        var statesOrientation = false
        if isXMP {
            edited = try PhotoTagFix.Changes().rewrittenXMP(text, target: target, location: location).map {
                ($0.packet, $0.places)
            }
        } else {
            guard let (payload, positions) = decodeProfile(text) else { return false }
            let skip = EXIFReader.tiffStart(ofPayload: payload)
            let tiff = Array(payload[skip...])
            try IFD0Editor.refuseLoops(tiff: tiff, location: location)
            let editor = try IFD0Editor(MemoryBytes(tiff), base: 0, length: Int64(tiff.count))
            // A profile without an Orientation says nothing to disagree with: it is left alone.
            guard let (old, shown, splice) = try editor.valueSplice(target: target) else { return false }
            statesOrientation = true
            if !shown || old != target.exif {
                var copy = text
                for (index, byte) in splice.new.enumerated() {
                    let at = positions[skip + Int(splice.offset) + index]
                    copy[at] = hexDigit(byte >> 4, like: text[at])
                    copy[at + 1] = hexDigit(byte & 15, like: text[at + 1])
                }
                edited = (copy, ["\(location) IFD0 Orientation: \(old.map(String.init) ?? "?") -> \(target.exif)"])
            }
        }
        guard let edited else { return statesOrientation }
        guard !compressed else {
            throw .unsupported(
                "\(location) is compressed and states another orientation; fix changes bytes in place and does not "
                    + "re-compress text chunks (remove the chunk, e.g. with exiftool -PNG:all=, and fix again)")
        }
        var newData = data
        newData.replaceSubrange(textStart..<data.count, with: edited.text)
        for (index, (old, new)) in zip(data, newData).enumerated() where old != new {
            changes.splices.append(ByteSplice(offset: Int64(chunk.dataOffset + index), old: [old], new: [new]))
        }
        changes.splices.append(
            ByteSplice(
                offset: Int64(chunk.dataEnd), old: crc(type: chunk.type, data), new: crc(type: chunk.type, newData)))
        changes.places += edited.places.map { $0 + " (chunk crc recomputed)" }
        return statesOrientation
    }

    /// A hex digit in the case of the one it replaces.
    static func hexDigit(_ nibble: UInt8, like old: UInt8) -> UInt8 {
        if nibble < 10 { return UInt8(ascii: "0") + nibble }
        return (old >= UInt8(ascii: "A") && old <= UInt8(ascii: "F") ? UInt8(ascii: "A") : UInt8(ascii: "a")) + nibble
            - 10
    }

    /// ImageMagick's hex profile (`\nexif\n   <length>\n` then hex lines, see
    /// `PNGReader.rawProfile`), with where each byte's first hex digit is in the text.
    static func decodeProfile(_ text: [UInt8]) -> (bytes: [UInt8], positions: [Int])? {
        guard let bytes = PNGReader.rawProfile(text) else { return nil }
        // The digits come after the length line; walk them as the reader does.
        var index = 0
        func skipSpace() { while index < text.count, XMPOrientation.isSpace(text[index]) { index += 1 } }
        skipSpace()
        while index < text.count, !XMPOrientation.isSpace(text[index]) { index += 1 }
        skipSpace()
        while index < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[index]) { index += 1 }
        var positions: [Int] = []
        positions.reserveCapacity(bytes.count)
        var pending: Int?
        while index < text.count, positions.count < bytes.count {
            if XMPOrientation.isSpace(text[index]) {
                index += 1
                continue
            }
            if let start = pending {
                // A byte's two digits are adjacent in ImageMagick's lines; a split one is not edited.
                guard start + 1 == index else { return nil }
                positions.append(start)
                pending = nil
            } else {
                pending = index
            }
            index += 1
        }
        return positions.count == bytes.count ? (bytes, positions) : nil
    }
}
