/// Deterministic hostile variants of a photo (issue 23's second round): cut short, bytes flipped
/// inside the EXIF/IFD or inside the HEIF boxes that place and transform the picture, tags
/// repeated, counts and sizes that claim gigabytes, an IFD that links to itself, the byte order
/// mark swapped, a metadata segment or chunk repeated. Written here from the formats' specs,
/// apart from the code under test; the same bytes on every machine (`SplitMix64`, seeded by the
/// mutation's name).
public struct PhotoMutation: Sendable, CustomStringConvertible {
    public let name: String
    public let bytes: [UInt8]
    public var description: String { name }
}

public enum PhotoMutations {
    /// Every mutation of `bytes`, a photo of `format` (`jpeg`, `png`, `webp`, `tiff`, `heif`).
    public static func all(of bytes: [UInt8], format: String) -> [PhotoMutation] {
        var out: [PhotoMutation] = []
        func add(_ name: String, _ mutated: [UInt8]?) {
            guard let mutated, mutated != bytes else { return }
            out.append(PhotoMutation(name: name, bytes: mutated))
        }
        for percent in [1, 10, 25, 50, 75, 90, 99] {
            add("truncated-\(percent)%", Array(bytes.prefix(bytes.count * percent / 100)))
        }
        add("truncated-last-byte", Array(bytes.dropLast()))
        for k in 0..<6 { add("flipped-anywhere-\(k)", flip(bytes, in: 0..<bytes.count, seed: "anywhere-\(k)")) }

        if let tiff = exifRange(bytes, format: format) {
            for k in 0..<12 { add("exif-flipped-\(k)", flip(bytes, in: tiff, seed: "exif-\(k)")) }
            add("exif-byte-order-swapped", swapByteOrder(bytes, tiff: tiff.lowerBound))
            add("exif-ifd0-loop", ifd0Loop(bytes, tiff: tiff.lowerBound))
            add("exif-ifd0-past-end", setIFD0Offset(bytes, tiff: tiff.lowerBound, to: 0x7FFF_FFF0))
            add("exif-entry-count-huge", setIFD0Count(bytes, tiff: tiff.lowerBound, to: 0xFFFF))
            add("exif-orientation-count-huge", editOrientation(bytes, tiff: tiff.lowerBound) { $0.count = 0xFFFF_FFFF })
            add("exif-orientation-type-long", editOrientation(bytes, tiff: tiff.lowerBound) { $0.type = 4 })
            add("exif-orientation-value-9", editOrientation(bytes, tiff: tiff.lowerBound) { $0.value = 9 })
            add("exif-orientation-duplicated", duplicateOrientation(bytes, tiff: tiff.lowerBound))
        }
        switch format {
        case "jpeg":
            if let app1 = jpegSegment(bytes, marker: 0xE1) {
                add("jpeg-two-app1", Array(bytes[..<app1.upperBound] + bytes[app1] + bytes[app1.upperBound...]))
                var huge = bytes
                huge[app1.lowerBound + 2] = 0xFF
                huge[app1.lowerBound + 3] = 0xFF
                add("jpeg-app1-length-huge", huge)
                var short = bytes
                short[app1.lowerBound + 2] = 0
                short[app1.lowerBound + 3] = 1
                add("jpeg-app1-length-1", short)
            }
            add("jpeg-no-eoi", bytes.suffix(2) == [0xFF, 0xD9] ? Array(bytes.dropLast(2)) : nil)
        case "png":
            if let exif = pngChunk(bytes, type: "eXIf") {
                add("png-two-exif", Array(bytes[..<exif.upperBound] + bytes[exif] + bytes[exif.upperBound...]))
                var huge = bytes
                huge.replaceSubrange(exif.lowerBound..<exif.lowerBound + 4, with: [0x7F, 0xFF, 0xFF, 0xF0])
                add("png-exif-length-huge", huge)
                if let end = pngChunk(bytes, type: "IEND") {
                    // eXIf after the image data: allowed by PNG 1.2's extension, not by the third edition.
                    add(
                        "png-exif-after-idat",
                        Array(bytes[..<exif.lowerBound]) + Array(bytes[exif.upperBound..<end.lowerBound])
                            + Array(bytes[exif]) + Array(bytes[end.lowerBound...]))
                }
            }
        case "webp":
            var huge = bytes
            if huge.count >= 8 { huge.replaceSubrange(4..<8, with: [0xF0, 0xFF, 0xFF, 0x7F]) }
            add("webp-riff-size-huge", huge)
            if let exif = riffChunk(bytes, type: "EXIF") {
                var two = Array(bytes[..<exif.upperBound] + bytes[exif] + bytes[exif.upperBound...])
                let size = UInt32(two.count - 8)
                two.replaceSubrange(
                    4..<8,
                    with: [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)])
                add("webp-two-exif", two)
                var long = bytes
                long.replaceSubrange(exif.lowerBound + 4..<exif.lowerBound + 8, with: [0xF0, 0xFF, 0xFF, 0x7F])
                add("webp-exif-size-huge", long)
            }
        case "heif":
            for type in [
                "ftyp", "meta", "hdlr", "pitm", "iinf", "iloc", "iprp", "ipco", "ipma", "ispe", "irot", "imir",
            ] {
                for (index, box) in boxes(bytes, type: type).prefix(2).enumerated() {
                    let tag = "heif-\(type)\(index == 0 ? "" : "-\(index + 1)")"
                    for k in 0..<4 {
                        add(
                            "\(tag)-flipped-\(k)",
                            flip(bytes, in: box.lowerBound + 8..<box.upperBound, seed: "\(tag)-\(k)"))
                    }
                    add("\(tag)-size-huge", setBoxSize(bytes, at: box.lowerBound, to: 0x7FFF_FFF0))
                    add("\(tag)-size-0", setBoxSize(bytes, at: box.lowerBound, to: 0))
                    add("\(tag)-size-7", setBoxSize(bytes, at: box.lowerBound, to: 7))
                }
            }
        default: break
        }
        return out
    }

    // MARK: Bytes

    /// One byte in `range`, XORed with a non-zero value; the place and value from the seed.
    static func flip(_ bytes: [UInt8], in range: Range<Int>, seed: String) -> [UInt8]? {
        guard !range.isEmpty, range.upperBound <= bytes.count else { return nil }
        var generator = SplitMix64(
            state: seed.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 })
        var out = bytes
        out[Int.random(in: range, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
        return out
    }

    static func u16(_ b: [UInt8], _ at: Int, little: Bool) -> Int {
        little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1])
    }
    static func u32(_ b: [UInt8], _ at: Int, little: Bool) -> Int {
        little
            ? Int(b[at]) | Int(b[at + 1]) << 8 | Int(b[at + 2]) << 16 | Int(b[at + 3]) << 24
            : Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
    }
    static func put16(_ b: inout [UInt8], _ at: Int, _ value: Int, little: Bool) {
        let bytes = [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        b.replaceSubrange(at..<at + 2, with: little ? bytes.reversed() : bytes)
    }
    static func put32(_ b: inout [UInt8], _ at: Int, _ value: Int, little: Bool) {
        let bytes = [
            UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
        ]
        b.replaceSubrange(at..<at + 4, with: little ? bytes.reversed() : bytes)
    }

    // MARK: EXIF (TIFF 6.0: header II/MM, 42, IFD0's offset; an IFD is a count, 12-byte entries, the next IFD's offset)

    /// Where the TIFF structure of the EXIF lies: JPEG's APP1 `Exif\0\0`, PNG's eXIf, WebP's
    /// EXIF chunk, a TIFF file whole.
    public static func exifRange(_ bytes: [UInt8], format: String) -> Range<Int>? {
        switch format {
        case "tiff": return bytes.count >= 8 ? 0..<bytes.count : nil
        case "jpeg":
            guard let app1 = jpegSegment(bytes, marker: 0xE1), app1.count > 10,
                bytes[app1.lowerBound + 4..<app1.lowerBound + 10].elementsEqual(Array("Exif\0\0".utf8))
            else { return nil }
            return app1.lowerBound + 10..<app1.upperBound
        case "png":
            guard let chunk = pngChunk(bytes, type: "eXIf") else { return nil }
            return chunk.lowerBound + 8..<chunk.upperBound - 4
        case "webp":
            guard let chunk = riffChunk(bytes, type: "EXIF") else { return nil }
            var start = chunk.lowerBound + 8
            if bytes[start..<min(start + 6, chunk.upperBound)].elementsEqual(Array("Exif\0\0".utf8)) { start += 6 }
            return start..<chunk.upperBound
        default: return nil
        }
    }

    struct Entry {
        var tag: Int, type: Int, count: Int, value: Int
    }

    static func ifd0(_ b: [UInt8], tiff: Int) -> (little: Bool, at: Int, count: Int)? {
        guard tiff + 8 <= b.count, b[tiff] == b[tiff + 1], b[tiff] == 0x49 || b[tiff] == 0x4D else { return nil }
        let little = b[tiff] == 0x49
        let at = tiff + u32(b, tiff + 4, little: little)
        guard at + 2 <= b.count else { return nil }
        return (little, at, u16(b, at, little: little))
    }

    static func swapByteOrder(_ b: [UInt8], tiff: Int) -> [UInt8]? {
        guard ifd0(b, tiff: tiff) != nil else { return nil }
        var out = b
        let other: UInt8 = b[tiff] == 0x49 ? 0x4D : 0x49
        out[tiff] = other
        out[tiff + 1] = other
        return out
    }

    static func ifd0Loop(_ b: [UInt8], tiff: Int) -> [UInt8]? {
        guard let ifd = ifd0(b, tiff: tiff), ifd.at + 2 + 12 * ifd.count + 4 <= b.count else { return nil }
        var out = b
        put32(&out, ifd.at + 2 + 12 * ifd.count, ifd.at - tiff, little: ifd.little)
        return out
    }

    static func setIFD0Offset(_ b: [UInt8], tiff: Int, to value: Int) -> [UInt8]? {
        guard let ifd = ifd0(b, tiff: tiff) else { return nil }
        var out = b
        put32(&out, tiff + 4, value, little: ifd.little)
        return out
    }

    static func setIFD0Count(_ b: [UInt8], tiff: Int, to value: Int) -> [UInt8]? {
        guard let ifd = ifd0(b, tiff: tiff) else { return nil }
        var out = b
        put16(&out, ifd.at, value, little: ifd.little)
        return out
    }

    /// IFD0's Orientation entry (tag 0x0112), edited by `change`.
    static func editOrientation(_ b: [UInt8], tiff: Int, _ change: (inout Entry) -> Void) -> [UInt8]? {
        guard let ifd = ifd0(b, tiff: tiff) else { return nil }
        for index in 0..<ifd.count {
            let at = ifd.at + 2 + 12 * index
            guard at + 12 <= b.count else { return nil }
            guard u16(b, at, little: ifd.little) == 0x0112 else { continue }
            var entry = Entry(
                tag: 0x0112, type: u16(b, at + 2, little: ifd.little), count: u32(b, at + 4, little: ifd.little),
                value: u16(b, at + 8, little: ifd.little))
            change(&entry)
            var out = b
            put16(&out, at + 2, entry.type, little: ifd.little)
            put32(&out, at + 4, entry.count, little: ifd.little)
            put16(&out, at + 8, entry.value, little: ifd.little)
            return out
        }
        return nil
    }

    /// The entry after Orientation made a second Orientation (another value), so IFD0 says it twice.
    static func duplicateOrientation(_ b: [UInt8], tiff: Int) -> [UInt8]? {
        guard let ifd = ifd0(b, tiff: tiff) else { return nil }
        for index in 0..<ifd.count - 1 {
            let at = ifd.at + 2 + 12 * index
            guard at + 24 <= b.count else { return nil }
            guard u16(b, at, little: ifd.little) == 0x0112 else { continue }
            var out = b
            out.replaceSubrange(at + 12..<at + 24, with: b[at..<at + 12])
            put16(&out, at + 20, u16(b, at + 8, little: ifd.little) % 8 + 1, little: ifd.little)
            return out
        }
        return nil
    }

    // MARK: Containers

    /// A JPEG segment (marker, length, payload) before the scan, by its marker.
    public static func jpegSegment(_ b: [UInt8], marker: UInt8) -> Range<Int>? {
        var at = 2
        while at + 4 <= b.count, b[at] == 0xFF {
            let length = Int(b[at + 2]) << 8 | Int(b[at + 3])
            if b[at + 1] == marker { return at..<min(at + 2 + length, b.count) }
            if b[at + 1] == 0xDA { return nil }
            at += 2 + length
        }
        return nil
    }

    /// A PNG chunk (length, type, data, CRC), by its type.
    static func pngChunk(_ b: [UInt8], type: String) -> Range<Int>? {
        var at = 8
        while at + 12 <= b.count {
            let length = u32(b, at, little: false)
            let end = at + 12 + length
            if b[at + 4..<at + 8].elementsEqual(Array(type.utf8)) { return at..<min(end, b.count) }
            at = end
        }
        return nil
    }

    /// A RIFF chunk of a WebP file (type, little-endian size, data, padding), by its type.
    static func riffChunk(_ b: [UInt8], type: String) -> Range<Int>? {
        var at = 12
        while at + 8 <= b.count {
            let size = u32(b, at + 4, little: true)
            let end = at + 8 + size + size % 2
            if b[at..<at + 4].elementsEqual(Array(type.utf8)) { return at..<min(end, b.count) }
            at = end
        }
        return nil
    }

    /// Every box of `type`, looking into `meta` (a full box), `iprp`, `ipco` and `iinf`'s parents.
    public static func boxes(_ b: [UInt8], type: String) -> [Range<Int>] {
        var found: [Range<Int>] = []
        func walk(_ range: Range<Int>) {
            var at = range.lowerBound
            while at + 8 <= range.upperBound {
                let size = u32(b, at, little: false)
                guard size >= 8, at + size <= range.upperBound else { return }
                let name = String(decoding: b[at + 4..<at + 8], as: UTF8.self)
                if name == type { found.append(at..<at + size) }
                switch name {
                case "meta": walk(at + 12..<at + size)
                case "iprp", "ipco": walk(at + 8..<at + size)
                default: break
                }
                at += size
            }
        }
        walk(0..<b.count)
        return found
    }

    static func setBoxSize(_ b: [UInt8], at: Int, to size: Int) -> [UInt8] {
        var out = b
        put32(&out, at, size, little: false)
        return out
    }
}
