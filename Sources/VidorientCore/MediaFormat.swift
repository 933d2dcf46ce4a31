/// What a file is, decided once, from its first bytes and never from its name: every command
/// asks `MediaFormat(signature:)` and sends the file down the photo path or the video path.
///
/// A JPEG named `.mp4` is a JPEG; a HEIC named `.jpg` is a HEIC. The vocabulary is the
/// project's own (FFmpeg's demuxer names stay inside the FFmpeg target).
public enum MediaFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    case jpeg
    case png
    /// TIFF and the TIFF-based raws (DNG, CR2, NEF, ARW, …): `II*\0` or `MM\0*`, and the raws
    /// that are TIFF with a magic number of their own (Olympus ORF, Panasonic RW2).
    case tiff
    /// `RIFF....WEBP`.
    case webp
    /// A camera raw with a container of its own, read by its own small reader: `raf` (Fujifilm,
    /// `FUJIFILMCCD-RAW `), `cr3` (Canon, ISO-BMFF with major brand `crx `), `mrw` (Minolta,
    /// `\0MRM`), `crw` (Canon CIFF, `HEAPCCDR` at byte 6).
    case raw(String)
    /// An ISO-BMFF file whose `ftyp` names an image brand: HEIC, HEIF, AVIF and their sequences.
    case heif(brand: String)
    /// An ISO-BMFF or QuickTime movie: MP4, MOV, 3GP, M4A.
    case movie
    /// Something FFmpeg may read (Matroska, AVI, MPEG-TS, GIF, …), named when the signature is known.
    case other(name: String?)

    /// The first four bytes of a TIFF structure: TIFF's 42 in either byte order, Olympus ORF's
    /// `IIRO`, `IIRS` and `MMOR`, Panasonic RW2's `IIU\0` (the magics `TIFFStructure` accepts).
    static let tiffMagics: [[UInt8]] = ["II*\0", "MM\0*", "IIRO", "IIRS", "MMOR", "IIU\0"].map { Array($0.utf8) }

    /// How many leading bytes `init(signature:)` wants to see; fewer are fine for short files.
    public static let signatureLength = 64

    /// The format of a file whose first bytes are `head`.
    public init(signature head: [UInt8]) {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && head[offset..<offset + prefix.count].elementsEqual(prefix)
        }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
        if starts([0xFF, 0xD8]) {
            // libjpeg needs only SOI and steps over stray bytes before the next marker (as
            // libmagic names `FF D8` a JPEG), so a JPEG damaged right after SOI is still one.
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if MediaFormat.tiffMagics.contains(where: { starts($0) }) {
            self = .tiff
        } else if starts(ascii("RIFF")) && starts(ascii("WEBP"), at: 8) {
            self = .webp
        } else if starts(ascii("FUJIFILMCCD-RAW ")) {
            self = .raw("raf")
        } else if starts(ascii("\0MRM")) {
            self = .raw("mrw")
        } else if (starts(ascii("II")) || starts(ascii("MM"))) && starts(ascii("HEAPCCDR"), at: 6) {
            self = .raw("crw")
        } else if starts(ascii("ftyp"), at: 4) && starts(ascii("crx "), at: 8) {
            self = .raw("cr3")
        } else if starts(ascii("ftyp"), at: 4) {
            self = MediaFormat.isoFormat(ftyp: head)
        } else if let name = MediaFormat.unsupportedName(head) {
            self = .other(name: name)
        } else if let name = MediaFormat.foreignName(head) {
            self = .other(name: name)
        } else if head.count >= 8, MediaFormat.movieFirstBoxes.contains(String(decoding: head[4..<8], as: UTF8.self)) {
            // QuickTime files may open with `wide`, `mdat` or `moov` and no `ftyp`.
            self = .movie
        } else {
            self = .other(name: nil)
        }
    }

    /// Photo formats go down the photo path (pure-Swift readers, no FFmpeg to inspect).
    public var isPhoto: Bool {
        switch self {
        case .jpeg, .png, .tiff, .webp, .heif, .raw: true
        case .movie, .other: false
        }
    }

    /// Short lowercase name, as reports print it: `jpeg`, `heic`, `avif`, `mp4/mov`.
    public var description: String {
        switch self {
        case .jpeg: "jpeg"
        case .png: "png"
        case .tiff: "tiff"
        case .webp: "webp"
        case .heif(let brand): MediaFormat.heifName(brand: brand)
        case .raw(let name): name
        case .movie: "mp4/mov"
        case .other(let name): name ?? "unknown"
        }
    }

    /// The project's name for an ISO-BMFF or QuickTime movie, from its `ftyp` major brand (nil
    /// when the file has no `ftyp`, as old QuickTime files): `mov`, `mp4`, `m4a`, `m4v`, `3gp`,
    /// `3g2`, `mj2`, with a long name. `inspect` reports these as `format.name`/`long_name`,
    /// whether the box layer or FFmpeg read the file.
    public static func movieContainer(majorBrand: String?) -> (name: String, longName: String) {
        guard let brand = majorBrand else { return ("mov", "QuickTime movie") }
        switch brand {
        case "qt  ": return ("mov", "QuickTime movie")
        case "M4A ", "M4B ", "M4P ", "F4A ", "F4B ": return ("m4a", "MPEG-4 audio (iTunes)")
        case "M4V ", "M4VH", "M4VP", "F4V ", "F4P ": return ("m4v", "MPEG-4 video (iTunes)")
        case "mjp2", "mj2s": return ("mj2", "Motion JPEG 2000")
        default:
            if brand.hasPrefix("3gp") || brand.hasPrefix("3ge") || brand.hasPrefix("3gg") || brand.hasPrefix("3gs") {
                return ("3gp", "3GPP multimedia file")
            }
            if brand.hasPrefix("3g2") { return ("3g2", "3GPP2 multimedia file") }
            return ("mp4", "MPEG-4 Part 14 (ISO base media file)")
        }
    }

    /// Every name `movieContainer(majorBrand:)` gives.
    public static let movieContainerNames: Set<String> = ["mov", "mp4", "m4a", "m4v", "3gp", "3g2", "mj2"]

    /// Image brands of ISO/IEC 23008-12 (HEIF) and the AV1 image format. `msf1`, `hevc`, `hevx`
    /// and `avis` are image sequences; a file that lists them is still read for its primary item.
    static let imageBrands: Set<String> = [
        "mif1", "mif2", "msf1", "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "avif", "avis",
        "avio", "MiHE", "MiHA", "MiHB", "MiAn", "jpeg", "jpgs",
    ]

    /// The brand that names the format best: the major brand when it is an image brand, else the
    /// first compatible one that is.
    static func isoFormat(ftyp head: [UInt8]) -> MediaFormat {
        guard head.count >= 16 else { return .movie }
        let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        let end = min(head.count, max(16, size))
        func brand(at offset: Int) -> String { String(decoding: head[offset..<offset + 4], as: UTF8.self) }
        let major = brand(at: 8)
        var brands = [major]
        var offset = 16
        while offset + 4 <= end {
            brands.append(brand(at: offset))
            offset += 4
        }
        guard let image = brands.first(where: imageBrands.contains) else { return .movie }
        // A movie that merely lists an image brand among many stays a movie when its major brand
        // is a movie brand (qt, isom, mp41, …) and it names no HEIF/AVIF codec brand.
        let codecBrands: Set<String> = ["heic", "heix", "heim", "heis", "avif", "avis", "mif1", "mif2", "msf1"]
        if !imageBrands.contains(major), !brands.contains(where: codecBrands.contains) { return .movie }
        let named = brands.first(where: { ["heic", "heix", "heim", "heis", "avif", "avis"].contains($0) })
        return .heif(brand: named ?? image)
    }

    static func heifName(brand: String) -> String {
        switch brand {
        case "avif", "avis", "avio": "avif"
        case "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs": "heic"
        default: "heif"
        }
    }

    /// Types an ISO-BMFF or QuickTime file without `ftyp` may start with (QuickTime, fragments).
    static let movieFirstBoxes: Set<String> = [
        "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "styp", "sidx", "junk", "pdin", "moof",
    ]

    /// Why no command reads a file of this format, or nil when one does: BigTIFF and JPEG XL,
    /// which no reader here follows and which FFmpeg would misname (a `?x?` video, a 25 fps
    /// one), and text, which FFmpeg's `tty` demuxer shows as a 640x400 "ansi" video. Every
    /// command refuses these in one line (`PhotoReader.format(of:)`), as unsupported.
    public var unsupportedReason: String? {
        guard case .other(let name?) = self else { return nil }
        switch name {
        case "bigtiff":
            return
                "a bigtiff file (64-bit offsets): not supported; vidorient reads classic tiff (exiftool and libtiff read bigtiff)"
        case "jpeg xl":
            return
                "a jpeg xl file: not supported (exiftool reads its orientation; the ffmpeg here has no decoder for it)"
        case "text": return "a text file, not a photo or a video"
        default: return nil
        }
    }

    /// The formats of `unsupportedReason`, from their signatures: BigTIFF (`II+\0`, `MM\0+`),
    /// JPEG XL (the `FF 0A` codestream or the `JXL ` box that opens its container), and text (the
    /// first bytes printable UTF-8 and white space, no NUL, as `file` calls a file text).
    static func unsupportedName(_ head: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8]) -> Bool { head.count >= prefix.count && head.starts(with: prefix) }
        if starts(Array("II+\0".utf8)) || starts(Array("MM\0+".utf8)) { return "bigtiff" }
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            return "jpeg xl"
        }
        // Playlists and concat lists are text that FFmpeg follows to real media; Y4M and PNM
        // (`P1`…`P7`) open with a text header before their pixels, which may look like text too.
        let textual = ["#EXTM3U", "ffconcat", "YUV4MPEG2"].contains { starts(Array($0.utf8)) }
        let pnm =
            head.count >= 3 && head[0] == UInt8(ascii: "P") && (0x31...0x37).contains(head[1])
            && [0x09, 0x0A, 0x0D, 0x20].contains(head[2])
        if isText(head), !textual, !pnm { return "text" }
        return nil
    }

    /// Whether `head` reads as text: at least 4 bytes, valid UTF-8 (a character cut at the end
    /// allowed), no control character but tab, line feed, form feed and carriage return.
    static func isText(_ head: [UInt8]) -> Bool {
        guard head.count >= 4 else { return false }
        // A multi-byte character the 64 bytes cut in two is still text.
        var bytes = head[...]
        if let lead = bytes.lastIndex(where: { $0 & 0xC0 != 0x80 }), bytes[lead] >= 0xC0 {
            let length = bytes[lead] >= 0xF0 ? 4 : bytes[lead] >= 0xE0 ? 3 : 2
            if bytes.endIndex - lead < length { bytes = bytes[..<lead] }
        }
        guard String(validating: bytes, as: UTF8.self) != nil else { return false }
        return bytes.allSatisfy { $0 >= 0x20 && $0 != 0x7F || [0x09, 0x0A, 0x0C, 0x0D].contains($0) }
    }

    /// Names for formats that are certainly not ISO-BMFF, so that a Matroska file named `.mp4` is
    /// named as Matroska rather than read as a box with an absurd size.
    static func foreignName(_ head: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && head[offset..<offset + prefix.count].elementsEqual(prefix)
        }
        let ascii = { (text: String) in Array(text.utf8) }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return "matroska/webm" }
        if starts(ascii("RIFF")) {
            if starts(ascii("AVI "), at: 8) { return "avi" }
            if starts(ascii("WAVE"), at: 8) { return "wav" }
            return "riff"
        }
        if starts(ascii("GIF8")) { return "gif" }
        if starts(ascii("OggS")) { return "ogg" }
        if starts(ascii("fLaC")) { return "flac" }
        if starts(ascii("ID3")) { return "mp3" }
        if starts(ascii("FLV\u{1}")) { return "flv" }
        if starts([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]) { return "asf/wmv" }
        if starts([0x00, 0x00, 0x01, 0xBA]) { return "mpeg program stream" }
        if head.count > 188 && head[0] == 0x47 && head[188] == 0x47 { return "mpeg transport stream" }
        return nil
    }
}
