import Foundation
import Testing
import VidorientTestSupport

/// Valid photos that could not be thumbnailed or judged (issue 28 item 11): a CMYK or YCCK JPEG,
/// an animated WebP.
@Suite(.enabled(if: isInstalled("python3") && isInstalled("ffmpeg"), "needs python3 and ffmpeg"))
struct PhotoKindsTests {
    /// A 64×48 YCCK JPEG written by libjpeg-turbo itself (`tjCompress2` from inverted CMYK, as
    /// Photoshop stores it, through python's ctypes): the top half red, the bottom half blue.
    static func ycckJPEG(_ path: String) throws {
        let script = """
            import ctypes, sys
            tj = ctypes.CDLL("libturbojpeg.so.0")
            tj.tjInitCompress.restype = ctypes.c_void_p
            handle = ctypes.c_void_p(tj.tjInitCompress())
            red, blue = bytes([255, 0, 0, 255]), bytes([0, 0, 255, 255])
            pixels = bytearray(b"".join((red if y < 24 else blue) * 64 for y in range(48)))
            out, size = ctypes.POINTER(ctypes.c_ubyte)(), ctypes.c_ulong(0)
            buffer = (ctypes.c_ubyte * len(pixels)).from_buffer(pixels)
            # TJPF_CMYK = 11 (compressed as YCCK), TJSAMP_444 = 0, quality 95
            if tj.tjCompress2(handle, buffer, 64, 0, 48, 11, ctypes.byref(out), ctypes.byref(size), 0, 95, 0):
                sys.exit("tjCompress2 failed")
            open(sys.argv[1], "wb").write(ctypes.string_at(out, size.value))
            """
        let made = try run("python3", ["-c", script, path])
        try #require(made.status == 0, "\(made.stderr)")
    }

    /// Refused before ("unsupported color conversion request"), now thumbnailed in RGB: R = C·K/255.
    @Test func aYCCKJPEGIsThumbnailedInRGB() throws {
        let folder = try TemporaryFolder("photo-kinds-cmyk")
        defer { folder.remove() }
        let path = folder.path("ycck.jpg")
        try Self.ycckJPEG(path)
        let output = folder.path("out.png")
        let run = try Run.vidorient(["thumbnail", path, "-o", output, "--width", "64"])
        #expect(run.status == 0, "\(run.stderr)")
        let picture = try DecodedRGB(decoding: output)
        #expect(picture.width == 64 && picture.height == 48)
        func pixel(_ x: Int, _ y: Int) -> [Int] {
            let at = 3 * (y * picture.width + x)
            return picture.pixels[at..<(at + 3)].map(Int.init)
        }
        for (x, y, expected) in [(32, 8, [255, 0, 0]), (32, 40, [0, 0, 255])] {
            let got = pixel(x, y)
            #expect(zip(got, expected).allSatisfy { abs($0 - $1) <= 12 }, "(\(x), \(y)): \(got)")
        }
        let deep = try Run.vidorient(["inspect", "--deep", "--json", path])
        #expect(deep.status == 0)
        #expect(!deep.stdout.contains("first-frame-unreadable"), "\(deep.stdout)")
    }

