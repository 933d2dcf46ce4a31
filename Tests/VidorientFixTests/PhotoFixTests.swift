import Foundation
import Testing
import VidorientCore
import VidorientFix
import VidorientIO
import VidorientISOBMFF
import VidorientPhoto
import VidorientTestSupport

/// A format family of TestMedia's generated photos: `orient-N` + suffix, for N = 1…8.
struct PhotoFamily: Sendable, CustomTestStringConvertible {
    let suffix: String
    let format: MediaFormat
    /// Bytes a same-length fix may change besides the tag's value: a PNG chunk's CRC.
    let checksumBytes: Int
    var testDescription: String { suffix }

    func name(_ n: Int) -> String { "orient-\(n)\(suffix)" }

    static let all = [
        PhotoFamily(suffix: ".jpg", format: .jpeg, checksumBytes: 0),
        PhotoFamily(suffix: ".png", format: .png, checksumBytes: 4),
        PhotoFamily(suffix: ".webp", format: .webp, checksumBytes: 0),
        PhotoFamily(suffix: "-ii.tif", format: .tiff, checksumBytes: 0),
        PhotoFamily(suffix: "-mm.tif", format: .tiff, checksumBytes: 0),
    ]
}

enum FixScratch {
    static func folder(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vidorient-phototag-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// A PNG chunk written here, independently of the code under test: length, type, data, and the
    /// CRC-32 (bitwise, polynomial 0xEDB88320) of type and data.
    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeAndData = Array(type.utf8) + data
        var crc = UInt32(0xFFFF_FFFF)
        for byte in typeAndData {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        return withUnsafeBytes(of: UInt32(data.count).bigEndian, Array.init) + typeAndData
            + withUnsafeBytes(of: crc.bigEndian, Array.init)
    }

    /// What the photo reader and `PhotoReport` say the file shows, as `inspect` decides.
    static func shown(_ path: String) throws -> Orientation? { PhotoTagFix.shown(try PhotoReader.read(path: path)) }

    /// exiftool's numeric IFD0/XMP Orientation of each file, and its warnings, in one run.
    static func exiftool(_ paths: [String], validate: Bool = false) throws -> [(orientation: Int?, warnings: [String])]
    {
        let result = try run(
            "exiftool", ["-j", "-n", "-Orientation", "-warning", "-a"] + (validate ? ["-validate"] : []) + paths)
        let list = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        return list.map { entry in
            let warnings: [String]
            if let many = entry["Warning"] as? [String] {
                warnings = many
            } else {
                warnings = (entry["Warning"] as? String).map { [$0] } ?? []
            }
            return (entry["Orientation"] as? Int, warnings)
        }
    }

    /// The decoded pixels, by FFmpeg, without applying any orientation: proof the picture is intact.
    static func pixels(_ path: String) throws -> Data {
        let result = try run(
            "ffmpeg", ["-v", "error", "-noautorotate", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        guard result.status == 0, !result.stdout.isEmpty else {
            throw ToolError(message: "ffmpeg cannot decode \(path): \(result.stderr)")
        }
        return result.stdout
    }

    static func partials(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".partial") }
    }
}

@Suite struct PhotoTagFixTests {
    static let toolsPresent = isInstalled("exiftool") && isInstalled("ffmpeg")

    /// Every family × 8 starting orientations × 8 targets. The tag exists, so only its bytes
    /// change (and a PNG CRC): the file keeps its length, the differing bytes lie inside the
    /// planned splices, the reader and exiftool read the target, and the inverse edit gives back
    /// the original byte for byte.
    @Test(
        .enabled(if: toolsPresent), arguments: PhotoFamily.all,
        LargeRounds.tagTargets.compactMap(Orientation.init(exif:)))
    func existingTagChangesOnlyItsBytes(family: PhotoFamily, target: Orientation) throws {
        let folder = try FixScratch.folder("existing")
        defer { try? FileManager.default.removeItem(at: folder) }
        var written: [String] = []
        for start in 1...8 {
            let path = folder.appendingPathComponent(family.name(start)).path
            try FileManager.default.copyItem(atPath: TestMedia.path(family.name(start)), toPath: path)
            let original = try FixScratch.bytes(path)
            let plan = try PhotoTagFix.plan(MemoryBytes(original), format: family.format, target: target)
            #expect(plan.before?.exif == start, "\(family.name(start))")
            #expect(plan.edit.keepsLength)
            #expect(plan.edit.isEmpty == (start == target.exif))
            #expect(plan.places.isEmpty == plan.edit.isEmpty)
            // Odd starts replace the file; even ones write in place.
            let result = try PhotoTagFix.fix(
                path: path, change: .set(target), mode: start % 2 == 0 ? .inPlace : .replace)
            #expect(result.verified == !plan.edit.isEmpty)
            let after = try FixScratch.bytes(path)
            #expect(after.count == original.count)
            let differing = zip(original, after).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
            let ranges = plan.edit.splices.map { Int($0.offset)..<Int($0.offset) + $0.old.count }
            #expect(differing.allSatisfy { offset in ranges.contains { $0.contains(offset) } })
            #expect(differing.count <= (start == target.exif ? 0 : 2 + family.checksumBytes))
            #expect(try FixScratch.shown(path) == target)
            #expect(plan.edit.inverse.applied(to: after) == original)
            written.append(path)
        }
        for (index, read) in try FixScratch.exiftool(written).enumerated() {
            #expect(read.orientation == target.exif, "\(written[index])")
            #expect(read.warnings.isEmpty, "\(written[index]): \(read.warnings)")
        }
        #expect(try FixScratch.partials(folder).isEmpty)
    }

