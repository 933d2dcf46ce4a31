package import VidorientIO

/// Where a Canon CR3's metadata and pictures are: CR3 is ISO-BMFF (`ftyp` brand `crx `) whose
/// `moov` holds Canon's `uuid` box (85c0b687-820f-11e0-8111-f4ce462b6a48) with four TIFF
/// structures, `CMT1` (IFD0: Make, Model, Orientation), `CMT2` (the Exif IFD), `CMT3` (Canon's
/// maker notes), `CMT4` (GPS), and a 160x120 `THMB` JPEG; a top-level `uuid` box
/// (be7acfcb-97a9-42e8-9c71-999491e3afac) holds XMP, and another
/// (eaf42b5e-1c98-4b88-b9fb-b7dc406e4d16) a `PRVW` JPEG of about 1620x1080. As exiftool and
/// LibRaw read them (exiftool's Canon.pm, LibRaw's `parseCR3`).
package struct CR3Layout: Sendable, Hashable {
    /// A run of bytes in the file.
    package struct Extent: Sendable, Hashable {
        package var offset: Int64
        package var length: Int
    }

    /// `CMT1`…`CMT4` by name, each a TIFF structure (its own header, offsets from its first byte).
    package var metadata: [String: Extent] = [:]
    /// The XMP packet.
    package var xmp: Extent?
    /// JPEG pictures by where they are: `THMB`, `PRVW`.
    package var previews: [Preview] = []
    /// A `CMT` box met again (in the same Canon box or a second one): the first is read, as
    /// exiftool reads it, and each later one named here (`ignored 'CMT1' at offset …`).
    package var repeated: [String] = []

    package struct Preview: Sendable, Hashable {
        package var location: String
        package var extent: Extent
    }

    static let canon: [UInt8] = [
        0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48,
    ]
    static let xmpBox: [UInt8] = [
        0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC,
    ]
    static let previewBox: [UInt8] = [
        0xEA, 0xF4, 0x2B, 0x5E, 0x1C, 0x98, 0x4B, 0x88, 0xB9, 0xFB, 0xB7, 0xDC, 0x40, 0x6E, 0x4D, 0x16,
    ]

    /// Reads the box headers (each bounded by its parent, as every box here is) and the few
    /// fixed fields of `THMB` and `PRVW`. Throws when the boxes cannot be walked or `moov` has no
    /// Canon box.
    package static func read(_ source: some ByteSource) throws(ISOBMFFError) -> CR3Layout {
        var walker = BoxWalker(source)
        var layout = CR3Layout()
        let top = try walker.boxes(from: 0, to: source.size, depth: 0, in: nil)
        var sawCanon = false
        for box in top {
            if box.type == "moov" {
                for child in try walker.children(of: box, depth: 1) where child.userType == canon {
                    sawCanon = true
                    for item in try walker.children(of: child, depth: 2) {
                        let name = item.type.description
                        if ["CMT1", "CMT2", "CMT3", "CMT4"].contains(name) {
                            guard layout.metadata[name] == nil else {
                                layout.repeated.append("'\(name)' at offset \(item.offset)")
                                continue
                            }
                            layout.metadata[name] = Extent(offset: item.payloadOffset, length: Int(item.payloadSize))
                        } else if name == "THMB" {
                            // version and flags, width, height, the JPEG's length, 4 more bytes, the JPEG.
                            if let extent = previewJPEG(item, lengthField: 2, walker: walker) {
                                layout.previews.append(Preview(location: "THMB", extent: extent))
                            }
                        }
                    }
                }
            } else if box.type == "uuid", box.userType == xmpBox {
                layout.xmp = Extent(offset: box.payloadOffset, length: Int(box.payloadSize))
            } else if box.type == "uuid", box.userType == previewBox, box.payloadSize > 8 {
                // 8 bytes of Canon's own, then the PRVW box: 4 bytes, 1, width, height, 1, the
                // JPEG's length, the JPEG.
                // A preview that cannot be read leaves the metadata readable.
                let items = (try? walker.boxes(from: box.payloadOffset + 8, to: box.end, depth: 1, in: box)) ?? []
                for item in items where item.type == "PRVW" {
                    if let extent = previewJPEG(item, lengthField: 3, walker: walker) {
                        layout.previews.append(Preview(location: "PRVW", extent: extent))
                    }
                }
            }
        }
        guard sawCanon else { throw .malformed("no canon metadata box in 'moov'") }
        return layout
    }

    /// The JPEG of a `THMB` or `PRVW` box, after its 16 bytes of fixed fields, its length the 32-bit
    /// field number `lengthField` (from 0); nil when the box is too short or the JPEG does not fit.
    static func previewJPEG(_ item: BoxHeader, lengthField: Int, walker: BoxWalker<some ByteSource>) -> Extent? {
        // Absent is fine: a preview that cannot be read leaves the metadata readable.
        guard let length = try? jpegLength(walker.payload(of: item, limit: 16), field: lengthField) else { return nil }
        return jpeg(in: item, at: 16, length: length)
    }

    /// The 32-bit field number `field` (from 0) of a preview box's fixed fields: the JPEG's length.
    static func jpegLength(_ fields: ByteCursor, field: Int) throws(ISOBMFFError) -> Int {
        var fields = fields
        for _ in 0..<field { _ = try fields.uint32() }
        return Int(try fields.uint32())
    }

    /// The JPEG `at` bytes into `box`'s payload, of `length` bytes, when it fits in the box.
    static func jpeg(in box: BoxHeader, at start: Int64, length: Int) -> Extent? {
        guard length > 0, start + Int64(length) <= box.payloadSize else { return nil }
        return Extent(offset: box.payloadOffset + start, length: length)
    }
}
