import Testing
import VidorientCore

@Suite struct MediaFormatTests {
    static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        let size = 16 + 4 * compatible.count
        var bytes: [UInt8] = [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0]
        for brand in compatible { bytes += Array(brand.utf8) }
        return bytes + Array("meta".utf8)
    }

    @Test(arguments: [
        (ftyp("heic", ["mif1", "heic"]), "heic"), (ftyp("mif1", ["mif1", "heic", "miaf"]), "heic"),
        (ftyp("avif", ["avif", "mif1", "miaf"]), "avif"), (ftyp("mif1", ["avif", "miaf"]), "avif"),
        (ftyp("msf1", ["msf1", "hevc"]), "heif"), (ftyp("isom", ["isom", "iso2", "avc1", "mp41"]), "mp4/mov"),
        (ftyp("qt  ", ["qt  "]), "mp4/mov"),
    ])
    func isoBrands(head: [UInt8], name: String) {
        #expect(MediaFormat(signature: head).description == name)
    }

    @Test func signaturesNotNames() {
        #expect(MediaFormat(signature: [0xFF, 0xD8, 0xFF, 0xE1]) == .jpeg)
        #expect(MediaFormat(signature: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == .png)
        #expect(MediaFormat(signature: Array("II*\0".utf8)) == .tiff)
        #expect(MediaFormat(signature: Array("MM\0*".utf8)) == .tiff)
        #expect(MediaFormat(signature: Array("RIFF\0\0\0\0WEBPVP8 ".utf8)) == .webp)
        #expect(MediaFormat(signature: Array("RIFF\0\0\0\0AVI LIST".utf8)) == .other(name: "avi"))
        #expect(MediaFormat(signature: [0x1A, 0x45, 0xDF, 0xA3]) == .other(name: "matroska/webm"))
        #expect(MediaFormat(signature: [0, 0, 0, 8] + Array("wide".utf8)) == .movie)
        #expect(MediaFormat(signature: Array("plain text".utf8)) == .other(name: "text"))
        // Text headers of media FFmpeg reads: not text.
        #expect(
            MediaFormat(signature: Array("YUV4MPEG2 W2 H2 F25:1 Ip A1:1 C420jpeg\nFRAME\nPPPPPP".utf8))
                == .other(name: nil))
        #expect(MediaFormat(signature: Array("P6\n2 2\n255\nABCDEFGHIJKL".utf8)) == .other(name: nil))
        #expect(MediaFormat(signature: Array("#EXTM3U\n#EXT-X-VERSION:3\n".utf8)) == .other(name: nil))
        #expect(MediaFormat(signature: []) == .other(name: nil))
        #expect(MediaFormat.jpeg.isPhoto && !MediaFormat.movie.isPhoto)
    }
}