    /// Files without the tag, made with the tools people use.
    struct Untagged: Sendable, CustomTestStringConvertible {
        let name: String
        let format: MediaFormat
        /// A shell command that makes `$OUT` (TestMedia is `$MEDIA`).
        let make: String
        /// What a fix must leave readable elsewhere in the EXIF (offsets that must not move).
        var keeps: (tag: String, value: String)? = nil
        var testDescription: String { name }
    }

    /// `$MEDIA/name` copied with its Orientation removed and other EXIF tags set, which the fix
    /// must keep readable: `Make` is checked after.
    static func orientationRemoved(_ name: String, _ format: MediaFormat, from media: String, also: String = "")
        -> Untagged
    {
        Untagged(
            name: name, format: format,
            make:
                "cp \"$MEDIA/\(media)\" \"$OUT\" && exiftool -q -overwrite_original -Orientation= -Make=Testmaker \(also)\"$OUT\"",
            keeps: ("Make", "Testmaker"))
    }

    /// A 48x32 test pattern, or a 33x21 half-transparent red, drawn by FFmpeg into the path that follows.
    static let testPattern = "ffmpeg -v error -f lavfi -i testsrc=size=48x32:rate=1 -frames:v 1 -update 1"
    static let halfRed = "ffmpeg -v error -f lavfi -i 'color=c=red@0.5:size=33x21,format=rgba' -frames:v 1 -update 1"

    static let untagged = [
        Untagged(name: "jpeg-jfif-no-exif.jpg", format: .jpeg, make: "cp \"$MEDIA/no-exif.jpg\" \"$OUT\""),
        Untagged(
            name: "jpeg-no-jfif-no-exif.jpg", format: .jpeg,
            make: "\(testPattern) \"$OUT\" && exiftool -q -overwrite_original -all= \"$OUT\""),
        orientationRemoved("jpeg-exif-no-orientation.jpg", .jpeg, from: "orient-6.jpg", also: "-Software=x "),
        Untagged(
            name: "png-no-exif.png", format: .png,
            make: "cp \"$MEDIA/orient-6.png\" \"$OUT\" && exiftool -q -overwrite_original -all= \"$OUT\""),
        orientationRemoved("png-exif-no-orientation.png", .png, from: "orient-6.png"),
        Untagged(
            name: "webp-simple-lossy.webp", format: .webp,
            make: "\(testPattern) \"$OUT.png\" && cwebp -quiet \"$OUT.png\" -o \"$OUT\""),
        Untagged(
            name: "webp-simple-lossless-alpha.webp", format: .webp,
            make: "\(halfRed) \"$OUT.png\" && cwebp -quiet -lossless \"$OUT.png\" -o \"$OUT\""),
        Untagged(
            name: "webp-vp8x-no-exif.webp", format: .webp,
            make: "\(halfRed) \"$OUT.png\" && cwebp -quiet \"$OUT.png\" -o \"$OUT\""),
        orientationRemoved("webp-exif-no-orientation.webp", .webp, from: "orient-6.webp"),
        orientationRemoved("tiff-ii-no-orientation.tif", .tiff, from: "orient-6-ii.tif"),
        orientationRemoved("tiff-mm-no-orientation.tif", .tiff, from: "orient-6-mm.tif"),
    ]

