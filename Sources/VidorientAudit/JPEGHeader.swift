#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import VidorientCore

/// What an audit needs from a JPEG, read from its markers: the frame header (size, sampling)
/// and the EXIF `Orientation` in IFD0. No decoding: this is `audit`'s fast path for photos,
/// which through FFmpeg cost more than everything else in a library together.
struct JPEGHeader {
    var width: Int
    var height: Int
    /// FFmpeg's name for the pixel layout: `yuvj420p`, `yuvj422p`, `yuvj444p`, `gray`…
    var pixelFormat: String?
    /// `Baseline`, `Sequential`, `Progressive` or `Lossless`, as ffprobe names them.
    var profile: String?
    /// The EXIF Orientation value as stored (it may be 0 or above 8); nil when absent.
    var orientation: Int?

    /// Reads the markers of the file at `path`, up to the first frame header; nil when it is not a
    /// JPEG or the header cannot be found in the first megabyte.
    init?(path: String) {
        // A FIFO named as an input must not block the audit: only regular files are read.
        guard let descriptor = try? RegularFile.open(path).descriptor else { return nil }
        defer { close(descriptor) }
        // EXIF lives in APP1 before the frame header; both sit in the first kilobytes.
        var bytes = [UInt8](repeating: 0, count: 1 << 20)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 4 else { return nil }
        self.init(bytes: bytes[0..<count])
    }

    init?(bytes: ArraySlice<UInt8>) {
        let b = Array(bytes)
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var offset = 2
        var orientation: Int?
        while offset + 4 <= b.count {
            guard b[offset] == 0xFF else { return nil }
            let marker = b[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill bytes
            let length = Int(b[offset + 2]) << 8 | Int(b[offset + 3])
            guard length >= 2, offset + 2 + length <= b.count else { return nil }
            let segment = b[(offset + 4)..<(offset + 2 + length)]
            switch marker {
            case 0xE1 where orientation == nil:
                orientation = JPEGHeader.exifOrientation(Array(segment))
            case 0xC0, 0xC1, 0xC2, 0xC3:
                let s = Array(segment)
                guard s.count >= 6 else { return nil }
                height = Int(s[1]) << 8 | Int(s[2])
                width = Int(s[3]) << 8 | Int(s[4])
                let components = Int(s[5])
                guard width > 0, height > 0, s.count >= 6 + 3 * components else { return nil }
                profile = ["Baseline", "Sequential", "Progressive", "Lossless"][Int(marker - 0xC0)]
                pixelFormat = JPEGHeader.pixelFormat(
                    components: components, sampling: (0..<components).map { s[7 + 3 * $0] }, precision: Int(s[0]))
                self.orientation = orientation
                return
            case 0xD9, 0xDA:
                return nil  // end of image or scan data before any frame header
            default:
                break
            }
            offset += 2 + length
        }
        return nil
    }

    /// IFD0's Orientation (tag 0x0112) from an APP1 segment that starts `Exif\0\0`.
    static func exifOrientation(_ segment: [UInt8]) -> Int? {
        guard segment.count >= 14, Array(segment[0..<6]) == [0x45, 0x78, 0x69, 0x66, 0, 0] else { return nil }
        let tiff = Array(segment[6...])
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return little ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let high = u16(little ? at + 2 : at), let low = u16(little ? at : at + 2) else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd) else { return nil }
        for index in 0..<entries {
            let entry = ifd + 2 + 12 * index
            guard let tag = u16(entry) else { return nil }
            // A SHORT (type 3), count 1: the value sits in the entry itself.
            if tag == 0x0112, u16(entry + 2) == 3 { return u16(entry + 8) }
        }
        return nil
    }

    static func pixelFormat(components: Int, sampling: [UInt8], precision: Int) -> String? {
        guard precision == 8 else { return nil }
        if components == 1 { return "gray" }
        guard components == 3 else { return nil }
        let (h, v) = (Int(sampling[0] >> 4), Int(sampling[0] & 0x0F))
        guard sampling[1] == 0x11, sampling[2] == 0x11 else { return nil }
        switch (h, v) {
        case (1, 1): return "yuvj444p"
        case (2, 1): return "yuvj422p"
        case (2, 2): return "yuvj420p"
        case (1, 2): return "yuvj440p"
        case (4, 1): return "yuvj411p"
        default: return nil
        }
    }

    /// The facts `MediaReport` decides on, as FFmpeg's image demuxer and decoder give them.
    func mediaProbe(path: String, size: Int) -> MediaProbe {
        var stream = StreamReport(index: 0, type: "video")
        stream.codec = "mjpeg"
        stream.codedWidth = width
        stream.codedHeight = height
        stream.pixelFormat = pixelFormat
        stream.bitDepth = pixelFormat == nil ? nil : 8
        stream.profile = profile
        stream.isDefault = true
        let format = FormatReport(name: "image2", longName: "image2 sequence", size: size, streamCount: 1)
        // FFmpeg's decoder turns EXIF 2-8 into a frame display matrix and passes the tag on as is.
        let matrix = orientation.flatMap(Orientation.init(exif:)).flatMap {
            $0 == .up ? nil : DisplayMatrix($0, width: 0, height: 0)
        }
        let evidence = VideoEvidence(
            streamIndex: 0, frameMatrix: matrix, exifOrientationTag: orientation.map(String.init), isStillImage: true)
        return MediaProbe(path: path, format: format, streams: [stream], video: evidence)
    }
}
