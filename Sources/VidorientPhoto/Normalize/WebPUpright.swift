package import VidorientCore
import VidorientIO

/// A lossless WebP as `normalize` rebuilds it: the re-encoded `VP8L` bitstream in place of the
/// original's, and every other chunk kept in its order (`ICCP`, unknown ones), with the `VP8X`
/// canvas size swapped when the axes swap, `EXIF` set to orientation 1 (sizes swapped) and XMP's
/// `tiff:Orientation` set to 1.
package enum WebPUpright {
    /// A chunk of a WebP in memory: its FourCC as stored (written back as it was) and its bytes.
    struct Chunk {
        var fourCC: ArraySlice<UInt8>
        var data: ArraySlice<UInt8>

        var name: String { String(decoding: fourCC, as: UTF8.self) }
    }

    static func chunks(_ bytes: [UInt8]) throws(PhotoFormatError) -> [Chunk] {
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8)
        else {
            throw PhotoFormatError("no riff webp header")
        }
        let end = min(bytes.count, 8 + WebPReader.littleEndian(bytes[4..<8]))
        var chunks: [Chunk] = []
        try WebPReader.forEachChunk(in: MemoryBytes(bytes), end: end) { place in
            chunks.append(
                Chunk(
                    fourCC: bytes[place.offset..<place.offset + 4],
                    data: bytes[place.dataOffset..<place.dataOffset + place.length]))
        }
        return chunks
    }

    /// Why normalize cannot turn this WebP losslessly, or nil.
    package static func refusal(_ bytes: [UInt8]) -> String? {
        // Absent is fine: a refusal is for files that read; a damaged one fails in `rebuild` with its reason.
        guard let chunks = try? chunks(bytes) else { return nil }
        let names = Set(chunks.map(\.name))
        if names.contains("ANIM") || names.contains("ANMF") { return "an animated webp: its frames are not turned" }
        if names.contains("VP8 ") {
            return
                "a lossy webp would have to be re-encoded, losing quality; `vidorient fix` (tag only) is the lossless answer for it"
        }
        if !names.contains("VP8L") { return "the webp has no image bitstream" }
        return nil
    }

    package struct Rebuilt: Sendable, Hashable {
        package var bytes: [UInt8]
        package var changes: [String]
    }

    /// `original` with its bitstream replaced by `encoded`'s (a lossless WebP of the turned pixels).
    package static func rebuild(
        original: [UInt8], encoded: [UInt8], transform: UprightTransform, width: Int, height: Int
    )
        throws(PhotoFormatError) -> Rebuilt
    {
        let old = try chunks(original)
        guard let bitstream = try chunks(encoded).first(where: { $0.name == "VP8L" }) else {
            throw PhotoFormatError("the encoder gave no 'VP8L' chunk")
        }
        var changes: [String] = []
        var body: [UInt8] = Array("WEBP".utf8)
        func append(_ fourCC: some Collection<UInt8>, _ data: some Collection<UInt8>) {
            let n = data.count
            body += fourCC
            body += [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24 & 0xFF)]
            body += data
            if n & 1 == 1 { body.append(0) }
        }
        for chunk in old {
            switch chunk.name {
            case "VP8X" where chunk.data.count >= 10:
                var data = Array(chunk.data)
                let (w, h) = (width - 1, height - 1)
                data.replaceSubrange(
                    4..<10,
                    with: [
                        UInt8(w & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w >> 16 & 0xFF),
                        UInt8(h & 0xFF), UInt8(h >> 8 & 0xFF), UInt8(h >> 16 & 0xFF),
                    ])
                if transform.swapsAxes { changes.append("VP8X canvas size swapped") }
                append(chunk.fourCC, data)
            case "VP8L":
                append(chunk.fourCC, bitstream.data)
            case "EXIF":
                let exif = try EXIFUpright.chunk(Array(chunk.data), named: "EXIF", of: "webp", transform: transform)
                changes += exif.changes
                append(chunk.fourCC, exif.bytes)
            case "XMP ":
                if let packet = XMPOrientation.upright(Array(chunk.data)) {
                    changes.append("XMP tiff:Orientation -> 1")
                    append(chunk.fourCC, packet)
                } else {
                    append(chunk.fourCC, chunk.data)
                }
            default:
                append(chunk.fourCC, chunk.data)
            }
        }
        let n = body.count
        let output =
            Array("RIFF".utf8) + [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24 & 0xFF)]
            + body
        return Rebuilt(bytes: output, changes: changes)
    }
}