    static let insertionTools = toolsPresent && isInstalled("cwebp")

    /// A file without the tag, for every target (`LargeRounds.tagTargets`: three in the test run, all
    /// eight in `.ci/run`'s large rounds): target 1 is already shown (an empty edit); any other gets the smallest insertion, which exiftool reads without a warning, FFmpeg
    /// still decodes to the same pixels, `--in-place` refuses, and the inverse edit undoes.
    @Test(.enabled(if: insertionTools), arguments: untagged)
    func missingTagIsInserted(variant: Untagged) throws {
        let folder = try FixScratch.folder("insert")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent(variant.name).path
        let made = try run(
            "sh", ["-c", "OUT=\"$1\" MEDIA=\"$2\"; \(variant.make)", "sh", source, TestMedia.folder.path])
        try #require(made.status == 0, "\(made.stderr)")
        let original = try FixScratch.bytes(source)
        #expect(try FixScratch.shown(source) == .up)
        let pixels = try FixScratch.pixels(source)
        let warningsBefore = Set(try FixScratch.exiftool([source], validate: true)[0].warnings)

        var written: [String] = [], targets: [Orientation] = []
        for target in LargeRounds.tagTargets.compactMap(Orientation.init(exif:)) {
            let plan = try PhotoTagFix.plan(MemoryBytes(original), format: variant.format, target: target)
            #expect(plan.before == .up)
            guard target != .up else {
                #expect(plan.edit.isEmpty, "target 1 on a file without a tag is already as asked")
                continue
            }
            #expect(!plan.edit.keepsLength)
            let path = folder.appendingPathComponent("\(target.exif)-\(variant.name)").path
            try FileManager.default.copyItem(atPath: source, toPath: path)
            #expect(throws: ISOBMFFError.self) { try PhotoTagFix.fix(path: path, change: .set(target), mode: .inPlace) }
            #expect(try FixScratch.bytes(path) == original, "a refused --in-place writes nothing")
            let result = try PhotoTagFix.fix(path: path, change: .set(target))
            #expect(result.verified)
            #expect(result.sizeChange > 0)
            let after = try FixScratch.bytes(path)
            #expect(after == plan.edit.applied(to: original))
            #expect(plan.edit.inverse.applied(to: after) == original)
            #expect(try FixScratch.shown(path) == target)
            #expect(try FixScratch.pixels(path) == pixels, "the picture is unchanged")
            written.append(path)
            targets.append(target)
        }
        for (index, read) in try FixScratch.exiftool(written, validate: true).enumerated() {
            #expect(read.orientation == targets[index].exif, "\(written[index])")
            // Validation may list what a minimal EXIF lacks; nothing else new may appear.
            let new = Set(read.warnings).subtracting(warningsBefore).filter { !$0.hasPrefix("Missing required") }
            #expect(new.isEmpty, "\(written[index]): \(new)")
        }
        for read in try FixScratch.exiftool(written) { #expect(read.warnings.isEmpty) }
        if let keeps = variant.keeps {
            let result = try run("exiftool", ["-q", "-s3", "-\(keeps.tag)"] + written)
            let values = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").filter {
                !$0.hasPrefix("=")
            }
            #expect(values.count == written.count && values.allSatisfy { $0 == keeps.value }, "\(values)")
        }
        if variant.format == .webp {
            for path in written { #expect(try run("dwebp", ["-quiet", path, "-o", "/dev/null"]).status == 0) }
        }
    }

    /// XMP is kept consistent with EXIF (attribute form), or changed alone when it is the only
    /// statement (no EXIF is inserted then).
    @Test(
        .enabled(if: toolsPresent), arguments: ["jpeg-xmp-conflict.jpg", "jpeg-xmp-only.jpg"],
        [Orientation.up, .rightMirrored])
    func xmpSaysWhatEXIFSays(name: String, target: Orientation) throws {
        let folder = try FixScratch.folder("xmp")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: TestMedia.path(name), toPath: path)
        let original = try FixScratch.bytes(path)
        let result = try PhotoTagFix.fix(path: path, change: .set(target))
        #expect(result.verified)
        #expect(result.sizeChange == 0)
        let evidence = try PhotoReader.read(path: path)
        #expect(!evidence.statements.isEmpty)
        #expect(evidence.statements.allSatisfy { $0.orientation == target }, "\(evidence.statements)")
        #expect(try FixScratch.bytes(path).count == original.count)
        let xmp = try run("exiftool", ["-s3", "-n", "-XMP-tiff:Orientation", path])
        #expect(
            String(decoding: xmp.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                == "\(target.exif)")
    }

