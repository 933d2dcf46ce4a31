/// Recognises, from the first bytes, files that are certainly not ISO-BMFF, so that a Matroska
/// file named `.mp4` is refused as Matroska rather than as a box with an absurd size.
enum FileSignature {
    /// A name for the format of a file starting with `head`, when it is a known non-ISO format.
    static func foreignFormat(_ head: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        let ascii = { (text: String) in Array(text.utf8) }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return "matroska/webm" }
        if starts(ascii("RIFF")) {
            if starts(ascii("AVI "), at: 8) { return "avi" }
            if starts(ascii("WAVE"), at: 8) { return "wav" }
            if starts(ascii("WEBP"), at: 8) { return "webp" }
            return "riff"
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "png" }
        if starts(ascii("GIF8")) { return "gif" }
        if starts(ascii("II*\0")) || starts(ascii("MM\0*")) { return "tiff" }
        if starts(ascii("OggS")) { return "ogg" }
        if starts(ascii("fLaC")) { return "flac" }
        if starts(ascii("ID3")) { return "mp3" }
        if starts(ascii("FLV\u{1}")) { return "flv" }
        if starts([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11]) { return "asf/wmv" }
        if starts([0x00, 0x00, 0x01, 0xBA]) { return "mpeg program stream" }
        if head.count > 188 && head[0] == 0x47 && head[188] == 0x47 { return "mpeg transport stream" }
        return nil
    }

    /// Types an ISO-BMFF or QuickTime file starts with. Anything else first (text, random bytes,
    /// an unknown format) is not a file this code should guess about.
    static let firstBoxTypes: Set<FourCC> = [
        "ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "styp", "sidx", "junk", "pdin", "moof",
    ]
}