    /// A two-frame animated WebP made by img2webp (webp's tools): the first frame red, the second
    /// blue. FFmpeg's WebP decoder reads no animation ("image data not found"), so the thumbnail
    /// and the judge refused it; libwebp's animation decoder gives the first frame.
    @Test(.enabled(if: isInstalled("img2webp"), "needs img2webp (webp)"))
    func anAnimatedWebPIsThumbnailedFromItsFirstFrame() throws {
        let folder = try TemporaryFolder("photo-kinds-animated")
        defer { folder.remove() }
        for (name, colour) in [("red", "red"), ("blue", "blue")] {
            let made = try run(
                "ffmpeg",
                [
                    "-v", "error", "-f", "lavfi", "-i", "color=\(colour):size=64x48", "-frames:v", "1",
                    folder.path("\(name).png"),
                ])
            try #require(made.status == 0, "\(made.stderr)")
        }
        let path = folder.path("animated.webp")
        let made = try run(
            "img2webp", ["-loop", "0", "-d", "100", folder.path("red.png"), folder.path("blue.png"), "-o", path])
        try #require(made.status == 0, "\(made.stderr)")
        let output = folder.path("out.png")
        let thumbnail = try Run.vidorient(["thumbnail", path, "-o", output, "--width", "64"])
        #expect(thumbnail.status == 0, "\(thumbnail.stderr)")
        let picture = try DecodedRGB(decoding: output)
        #expect(picture.width == 64 && picture.height == 48)
        let centre = picture.pixels[(3 * (24 * 64 + 32))..<(3 * (24 * 64 + 32) + 3)].map(Int.init)
        #expect(zip(centre, [255, 0, 0]).allSatisfy { abs($0 - $1) <= 12 }, "\(centre)")

        // The canvas is in the VP8X chunk (24-bit width and height minus one, at 24 and 27): one
        // claiming 16383x16383 is refused before libwebp allocates two 1 GB canvases.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(String(decoding: bytes[12..<16], as: UTF8.self) == "VP8X")
        for offset in [24, 27] { bytes.replaceSubrange(offset..<(offset + 3), with: [0xFE, 0x3F, 0]) }
        let claiming = folder.path("claiming.webp")
        try Data(bytes).write(to: URL(fileURLWithPath: claiming))
        let refused = try Run.vidorient(["thumbnail", claiming, "-o", folder.path("claiming.png")])
        #expect(refused.status == 2)
        #expect(refused.stderrLines.count == 1 && refused.stderr.contains(claiming), "\(refused.stderr)")
        #expect(refused.stderr.contains("16383x16383 canvas"))
    }