    /// The element form of XMP, under another prefix, in a PNG iTXt, with an eXIf beside it.
    @Test(.enabled(if: toolsPresent)) func xmpElementFormUnderAnyPrefixInPNG() throws {
        let folder = try FixScratch.folder("xmp-png")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("x.png").path
        try FileManager.default.copyItem(atPath: TestMedia.path("orient-6.png"), toPath: path)
        let packet = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description xmlns:t="http://ns.adobe.com/tiff/1.0/"><t:Orientation> 6 </t:Orientation>\
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        // An iTXt chunk written here, independently of the code under test, before IEND.
        var bytes = try FixScratch.bytes(path)
        let data = Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array(packet.utf8)
        bytes.insert(contentsOf: FixScratch.pngChunk("iTXt", data), at: bytes.count - 12)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try PhotoReader.read(path: path).statements.filter { $0.kind == .xmp }.first?.rawValue == 6)

        let result = try PhotoTagFix.fix(path: path, change: .set(.down))
        #expect(result.verified)
        #expect(result.places.count == 2, "\(result.places)")
        let after = try FixScratch.bytes(path)
        #expect(after.count == bytes.count)
        // The tag's byte and the XMP digit, and the two chunks' CRCs.
        #expect(zip(bytes, after).filter { $0 != $1 }.count <= 1 + 4 + 1 + 4)
        #expect(try PhotoReader.read(path: path).statements.allSatisfy { $0.orientation == .down })
        #expect(try run("ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"]).status == 0)
    }

