import Foundation
import Testing
import VidorientTestSupport

/// Any single input, through any command, within 400 MB of peak memory (issue 28 item 4;
/// docs/hostile-input.md, "Memory bound"). Each file here is a few hundred bytes that claims a
/// picture libjpeg would buffer whole; GNU time measures the run.
@Suite(
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time"),
    .enabled(if: isInstalled("cjpeg"), "needs cjpeg (libjpeg-turbo-progs)"))
struct MemoryBoundTests {
    /// The peak the rule allows, in kilobytes as GNU time's `%M` gives it.
    static let boundKilobytes = 400_000

    /// An 8×8 JPEG made by cjpeg (`-progressive` or not, every component at full resolution,
    /// `-sample 1x1`), its frame header then set to claim `side`×`side` pixels: its scans code
    /// 8×8, so libjpeg warns of their premature end and goes on over the claimed size. An EXIF
    /// APP1 says Orientation 6, so that normalize has a turn to make.
    static func claimingJPEG(in folder: TemporaryFolder, side: Int, progressive: Bool) throws -> [UInt8] {
        let ppm = folder.path("small.ppm")
        let pixels = (0..<(8 * 8 * 3)).map { UInt8(($0 * 30) % 256) }
        try Data(Array("P6 8 8 255\n".utf8) + pixels).write(to: URL(fileURLWithPath: ppm))
        let made = try run("cjpeg", ["-sample", "1x1", "-optimize"] + (progressive ? ["-progressive"] : []) + [ppm])
        try #require(made.status == 0, "\(made.stderr)")
        var bytes = [UInt8](made.stdout)
        let sof: UInt8 = progressive ? 0xC2 : 0xC0
        let frame = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == sof })
        for offset in [frame + 5, frame + 7] {
            bytes[offset] = UInt8(side >> 8)
            bytes[offset + 1] = UInt8(side & 0xFF)
        }
        // "Exif\0\0", then a big-endian TIFF whose IFD0 holds one SHORT: Orientation (0x0112) = 6.
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0,
        ]
        let app1: [UInt8] = [0xFF, 0xE1, 0, UInt8(2 + 6 + tiff.count)] + Array("Exif".utf8) + [0, 0] + tiff
        return Array(bytes[0..<2]) + app1 + bytes[2...]
    }

    /// A RAF (Fujifilm raw) whose embedded preview is `jpeg`: the 16-byte magic, version, camera,
    /// and at 84 the JPEG's offset and length, at 92 a CFA header (one tag: the raw size).
    static func raf(embedding jpeg: [UInt8]) -> [UInt8] {
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] { be16(v >> 16) + be16(v & 0xFFFF) }
        let cfa = be32(1) + be16(0x100) + be16(4) + be16(3000) + be16(4000)
        var header = Array("FUJIFILMCCD-RAW 0201FF383501".utf8) + Array("X-T1".utf8)
        header += [UInt8](repeating: 0, count: 60 - header.count) + Array("0100".utf8)
        header += [UInt8](repeating: 0, count: 84 - header.count)
        let jpegOffset = 0x100, cfaOffset = 0x100 + jpeg.count
        header += be32(jpegOffset) + be32(jpeg.count) + be32(cfaOffset) + be32(cfa.count) + be32(cfaOffset)
        header += be32(cfa.count)
        header += [UInt8](repeating: 0, count: jpegOffset - header.count)
        return header + jpeg + cfa
    }

    static func timed(_ arguments: [String]) throws -> (run: Run, peak: Int) {
        let run = try Run.vidorient(arguments, prefix: ["/usr/bin/time", "-f", "%M"])
        let peak = try #require(run.stderrLines.last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        return (run, peak)
    }

    /// A 600-byte progressive JPEG claiming 16383×16383 (just under the 256-megapixel cap): libjpeg
    /// keeps every coefficient of a progressive file, whatever the DCT scale, and touched 1.57 GB
    /// in 28 s before the bound. Now each command refuses the decode in one line naming the file
    /// and the coefficients, within the bound, and the tag-only readings still answer.
    @Test(arguments: [
        "thumbnail", "inspect --deep", "inspect --content", "raf thumbnail", "normalize", "audit --content",
    ])
    func aProgressiveJPEGClaimingSixteenThousandSquaredStaysBounded(command: String) throws {
        let folder = try TemporaryFolder("memory-progressive")
        defer { folder.remove() }
        let jpeg = try Self.claimingJPEG(in: folder, side: 16383, progressive: true)
        let isRaw = command.hasPrefix("raf")
        let path = folder.path(isRaw ? "bomb.raf" : "bomb.jpg")
        try Data(isRaw ? Self.raf(embedding: jpeg) : jpeg).write(to: URL(fileURLWithPath: path))
        let output = folder.path("out.png")
        let arguments: [String] =
            switch command {
            case "inspect --deep": ["inspect", "--deep", "--json", path]
            case "inspect --content": ["inspect", "--content", "--json", path]
            case "normalize": ["normalize", "--json", path]
            case "audit --content": ["audit", "--content", "--jobs", "2", folder.url.path]
            default: ["thumbnail", path, "-o", output]
            }
        let (run, peak) = try Self.timed(arguments)
        #expect(peak < Self.boundKilobytes, "\(command): \(peak) KB")
        // GNU time's own lines: the peak, and "Command exited with non-zero status 2".
        let lines = run.stderrLines.dropLast().filter { !$0.isEmpty && !$0.hasPrefix("Command exited") }
        switch command {
        case "inspect --deep":
            #expect(run.status == 0 || run.status == 1)
            #expect(run.stdout.contains("coefficients would take 1536 MB"))
        case "audit --content":
            // A finding (content-unreadable, or the engine's absence where the model is not installed).
            #expect(run.status == 1)
            #expect(run.stdout.contains("content-unreadable"))
        default:
            #expect(run.status == 2)
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first?.contains(path) == true)
            // Where the content model is not installed, --content is refused for that first.
            let engineAbsent = command == "inspect --content" && lines.first?.contains("content model") == true
            #expect(engineAbsent || lines.first?.contains("coefficients would take") == true, "\(lines)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    /// A sequential JPEG of the same claim decodes without buffering its coefficients: the
    /// thumbnail is made (DCT-scaled), within the bound; only the lossless transform, which reads
    /// every coefficient, refuses it.
    @Test func aBaselineJPEGClaimingTheSameIsThumbnailedAndNotTransformed() throws {
        let folder = try TemporaryFolder("memory-baseline")
        defer { folder.remove() }
        let path = folder.path("big.jpg")
        try Data(try Self.claimingJPEG(in: folder, side: 16383, progressive: false))
            .write(to: URL(fileURLWithPath: path))
        let (thumbnail, thumbnailPeak) = try Self.timed(["thumbnail", path, "-o", folder.path("out.png")])
        #expect(thumbnailPeak < Self.boundKilobytes)
        #expect(thumbnail.status == 0, "\(thumbnail.stderr)")
        let (normalize, normalizePeak) = try Self.timed(["normalize", "--json", path])
        #expect(normalizePeak < Self.boundKilobytes)
        #expect(normalize.status == 2)
        #expect(normalize.stderr.contains("coefficients would take"), "\(normalize.stderr)")
    }

    /// A 750 KB PNG of 16000x16000 black pixels (each row deflated to almost nothing) whose eXIf
    /// says Orientation 6: FFmpeg decoded it whole for a thumbnail (806 MB, 8.6 s) and normalize
    /// decoded, turned and re-encoded it (2.35 GB, 250 s). Now refused from its header, in one
    /// line, by every command.
    @Test(arguments: ["thumbnail", "inspect --deep", "normalize"])
    func aPNGClaimingSixteenThousandSquaredStaysBounded(command: String) throws {
        let folder = try TemporaryFolder("memory-png")
        defer { folder.remove() }
        let path = folder.path("bomb.png")
        let script = """
            import struct, sys, zlib
            def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
            side = 16000
            ihdr = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
            exif = b"MM\\0*" + struct.pack(">IHHHIHH", 8, 1, 0x0112, 3, 1, 6, 0) + b"\\0\\0\\0\\0"
            packer, row, idat = zlib.compressobj(1), bytes(1 + 3 * side), []
            for _ in range(side): idat.append(packer.compress(row))
            idat.append(packer.flush())
            png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", ihdr) + chunk(b"eXIf", exif)
            open(sys.argv[1], "wb").write(png + chunk(b"IDAT", b"".join(idat)) + chunk(b"IEND", b""))
            """
        let made = try run("python3", ["-c", script, path])
        try #require(made.status == 0, "\(made.stderr)")
        let arguments: [String] =
            switch command {
            case "inspect --deep": ["inspect", "--deep", "--json", path]
            case "normalize": ["normalize", "--json", path]
            default: ["thumbnail", path, "-o", folder.path("out.png")]
            }
        let (run, peak) = try Self.timed(arguments)
        #expect(peak < Self.boundKilobytes, "\(command): \(peak) KB")
        let lines = run.stderrLines.dropLast().filter { !$0.isEmpty && !$0.hasPrefix("Command exited") }
        if command == "inspect --deep" {
            #expect(run.stdout.contains("16000x16000 pixels"), "\(run.stdout)")
        } else {
            #expect(run.status == 2)
            #expect(lines.count == 1 && lines.first?.contains(path) == true, "\(lines)")
            #expect(lines.first?.contains("16000x16000 pixels") == true, "\(lines)")
        }
    }

    /// A 1,828-byte AVIF of 12000x12000 black pixels, made by `ffmpeg -f lavfi -i
    /// color=black:s=12000x12000 -frames:v 1 -pix_fmt rgb24 black.png` and `avifenc -s 10 -j 1
    /// --min 40 --max 63 black.png` (libavif 0.11, aom 3.6; 33 s to encode, so its bytes are here).
    static let blackAVIF = Array(Data(base64Encoded: blackAVIFBase64.joined())!)

    static let blackAVIFBase64 = [
        "AAAAIGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZk1BMUEAAADybWV0YQAAAAAAAAAoaGRscgAAAAAAAAAAcGljdAAAAAAAAAAA",
        "AAAAAGxpYmF2aWYAAAAADnBpdG0AAAAAAAEAAAAeaWxvYwAAAABEAAABAAEAAAABAAABGgAABgoAAAAoaWluZgAAAAAAAQAA",
        "ABppbmZlAgAAAAABAABhdjAxQ29sb3IAAAAAamlwcnAAAABLaXBjbwAAABRpc3BlAAAAAAAALuAAAC7gAAAAEHBpeGkAAAAA",
        "AwgICAAAAAxhdjFDgT8AAAAAABNjb2xybmNseAABAA0ABoAAAAAXaXBtYQAAAAAAAAABAAEEAQKDBAAABhJtZGF0EgAKCz/3",
        "bt+7f4QENBpAMvgLEAzALbbbRAAAX/ZYqsjFAMl9p+f9rdn5Ygl6Uo7CtrN+Nisc41kld/+jhh3zi0VGxt6vwow2Zcuj4RVQ",
        "ftQuxBm2wKgbmu8ViWOzHLhe24EwCF6M+768UZT9y0fZTTEkTykxGS8s6Zw5uF/2WKrIxQDJfafn/a3Z+WIJelKOwrazfjYr",
        "HONZJXf/o4Yd84tFRsber8KMNmXLo+EVUH7ULsQZtsCoG5rvFYljsxy4XtuBMAhejPu+vFGU/ctH2U0xJE8pMRkvLOmcObhf",
        "9liqyMUAyX2n5/2t2fliCXpSjsK2s342KxzjWSV3/6OGHfOLRUbG3q/CjDZly6PhFVB+1C7EGbbAqBua7xWJY7McuF7bgTAI",
        "Xoz7vrxRlP3LR9lNMSRPKTEZLyzpnDm4W/ZYqsjFAMl9p+f9rdn5Ygl6Uo7CtrN+Nisc41kld/+jhh3zi0VGxt6vwow2Zcy5",
        "4GFSKdNjLavbRqvv/oVGKo0vRl8JY6FDH29nBwvpJLLHFXEUIsWIJcdI83BAX/ZYqsjFAMl9p+f9rdn5Ygl6Uo7CtrN+Nisc",
        "41kld/+jhh3zi0VGxt6vwow2Zcuj4RVQftQuxBm2wKgbmu8ViWOzHLhe24EwCF6M+768UZT9y0fZTTEkTykxGS8s6Zw5uF/2",
        "WKrIxQDJfafn/a3Z+WIJelKOwrazfjYrHONZJXf/o4Yd84tFRsber8KMNmXLo+EVUH7ULsQZtsCoG5rvFYljsxy4XtuBMAhe",
        "jPu+vFGU/ctH2U0xJE8pMRkvLOmcObhf9liqyMUAyX2n5/2t2fliCXpSjsK2s342KxzjWSV3/6OGHfOLRUbG3q/CjDZly6Ph",
        "FVB+1C7EGbbAqBua7xWJY7McuF7bgTAIXoz7vrxRlP3LR9lNMSRPKTEZLyzpnDm4W/ZYqsjFAMl9p+f9rdn5Ygl6Uo7CtrN+",
        "Nisc41kld/+jhh3zi0VGxt6vwow2Zcy54GFSKdNjLavbRqvv/oVGKo0vRl8JY6FDH29nBwvpJLLHFXEUIsWIJcdI83BAX/ZY",
        "qsjFAMl9p+f9rdn5Ygl6Uo7CtrN+Nisc41kld/+jhh3zi0VGxt6vwow2Zcuj4RVQftQuxBm2wKgbmu8ViWOzHLhe24EwCF6M",
        "+768UZT9y0fZTTEkTykxGS8s6Zw5uF/2WKrIxQDJfafn/a3Z+WIJelKOwrazfjYrHONZJXf/o4Yd84tFRsber8KMNmXLo+EV",
        "UH7ULsQZtsCoG5rvFYljsxy4XtuBMAhejPu+vFGU/ctH2U0xJE8pMRkvLOmcObhf9liqyMUAyX2n5/2t2fliCXpSjsK2s342",
        "KxzjWSV3/6OGHfOLRUbG3q/CjDZly6PhFVB+1C7EGbbAqBua7xWJY7McuF7bgTAIXoz7vrxRlP3LR9lNMSRPKTEZLyzpnDm4",
        "W/ZYqsjFAMl9p+f9rdn5Ygl6Uo7CtrN+Nisc41kld/+jhh3zi0VGxt6vwow2Zcy54GFSKdNjLavbRqvv/oVGKo0vRl8JY6FD",
        "H29nBwvpJLLHFXEUIsWIJcdI83BAW/ZYqsjFAMl9p+f9rdn5Ygl6Uo7CtrN+Nisc41kld/+jhh3zi0VGxt6vwow2Zcuj4RVQ",
        "ftQuxBm2wKgbmu8ViWOzHLhe24EwCF6M+768UZT9y0fZTTEkTykxGeOAW/ZYqsjFAMl9p+f9rdn5Ygl6Uo7CtrN+Nisc41kl",
        "d/+jhh3zi0VGxt6vwow2Zcuj4RVQftQuxBm2wKgbmu8ViWOzHLhe24EwCF6M+768UZT9y0fZTTEkTykxGeOAW/ZYqsjFAMl9",
        "p+f9rdn5Ygl6Uo7CtrN+Nisc41kld/+jhh3zi0VGxt6vwow2Zcuj4RVQftQuxBm2wKgbmu8ViWOzHLhe24EwCF6M+768UZT9",
        "y0fZTTEkTykxGeOA9liqyMUAyX2n5/2t2fliCXpSjsK2s342KxzjWSV3/6OGHfOLRUbG3q/CjDZlzLngYVIp02Mtq9tGq+/+",
        "hUYqjS9GXwljoUMfb2cHC+kksscVcRQixYhxgA==",
    ]

    /// A HEIF-family file whose `ispe` claims a picture too large to decode, in one line naming
    /// the file and the claimed size, by `thumbnail` and by `inspect --content`:
    ///
    /// - `black.avif` (12000x12000): libheif decoded it whole, 1.8 GB and 15 s. Now refused from
    ///   its `ispe`.
    /// - `clap.heic` (`ispe` 4294967295x4294967295, a clean aperture keeping 100x100): the crop
    ///   passed the size check, and the decode's memory estimate (the whole picture's pixels times
    ///   its bytes a pixel) overflowed and trapped (SIGILL). Now refused for the whole picture's size.
    struct HugeHEIF: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let claim: String
        var testDescription: String { name }

        static let all = [
            HugeHEIF(name: "black.avif", bytes: MemoryBoundTests.blackAVIF, claim: "12000x12000 pixels"),
            HugeHEIF(
                name: "clap.heic", bytes: Array(Data(base64Encoded: MemoryBoundTests.hugeCleanApertureHEIF)!),
                claim: "4294967295x4294967295 pixels"),
        ]
    }

    @Test(arguments: HugeHEIF.all, ["thumbnail", "inspect --content"])
    func aHEIFClaimingAHugePictureIsRefused(file: HugeHEIF, command: String) throws {
        let folder = try TemporaryFolder("memory-heif")
        defer { folder.remove() }
        let path = folder.path(file.name)
        try Data(file.bytes).write(to: URL(fileURLWithPath: path))
        let arguments =
            command == "thumbnail"
            ? ["thumbnail", path, "-o", folder.path("out.png")] : ["inspect", "--content", "--json", path]
        let (run, peak) = try Self.timed(arguments)
        #expect(peak < Self.boundKilobytes, "\(command): \(peak) KB")
        let lines = run.stderrLines.dropLast().filter { !$0.isEmpty && !$0.hasPrefix("Command exited") }
        #expect(run.status == 2, "\(lines)")
        #expect(lines.count == 1 && lines.first?.contains(path) == true, "\(lines)")
        let engineAbsent = command == "inspect --content" && lines.first?.contains("content model") == true
        #expect(engineAbsent || lines.first?.contains(file.claim) == true, "\(lines)")
    }

    /// One hvc1 item (its `hvcC` and data a stub), `ispe` 4294967295x4294967295, `clap` 100x100
    /// (made by a short script: boxes as ISO/IEC 23008-12 lays them out).
    static let hugeCleanApertureHEIF =
        "AAAAGGZ0eXBoZWljAAAAAG1pZjFoZWljAAAA/W1ldGEAAAAAAAAAIWhkbHIAAAAAAAAAAHBpY3QAAAAAAAAAAAAAAAAAAAAADnBpdG0AAAAAAAEAAAAjaWluZgAAAAAAAQAAABVpbmZlAgAAAAABAABodmMxAAAAAB5pbG9jAAAAAEQAAAEAAQAAAAEAAAEdAAAAFAAAAIFpcHJwAAAAY2lwY28AAAAUaXNwZQAAAAD//////////wAAAB9odmNDAQFgAAAAAAAAAAAAAPAA/P34+AAADwAAAAAoY2xhcAAAAGQAAAABAAAAZAAAAAEAAAAAAAAAAQAAAAAAAAABAAAAFmlwbWEAAAAAAAAAAQABA4ECAwAAABxtZGF0AAAAECYBr6+vr6+vr6+vr6+vr68="

    /// A folder of photos thumbnailed by many workers stays under 300 MB however many work at
    /// once (issue 32): each decode reserves its memory from one budget first
    /// (`MemoryBudget.decoding`) and waits while it is taken. Sixteen copies of a phone AVIF,
    /// each decoded whole by libheif (about 40 MB a decode), at `--jobs 16`: 324 MB before.
    @Test(.enabled(if: SharedMedia.isPresent, "needs ../shared/media"))
    func aFolderOfPhotosAtManyJobsStaysUnderTheBudget() throws {
        let folder = try TemporaryFolder("memory-budget")
        defer { folder.remove() }
        let photos = folder.path("photos")
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        for index in 0..<16 {
            _ = try folder.copy(SharedMedia.path("8bit-sRGB.avif"), as: "photos/\(index).avif")
        }
        let (run, peak) = try Self.timed([
            "thumbnail", photos, "--out-dir", folder.path("out"), "--quiet", "--jobs", "16",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("out")).count == 16)
        #expect(peak < 300_000, "\(peak) KB")
    }

    /// Sixteen 12 MP AVIFs (4032x3024, a busy test picture) at `--jobs 16`: 381-472 MB before, though
    /// the budget let one decode at a time. Each decode's buffers of tens of megabytes were kept,
    /// once freed, in the heap of the thread that used them (glibc raises its mmap threshold to
    /// the largest block freed); now every block of 1 MiB or more is unmapped when freed
    /// (`System.mapLargeBlocks`), and the batch holds what its jobs reserve (about 200 MB: two
    /// decodes at once, 64 MB each, and the process).
    @Test(.enabled(if: isInstalled("ffmpeg") && isInstalled("heif-enc")))
    func twelveMegapixelAVIFsAtManyJobsStayUnderTheBudget() throws {
        let folder = try TemporaryFolder("memory-avif-12mp")
        defer { folder.remove() }
        let png = folder.path("picture.png"), avif = folder.path("picture.avif")
        let photos = folder.path("photos")
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        let made = try run(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=4032x3024:rate=1", "-frames:v", "1", png])
        #expect(made.status == 0, "\(made.stderr)")
        let encoded = try run("heif-enc", ["-A", "-q", "30", png, "-o", avif])
        #expect(encoded.status == 0, "\(encoded.stderr)")
        for index in 0..<16 {
            try FileManager.default.linkItem(atPath: avif, toPath: "\(photos)/\(index).avif")
        }
        let (thumbnails, peak) = try Self.timed([
            "thumbnail", photos, "--out-dir", folder.path("out"), "--quiet", "--jobs", "16",
        ])
        #expect(thumbnails.status == 0, "\(thumbnails.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("out")).count == 16)
        #expect(peak < 300_000, "\(peak) KB")
    }
}
