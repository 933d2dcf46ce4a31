package import VidorientCore

/// A PNG as `normalize` rebuilds it: the re-encoded picture's `IHDR`, `PLTE`, `tRNS` and `IDAT`
/// in place of the original's, and every other chunk of the original kept in its order, with
/// `eXIf` set to orientation 1 (and its sizes swapped), XMP's `tiff:Orientation` set to 1 and
/// `pHYs` swapped when the axes swap. Chunks placed relative to `PLTE` (`bKGD`, `hIST`) follow it.
package enum PNGUpright {
    struct Chunk {
        var type: [UInt8]
        var data: ArraySlice<UInt8>

        var name: String { String(decoding: type, as: UTF8.self) }
        var isCritical: Bool { type[0] & 0x20 == 0 }
    }

    static func chunks(_ bytes: [UInt8]) throws(PhotoFormatError) -> [Chunk] {
        guard bytes.count >= 8, bytes[0..<8].elementsEqual(PNGReader.signature) else {
            throw PhotoFormatError("no png signature")
        }
        var chunks: [Chunk] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = PNGReader.bigEndian32(bytes[offset..<offset + 4])
            guard length <= bytes.count - offset - 12 else {
                throw PhotoFormatError("chunk at offset \(offset) has length \(length), past the end of the file")
            }
            let chunk = Chunk(
                type: Array(bytes[offset + 4..<offset + 8]), data: bytes[offset + 8..<offset + 8 + length])
            guard
                PNGReader.crc32(of: bytes[offset + 4..<offset + 8 + length])
                    == PNGReader.bigEndian32(bytes[offset + 8 + length..<offset + 12 + length])
            else {
                if chunk.isCritical { throw PhotoFormatError("bad crc in chunk '\(chunk.name)'") }
                offset += 12 + length
                continue  // a damaged ancillary chunk is dropped, as decoders ignore it
            }
            chunks.append(chunk)
            offset += 12 + length
            if chunk.name == "IEND" { break }
        }
        guard chunks.first?.name == "IHDR" else { throw PhotoFormatError("the first chunk is not 'IHDR'") }
        return chunks
    }

    /// Why normalize cannot rebuild this PNG, or nil: an animation (its frames would each need
    /// turning) or a critical chunk it does not know.
    package static func refusal(_ bytes: [UInt8]) -> String? {
        // Absent is fine: a refusal is for files that read; a damaged one fails in `rebuild` with its reason.
        guard let chunks = try? chunks(bytes) else { return nil }
        if chunks.contains(where: { $0.name == "acTL" }) { return "an animated png (apng): its frames are not turned" }
        if let unknown = chunks.first(where: { $0.isCritical && !["IHDR", "PLTE", "IDAT", "IEND"].contains($0.name) }) {
            return "the png has a critical chunk '\(unknown.name)' that normalize does not know"
        }
        return nil
    }

    package struct Rebuilt: Sendable, Hashable {
        package var bytes: [UInt8]
        package var changes: [String]
    }

    /// `original` with its picture replaced by `encoded`'s (a PNG of the turned pixels).
    package static func rebuild(original: [UInt8], encoded: [UInt8], transform: UprightTransform)
        throws(PhotoFormatError) -> Rebuilt
    {
        let old = try chunks(original)
        let new = try chunks(encoded)
        let picture: Set<String> = ["IHDR", "PLTE", "tRNS", "IDAT", "IEND"]
        let afterPalette: Set<String> = ["bKGD", "hIST"]
        guard let firstData = old.firstIndex(where: { $0.name == "IDAT" }) else {
            throw PhotoFormatError("no 'IDAT' chunk")
        }
        var changes: [String] = []
        var output = PNGReader.signature
        func append(_ type: [UInt8], _ data: some Collection<UInt8>) { PNGReader.appendChunk(type, data, to: &output) }
        func edited(_ chunk: Chunk) throws(PhotoFormatError) -> [UInt8]? {
            switch chunk.name {
            case "hIST":
                changes.append("hIST dropped (the palette is rewritten)")
                return nil
            case "eXIf":
                let exif = try EXIFUpright.chunk(Array(chunk.data), named: "eXIf", of: "png", transform: transform)
                changes += exif.changes
                return exif.bytes
            case "pHYs" where transform.swapsAxes && chunk.data.count == 9:
                let d = Array(chunk.data)
                changes.append("pHYs x and y swapped")
                return Array(d[4..<8] + d[0..<4] + d[8..<9])
            case "iTXt":
                let data = Array(chunk.data)
                let keyword = Array("XML:com.adobe.xmp\0".utf8)
                // Uncompressed only: flag 0 after the keyword.
                guard data.starts(with: keyword), data.count > keyword.count, data[keyword.count] == 0,
                    let packet = XMPOrientation.upright(data)
                else { return data }
                changes.append("iTXt XMP tiff:Orientation -> 1")
                return packet
            default:
                return Array(chunk.data)
            }
        }
        for chunk in new where chunk.name == "IHDR" { append(chunk.type, chunk.data) }
        for chunk in old[..<firstData] where !picture.contains(chunk.name) && !afterPalette.contains(chunk.name) {
            if let data = try edited(chunk) { append(chunk.type, data) }
        }
        for chunk in new where chunk.name == "PLTE" || chunk.name == "tRNS" { append(chunk.type, chunk.data) }
        for chunk in old[..<firstData] where afterPalette.contains(chunk.name) {
            if let data = try edited(chunk) { append(chunk.type, data) }
        }
        for chunk in new where chunk.name == "IDAT" { append(chunk.type, chunk.data) }
        for chunk in old[firstData...] where !picture.contains(chunk.name) {
            if let data = try edited(chunk) { append(chunk.type, data) }
        }
        append(Array("IEND".utf8), [])
        return Rebuilt(bytes: output, changes: changes)
    }
}