    /// A still WebP is decoded by libwebp at the size asked (no FFmpeg), lossy and lossless alike,
    /// its transparency flattened onto black as an animation's first frame is: a 64x48 picture,
    /// red on the left, transparent on the right.
    @Test(.enabled(if: isInstalled("cwebp"), "needs cwebp (webp)"))
    func aStillWebPIsShrunkByLibwebpAndItsTransparencyIsBlack() throws {
        let folder = try TemporaryFolder("photo-kinds-webp")
        defer { folder.remove() }
        let png = folder.path("half.png")
        let made = try run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "color=red:size=64x48,format=rgba", "-vf",
                "geq=r=255:g=0:b=0:a='if(lt(X,32),255,0)'", "-frames:v", "1", png,
            ])
        try #require(made.status == 0, "\(made.stderr)")
        for (name, options) in [("lossy", ["-q", "90"]), ("lossless", ["-lossless"])] {
            let webp = folder.path("\(name).webp")
            let encoded = try run("cwebp", ["-quiet"] + options + [png, "-o", webp])
            try #require(encoded.status == 0, "\(encoded.stderr)")
            let output = folder.path("\(name).png")
            let thumbnail = try Run.vidorient(["thumbnail", webp, "-o", output, "--width", "32"])
            #expect(thumbnail.status == 0, "\(thumbnail.stderr)")
            let picture = try DecodedRGB(decoding: output)
            try #require(picture.width == 32 && picture.height == 24, "\(name)")
            func pixel(_ x: Int, _ y: Int) -> [Int] {
                picture.pixels[(3 * (y * 32 + x))..<(3 * (y * 32 + x) + 3)].map(Int.init)
            }
            #expect(zip(pixel(6, 12), [255, 0, 0]).allSatisfy { abs($0 - $1) <= 12 }, "\(name): \(pixel(6, 12))")
            #expect(pixel(26, 12).allSatisfy { $0 <= 4 }, "\(name): \(pixel(26, 12))")
        }
    }

    /// PNG's colour types and depths, decoded by libpng (no FFmpeg): each file made here with the
    /// RGB a viewer shows it as (transparency on black), and the thumbnail at the stored size must
    /// be that, within a level (16 bits round to 8; the alpha blend rounds).
    @Test func everyKindOfPNGIsDecodedAsItShows() throws {
        let folder = try TemporaryFolder("photo-kinds-png")
        defer { folder.remove() }
        let made = try run("python3", ["-c", Self.pngKinds, folder.path])
        try #require(made.status == 0, "\(made.stderr)")
        let kinds = String(decoding: made.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(kinds.count == 9, "\(kinds)")
        for kind in kinds {
            let output = folder.path("\(kind)-out.png")
            let thumbnail = try Run.vidorient(["thumbnail", folder.path("\(kind).png"), "-o", output, "--width", "7"])
            #expect(thumbnail.status == 0, "\(kind): \(thumbnail.stderr)")
            let picture = try DecodedRGB(decoding: output)
            let expected = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.path("\(kind).rgb"))))
            try #require(picture.width == 7 && picture.height == 5, "\(kind)")
            let worst = zip(picture.pixels, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1, "\(kind): \(Array(picture.pixels.prefix(12))) against \(Array(expected.prefix(12)))")
        }
    }

    /// Writes 7x5 PNGs of each kind (NAME.png) and the RGB each shows (NAME.rgb), and prints the names.
    static let pngKinds = """
        import struct, sys, zlib
        W, H, out = 7, 5, sys.argv[1] + "/"
        def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
        PLTE = [(i * 16, 255 - i * 16, (i * 97) % 256) for i in range(16)]
        TRNS = [255, 255, 255, 0, 255, 128] + [255] * 10
        def write(name, ctype, depth, px, interlace=0):
            def row(xs, y):
                samples = [s for x in xs for s in px(x, y)]
                if depth == 16: return b"".join(struct.pack(">H", s) for s in samples)
                if depth == 8: return bytes(samples)
                bits = "".join(format(s, "0%db" % depth) for s in samples)
                bits += "0" * (-len(bits) % 8)
                return bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
            raw = b""
            passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            for x0, y0, dx, dy in (passes if interlace else [(0, 0, 1, 1)]):
                xs = list(range(x0, W, dx))
                if xs: raw += b"".join(b"\\0" + row(xs, y) for y in range(y0, H, dy))
            body = chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, depth, ctype, 0, 0, interlace))
            if ctype == 3:
                body += chunk(b"PLTE", bytes(c for rgb in PLTE for c in rgb)) + chunk(b"tRNS", bytes(TRNS))
            body += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
            open(out + name + ".png", "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + body)
            shown = []
            for y in range(H):
                for x in range(W):
                    s = px(x, y)
                    if depth == 16: s = [round(v / 257) for v in s]
                    if ctype == 3: s = list(PLTE[s[0]]) + [TRNS[s[0]]]
                    if ctype in (0, 4): s = [s[0]] * 3 + list(s[1:])
                    if depth == 1 and ctype == 0: s = [v * 255 for v in s]
                    alpha = s[3] if len(s) > 3 else 255
                    shown += [round(v * alpha / 255) for v in s[:3]]
            open(out + name + ".rgb", "wb").write(bytes(shown))
            print(name)
        write("grey-1", 0, 1, lambda x, y: [(x + y) % 2])
        write("grey-8", 0, 8, lambda x, y: [(x * 30 + y * 7) % 256])
        write("rgb-8", 2, 8, lambda x, y: [x * 30, y * 50, (x + y) * 20])
        write("rgb-16", 2, 16, lambda x, y: [x * 9000, y * 13000, 65535 - x * y * 1000])
        write("palette-4", 3, 4, lambda x, y: [(x + 2 * y) % 16])
        write("grey-alpha-8", 4, 8, lambda x, y: [200 - x * 20, (x * 40 + y * 10) % 256])
        write("rgba-16-interlaced", 6, 16, lambda x, y: [x * 9000, y * 13000, 40000, (x * 9000 + y * 3000) % 65536], 1)
        write("rgb-8-interlaced", 2, 8, lambda x, y: [x * 30, y * 50, (x + y) * 20], 1)
        write("palette-4-interlaced", 3, 4, lambda x, y: [(3 * x + y) % 16], 1)
        """
}