    /// ImageMagick's `Raw profile type exif` in a tEXt chunk: its hex digits change with the tag.
    @Test(.enabled(if: toolsPresent)) func rawProfileTextChunkIsKeptConsistent() throws {
        let folder = try FixScratch.folder("raw-profile")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("r.png").path
        var bytes = try FixScratch.bytes(TestMedia.path("orient-1.png"))
        // The TIFF block of orient-5.jpg's EXIF, as ImageMagick writes it: "\nexif\n  <len>\n<hex>\n".
        let jpeg = try FixScratch.bytes(TestMedia.path("orient-5.jpg"))
        let start = try #require(
            jpeg.indices.first { jpeg[$0..<min($0 + 6, jpeg.count)].elementsEqual(Array("Exif\0\0".utf8)) })
        let length = (Int(jpeg[start - 2]) << 8 | Int(jpeg[start - 1])) - 2
        let payload = Array(jpeg[start..<start + length])
        let hex = payload.map { String(format: "%02x", $0) }.joined()
        var lines: [String] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let end = hex.index(index, offsetBy: 72, limitedBy: hex.endIndex) ?? hex.endIndex
            lines.append(String(hex[index..<end]))
            index = end
        }
        let text =
            "\nexif\n\(String(repeating: " ", count: 6))\(payload.count)\n" + lines.joined(separator: "\n") + "\n"
        let data = Array("Raw profile type exif".utf8) + [0] + Array(text.utf8)
        bytes.insert(contentsOf: FixScratch.pngChunk("tEXt", data), at: bytes.count - 12)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let statements = try PhotoReader.read(path: path).statements
        #expect(statements.map(\.rawValue) == [1, 5], "\(statements)")

        let result = try PhotoTagFix.fix(path: path, change: .set(.leftMirrored))
        #expect(result.verified)
        #expect(result.sizeChange == 0)
        #expect(try PhotoReader.read(path: path).statements.allSatisfy { $0.orientation == .leftMirrored })
        #expect(try FixScratch.exiftool([path])[0].orientation == 5)
    }

    /// Bad input: one clear error, nothing written, nothing left beside it.
    @Test(arguments: [
        ("empty.jpg", "empty"), ("random.jpg", "random"), ("truncated.jpg", "truncated-20"),
        ("truncated.png", "truncated-half"),
        ("truncated.webp", "truncated-half"), ("truncated.tif", "truncated-half"), ("loop.tif", "bad-tiff-loop"),
        ("crc.png", "bad-png-no-ihdr"), ("loop.jpg", "exif-loop"), ("short.jpg", "app1-length-1"),
    ])
    func hostileInputIsRefusedAndLeftAlone(name: String, kind: String) throws {
        let folder = try FixScratch.folder("hostile")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        let ext = (name as NSString).pathExtension
        let sample = try FixScratch.bytes(TestMedia.path(ext == "tif" ? "orient-6-mm.tif" : "orient-6.\(ext)"))
        var bytes: [UInt8]
        switch kind {
        case "empty": bytes = []
        case "random":
            var generator = SystemRandomNumberGenerator()
            bytes = [0xFF, 0xD8, 0xFF] + (0..<500).map { _ in UInt8.random(in: 0...255, using: &generator) }
        case "truncated-20": bytes = Array(sample.prefix(20))
        case "truncated-half": bytes = Array(sample.prefix(sample.count / 2))
        case "bad-tiff-loop": bytes = try FixScratch.bytes(TestMedia.path("bad-tiff-loop.tif"))
        case "bad-png-no-ihdr": bytes = try FixScratch.bytes(TestMedia.path("bad-png-no-ihdr.png"))
        case "app1-length-1":
            // An APP1 whose length (1) is less than its own 2 bytes: libjpeg steps over it, exiftool
            // reads no metadata at all, so an orientation written anywhere would not show there.
            bytes = sample
            #expect(bytes[2] == 0xFF && bytes[3] == 0xE1)
            bytes[4] = 0
            bytes[5] = 1
        default:
            // orient-6.jpg's EXIF (big-endian, written by exiftool): IFD0 found by its header.
            bytes = sample
            let tiff =
                try #require(
                    bytes.indices.first { bytes[$0..<min($0 + 6, bytes.count)].elementsEqual(Array("Exif\0\0".utf8)) })
                + 6
            #expect(bytes[tiff] == 0x4D)
            let ifd0 =
                tiff
                + (Int(bytes[tiff + 4]) << 24 | Int(bytes[tiff + 5]) << 16 | Int(bytes[tiff + 6]) << 8
                    | Int(bytes[tiff + 7]))
            let count = Int(bytes[ifd0]) << 8 | Int(bytes[ifd0 + 1])
            switch kind {
            case "exif-loop":
                // IFD0's next link points back at IFD0.
                let link = ifd0 + 2 + 12 * count
                let offset = ifd0 - tiff
                bytes.replaceSubrange(
                    link..<link + 4,
                    with: [
                        UInt8(offset >> 24), UInt8(offset >> 16 & 0xFF), UInt8(offset >> 8 & 0xFF),
                        UInt8(offset & 0xFF),
                    ])
            default: break
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: ISOBMFFError.self) { try PhotoTagFix.fix(path: path, change: .set(.left)) }
        #expect(throws: ISOBMFFError.self) { try PhotoTagFix.fix(path: path, change: .set(.downMirrored)) }
        #expect(try FixScratch.bytes(path) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [name])
    }

    /// An IFD0 Orientation of another type (ASCII here) or with two values: viewers ignore it
    /// (issue 28 item 9), so fix no longer refuses it but rewrites the entry as one SHORT in
    /// its own 12 bytes, which every viewer reads.
    @Test(arguments: ["ascii", "count-2"])
    func anOrientationOfAnotherTypeOrCountBecomesOneShort(kind: String) throws {
        let folder = try FixScratch.folder("retype")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("\(kind).jpg").path
        var bytes = try FixScratch.bytes(TestMedia.path("orient-6.jpg"))
        let tiff =
            try #require(
                bytes.indices.first { bytes[$0..<min($0 + 6, bytes.count)].elementsEqual(Array("Exif\0\0".utf8)) }) + 6
        #expect(bytes[tiff] == 0x4D)
        let ifd0 = tiff + (Int(bytes[tiff + 6]) << 8 | Int(bytes[tiff + 7]))
        let count = Int(bytes[ifd0]) << 8 | Int(bytes[ifd0 + 1])
        let entry = try #require(
            (0..<count).map { ifd0 + 2 + 12 * $0 }.first { bytes[$0] == 0x01 && bytes[$0 + 1] == 0x12 })
        if kind == "ascii" { bytes[entry + 3] = 2 } else { bytes[entry + 7] = 2 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try PhotoReader.read(path: path).statements.isEmpty)
        let result = try PhotoTagFix.fix(path: path, change: .set(.left))
        #expect(result.verified)
        let after = try FixScratch.bytes(path)
        #expect(Array(after[entry..<entry + 10]) == [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8])
        #expect(after.count == bytes.count)
        #expect(try PhotoReader.read(path: path).statements.map(\.orientation) == [.left])
    }

    /// `--preserve-mtime`: the modification and access times stay, for a value change and an insertion.
    @Test(arguments: ["orient-6.jpg", "no-exif.jpg"], [FileWriteMode.replace, .inPlace])
    func preserveModificationTimeKeepsBothTimes(name: String, mode: FileWriteMode) throws {
        let folder = try FixScratch.folder("mtime")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: TestMedia.path(name), toPath: path)
        var times = [
            timespec(tv_sec: 1_000_000_000, tv_nsec: 123_456_789),
            timespec(tv_sec: 1_100_000_000, tv_nsec: 987_654_321),
        ]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let inserting = name == "no-exif.jpg"
        if inserting && mode == .inPlace {
            #expect(throws: ISOBMFFError.self) {
                try PhotoTagFix.fix(path: path, change: .set(.down), mode: mode, preserveModificationTime: true)
            }
            return
        }
        #expect(
            try PhotoTagFix.fix(path: path, change: .set(.down), mode: mode, preserveModificationTime: true).verified)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mtim.tv_sec == 1_100_000_000 && status.st_mtim.tv_nsec == 987_654_321)
        #expect(status.st_atim.tv_sec == 1_000_000_000 && status.st_atim.tv_nsec == 123_456_789)
        // Without the flag the time moves on.
        #expect(try PhotoTagFix.fix(path: path, change: .set(.right), mode: mode).verified)
        #expect(stat(path, &status) == 0)
        #expect(status.st_mtim.tv_sec > 1_100_000_000)
    }

    /// HEIF goes through the same entry point as the tag formats (HEIFOrientationFix does the work:
    /// HEIFOrientationFixTests): orient-6.heic's irot 3 (three quarter turns anticlockwise) becomes 0.
    /// A text chunk with a bad CRC is one readers ignore (png-bad-crc): the fix leaves it as it is
    /// and plans from what is read, rather than a splice whose old CRC is not the stored one (the
    /// photo fuzzer found this: the write was then refused as "changed since planned").
    @Test func aTextChunkWithABadCRCIsLeftAlone() throws {
        let folder = try FixScratch.folder("bad-crc")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("xmp-bad-crc.png").path
        var bytes = try FixScratch.bytes(TestMedia.path("orient-1.png"))
        let packet =
            #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/></rdf:RDF></x:xmpmeta>"#
        var chunk = FixScratch.pngChunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array(packet.utf8))
        chunk[chunk.count - 1] ^= 0xFF
        bytes.insert(contentsOf: chunk, at: bytes.count - 12)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let plan = try PhotoTagFix.plan(MemoryBytes(bytes), format: .png, target: .leftMirrored)
        #expect(plan.edit.matches(bytes))
        let chunkStart = Int64(bytes.count - 12 - chunk.count)
        #expect(plan.edit.splices.allSatisfy { $0.offset < chunkStart || $0.offset >= chunkStart + Int64(chunk.count) })
        #expect(try PhotoTagFix.fix(path: path, change: .set(.leftMirrored)).verified)
        #expect(try PhotoReader.read(path: path).statements.filter { $0.kind == .exif }.first?.rawValue == 5)
    }

    /// A damaged `eXIf` (bad CRC: readers ignore it) is not edited, nor is a second one inserted
    /// beside it: the fix refuses and says why.
    @Test func anEXIfChunkWithABadCRCIsRefused() throws {
        var bytes = try FixScratch.bytes(TestMedia.path("orient-6.png"))
        let type = try #require((4..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual(Array("eXIf".utf8)) })
        let length = bytes[type - 4..<type].reduce(0) { $0 << 8 | Int($1) }
        bytes[type + 4 + length] ^= 0xFF  // the CRC's first byte
        // Readers ignore the damaged chunk, so the file shows 1; asked for 6, the fix must write.
        let error = #expect(throws: PhotoFormatError.self) {
            try PhotoTagFix.plan(MemoryBytes(bytes), format: .png, target: .right)
        }
        #expect(error?.reason.contains("bad crc") == true, "\(String(describing: error))")
    }

    @Test func heifIsPlannedThroughTheSameEntryPoint() throws {
        let edit = try PhotoTagFix.plan(
            MemoryBytes(try FixScratch.bytes(TestMedia.path("orient-6.heic"))), format: .heif(brand: "heic"),
            target: .up)
        #expect(edit.before == .right)
        #expect(edit.after == .up)
        #expect(edit.edit.splices.map(\.old) == [[3]])
        #expect(edit.edit.splices.map(\.new) == [[0]])
    }
}
