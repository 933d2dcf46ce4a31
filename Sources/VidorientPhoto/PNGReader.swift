import CZlib
package import VidorientCore
package import VidorientIO
import VidorientISOBMFF

/// Reads a PNG's chunks: `IHDR` (size, depth, alpha), `eXIf`, XMP in `iTXt`, and ImageMagick's
/// `Raw profile type exif`/`APP1` text chunks. Every chunk's CRC-32 is checked: an ancillary
/// chunk with a bad one is ignored (`png-bad-crc`), a critical one is read and the file said
/// damaged (`file-damaged`), as the decoders that ignore CRCs read it.
package enum PNGReader {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Decompressed text chunks stop growing here: a small zTXt must not become gigabytes.
    package static let maximumInflatedLength = 16 << 20
    /// Text chunks worth reading are small; a larger one is skipped rather than read into memory.
    static let maximumTextChunkLength = PhotoBytes.maximumMetadataLength

    package static func read(_ source: some ByteSource, path: String) throws(PhotoFormatError) -> PhotoEvidence {
        var evidence = PhotoEvidence(path: path, format: .png)
        let size = Int(source.size)
        evidence.fileSize = size
        evidence.codec = "png"
        guard size >= 8, try PhotoBytes.read(source, at: 0, count: 8) == signature else {
            throw PhotoFormatError("no png signature")
        }
        var offset = 8
        var sawIHDR = false
        var sawIDAT = false
        var damage: [String] = []
        // Where the file ends before its IEND chunk: said once IHDR is read (the orientation is
        // still read from what came before), an error before.
        var truncation: String?
        var sawIEND = false
        while offset < size {
            guard offset + 12 <= size else {
                truncation = "the file ends inside the chunk header at offset \(offset)"
                if sawIHDR { break }
                throw PhotoFormatError("file ends inside the chunk header at offset \(offset)")
            }
            let head = try PhotoBytes.read(source, at: offset, count: 8)
            let length = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
            let type = String(decoding: head[4..<8], as: UTF8.self)
            guard length <= Int(Int32.max), offset + 12 + length <= size else {
                truncation =
                    "chunk '\(printable(head[4..<8]))' at offset \(offset) claims \(length) bytes, past the end of the file at \(size) bytes"
                // Decoders show what the image data before it gives, and stop here, as this reader does.
                if sawIHDR { break }
                throw PhotoFormatError(
                    "chunk '\(type)' at offset \(offset) has length \(length), past the end of the file")
            }
            // Bit 5 of the first letter: upper case is critical, lower case ancillary.
            let critical = head[4] & 0x20 == 0
            let dataOffset = offset + 8
            offset += 12 + length
            if !sawIHDR, type != "IHDR" { throw PhotoFormatError("the first chunk is '\(type)', not 'IHDR'") }
            let wanted = ["IHDR", "eXIf", "iTXt", "zTXt", "tEXt"].contains(type) && length <= maximumTextChunkLength
            // Chunks read for their content come whole; the others (the image data) are checked in pieces.
            var data: [UInt8] = []
            let crcGood: Bool
            if wanted {
                let bytes = try PhotoBytes.read(source, at: dataOffset - 4, count: length + 8)
                data = Array(bytes[4..<4 + length])
                crcGood = crc32(of: bytes[0..<4 + length]) == bigEndian32(bytes[(4 + length)...])
            } else {
                crcGood = try checkCRC(source, typeOffset: dataOffset - 4, length: length)
            }
            if !crcGood, critical {
                // libpng refuses the file; FFmpeg, libvips (libspng) and exiftool read it. The
                // chunk is used (a picture needs its header and data), and the file said damaged.
                damage.append("chunk '\(type)' at offset \(dataOffset - 8) has a bad crc")
            } else if !crcGood {
                evidence.readerFindings.append(
                    .pngBadCrc, .warning, "chunk '\(type)' at offset \(dataOffset - 8) has a bad crc and is ignored")
                continue
            }
            switch type {
            case "IHDR":
                guard !sawIHDR else { continue }
                guard length == 13 else { throw PhotoFormatError("'IHDR' is \(length) bytes, not 13") }
                sawIHDR = true
                evidence.storedWidth = bigEndian32(data[0..<4])
                evidence.storedHeight = bigEndian32(data[4..<8])
                evidence.bitDepth = Int(data[8])
                // Colour types 4 (grey + alpha) and 6 (RGBA) carry alpha; tRNS adds it to the others.
                evidence.hasAlpha = data[9] == 4 || data[9] == 6
                guard evidence.storedWidth! > 0, evidence.storedHeight! > 0 else {
                    throw PhotoFormatError("'IHDR' gives a size of \(evidence.storedWidth!)x\(evidence.storedHeight!)")
                }
            case "tRNS": evidence.hasAlpha = true
            case "acTL": evidence.formatDetail = "apng"
            case "IDAT": sawIDAT = true
            case "eXIf":
                if sawIDAT {
                    // exiftool reads it; libpng before 1.6.32 and some viewers ignore it there.
                    evidence.readerFindings.append(
                        .pngExifAfterIdat, .info,
                        "the 'eXIf' chunk comes after the image data, where some decoders ignore it")
                }
                guard data.starts(with: EXIFReader.exifPrefix) else {
                    PhotoBytes.addEXIF(data, fileOffset: dataOffset, location: "eXIf chunk", to: &evidence)
                    continue
                }
                // The PNG specification's eXIf starts at the TIFF header; Chromium ignores a chunk
                // that starts `Exif\0\0` (exiftool reads it, with a warning): its Orientation is
                // not what viewers show, and fix writes the chunk without the prefix.
                var prefixed = PhotoEvidence(path: evidence.path, format: .png)
                PhotoBytes.addEXIF(data, fileOffset: dataOffset, location: "eXIf chunk", to: &prefixed)
                if evidence.exif == nil { evidence.exif = prefixed.exif }
                evidence.exif?.orientation = nil
                evidence.readerFindings += prefixed.readerFindings
                if let stated = prefixed.statements.first?.rawValue {
                    evidence.readerFindings.append(
                        .pngExifPrefix, .warning,
                        "the 'eXIf' chunk starts with 'Exif\\0\\0', which the png specification does not have: browsers ignore its Orientation \(stated) and show the picture as stored (1), while exiftool reports \(stated); vidorient reports 1 (fix writes the chunk without the prefix)"
                    )
                }
            case "iTXt", "zTXt", "tEXt":
                readText(type: type, data, to: &evidence)
            case "IEND":
                sawIEND = true
                offset = size
            default:
                break
            }
        }
        guard sawIHDR else { throw PhotoFormatError("no 'IHDR' chunk") }
        if truncation == nil, !sawIEND { truncation = "the file ends at \(size) bytes with no 'IEND' chunk" }
        if let truncation {
            let missing = sawIDAT ? "the image data may be cut short" : "the picture is missing"
            evidence.readerFindings.append(
                PhotoBytes.truncated("\(truncation): \(missing)", decoders: "libpng: not enough image data"))
        }
        if !damage.isEmpty {
            evidence.readerFindings.append(
                PhotoBytes.damaged(damage, consequence: "libvips and exiftool read such files; libpng refuses them"))
        }
        return evidence
    }

    /// A chunk type as messages show it: letters as they are, other bytes as `\xNN`.
    static func printable(_ type: ArraySlice<UInt8>) -> String {
        type.map { (0x20..<0x7F).contains($0) ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined()
    }

    static func bigEndian32(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
    }

    static func crc32(of bytes: ArraySlice<UInt8>, continuing crc: UInt = 0) -> Int {
        Int(bytes.withUnsafeBufferPointer { CZlib.crc32(crc, $0.baseAddress, uInt($0.count)) })
    }

    /// Appends one chunk to `png`: its length, type and data, and the CRC-32 of type and data. The
    /// one chunk writer, for normalize's rebuilt PNG and for `PNGWriter`'s.
    static func appendChunk(_ type: some Collection<UInt8>, _ data: some Collection<UInt8>, to png: inout [UInt8]) {
        png += bigEndian(UInt32(data.count))
        let start = png.count
        png += type
        png += data
        png += bigEndian(UInt32(crc32(of: png[start...])))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
    }

    /// Checks a chunk's CRC reading it a megabyte at a time, so an image-data chunk of any size
    /// costs little memory.
    static func checkCRC(_ source: some ByteSource, typeOffset: Int, length: Int) throws(PhotoFormatError) -> Bool {
        var crc = 0
        var done = 0
        let total = length + 4
        while done < total {
            let count = min(1 << 20, total - done)
            crc = crc32(
                of: try PhotoBytes.read(source, at: typeOffset + done, count: count)[...], continuing: UInt(crc))
            done += count
        }
        return crc == bigEndian32(try PhotoBytes.read(source, at: typeOffset + total, count: 4)[...])
    }

    /// A text chunk: XMP (`XML:com.adobe.xmp` in iTXt) or ImageMagick's raw EXIF profile.
    static func readText(type: String, _ data: [UInt8], to evidence: inout PhotoEvidence) {
        guard let nul = data.firstIndex(of: 0), nul <= 79 else { return }
        let keyword = String(decoding: data[..<nul], as: UTF8.self)
        var text: [UInt8]
        switch type {
        case "tEXt":
            text = Array(data[(nul + 1)...])
        case "zTXt":
            guard nul + 2 <= data.count, let inflated = inflate(data[(nul + 2)...]) else {
                return noteInflateFailure(type, keyword, &evidence)
            }
            text = inflated
        default:  // iTXt: flag, method, language\0, translated keyword\0, text
            guard nul + 3 <= data.count else { return }
            let compressed = data[nul + 1] == 1
            var index = nul + 3
            for _ in 0..<2 {
                guard let end = data[index...].firstIndex(of: 0) else { return }
                index = end + 1
            }
            if compressed {
                guard let inflated = inflate(data[index...]) else {
                    return noteInflateFailure(type, keyword, &evidence)
                }
                text = inflated
            } else {
                text = Array(data[index...])
            }
        }
        if keyword == "XML:com.adobe.xmp" {
            PhotoBytes.addXMP(text, location: "XMP in \(type)", to: &evidence)
        } else if keyword == "Raw profile type xmp" {
            // ImageMagick's hex form of an XMP profile: exiftool reads it, viewers do not.
            guard let packet = rawProfile(text, type: type, keyword: keyword, into: &evidence) else { return }
            let before = evidence.statements.count
            PhotoBytes.addXMP(packet, location: "\(type) '\(keyword)'", to: &evidence)
            if let statement = evidence.statements.dropFirst(before).first, let value = statement.rawValue {
                // 1, which every viewer shows anyway, is only information.
                evidence.readerFindings.append(
                    Finding(
                        .orientationMisplaced, severity: value == 1 ? .info : .warning,
                        message:
                            "XMP Orientation \(value) is stored in ImageMagick's \(type) '\(keyword)' chunk: exiftool reads it, browsers, libvips and most viewers do not"
                    ))
            }
        } else if keyword == "Raw profile type exif" || keyword == "Raw profile type APP1" {
            guard let payload = rawProfile(text, type: type, keyword: keyword, into: &evidence) else { return }
            PhotoBytes.addEXIF(payload, fileOffset: nil, location: "\(type) '\(keyword)'", to: &evidence)
        }
    }

    static func noteInflateFailure(_ type: String, _ keyword: String, _ evidence: inout PhotoEvidence) {
        evidence.readerFindings.append(
            .pngInflateFailed, .warning,
            "\(type) '\(keyword)' could not be decompressed (or exceeds \(maximumInflatedLength >> 20) MiB)")
    }

    /// ImageMagick's text form of a profile: `\nexif\n   <length>\n` then hex digits in lines.
    /// The bytes of an ImageMagick raw profile; nil, and a finding, when it is not one.
    static func rawProfile(
        _ text: [UInt8], type: String, keyword: String, into evidence: inout PhotoEvidence
    ) -> [UInt8]? {
        if let bytes = rawProfile(text) { return bytes }
        evidence.readerFindings.append(.pngRawProfileUnreadable, .warning, "\(type) '\(keyword)' is not a hex profile")
        return nil
    }

    static func rawProfile(_ text: [UInt8]) -> [UInt8]? {
        var index = text.startIndex
        func skipSpace() { while index < text.count, XMPOrientation.isSpace(text[index]) { index += 1 } }
        skipSpace()
        while index < text.count, !XMPOrientation.isSpace(text[index]) { index += 1 }  // the profile name
        skipSpace()
        var length = 0
        while index < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[index]) {
            length = length * 10 + Int(text[index] - UInt8(ascii: "0"))
            guard length <= maximumInflatedLength else { return nil }
            index += 1
        }
        guard length > 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        var high: UInt8?
        while index < text.count, bytes.count < length {
            let c = text[index]
            index += 1
            let nibble: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = c - UInt8(ascii: "A") + 10
            default:
                if XMPOrientation.isSpace(c) { continue }
                return nil
            }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes.count == length ? bytes : nil
    }

    /// zlib-inflates `compressed`, stopping with nil when the output would pass the cap.
    package static func inflate(_ compressed: ArraySlice<UInt8>, maximumLength: Int = maximumInflatedLength) -> [UInt8]?
    {
        var stream = z_stream()
        guard vidorient_inflate_init(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = Array(compressed)
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        return input.withUnsafeMutableBufferPointer { inputBuffer -> [UInt8]? in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { outputBuffer -> (Int32, Int) in
                    stream.next_out = outputBuffer.baseAddress
                    stream.avail_out = uInt(outputBuffer.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, outputBuffer.count - Int(stream.avail_out))
                }
                guard status == Z_OK || status == Z_STREAM_END else { return nil }
                guard output.count + produced <= maximumLength else { return nil }
                output += chunk[0..<produced]
                if status == Z_STREAM_END { return output }
                // No progress possible: the input ended before the stream did.
                if produced == 0 && stream.avail_in == 0 { return nil }
            }
        }
    }
}
