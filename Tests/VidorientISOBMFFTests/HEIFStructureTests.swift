import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientTestSupport

/// The generated HEIF files: what the reader sees must be how they were built (manifest.json).
@Suite struct HEIFTestMediaTests {
    @Test func everyHEIFFileIsInTheTable() {
        #expect(TestMedia.heif.count == 20)
    }

    @Test(arguments: TestMedia.heif)
    func transformsInIPMAOrderGiveTheManifestOrientation(entry: TestMedia.Entry) throws {
        let heif = try HEIFStructure(path: entry.path)
        let number = try #require(entry.exifOrientation)
        let expected = try #require(Orientation(exif: number))
        #expect(heif.orientation == expected)
        // irot then imir, as written: exactly Core's table for this orientation.
        let table = expected.heif
        var transforms: [HEIFItemTransform] = []
        if table.irot != 0 { transforms.append(.rotation(anticlockwiseQuarterTurns: table.irot)) }
        if let axis = table.imir { transforms.append(.mirror(axis: axis)) }
        let evidence = heif.evidence
        #expect(evidence.transforms == transforms)
        #expect(heif.storedSize?.width == entry.storedWidth && heif.storedSize?.height == entry.storedHeight)
        #expect(evidence.tileCodec == (entry.container == "heic" ? "hevc" : "av1"))
        #expect(heif.majorBrand == (entry.container == "heic" ? "heic" : "avif"))
        #expect(heif.bitDepth == 8)
        #expect(evidence.metaAfterMediaData == (entry.name == "heic-meta-last.heic"))
        #expect(evidence.colourType == nil || ["nclx", "prof", "rICC"].contains(evidence.colourType!))
    }

    /// libheif's own reading of the same files: the primary item's id and displayed size.
    @Test(.enabled(if: isInstalled("heif-info")), arguments: TestMedia.heif)
    func primaryItemAgreesWithHeifInfo(entry: TestMedia.Entry) throws {
        let heif = try HEIFStructure(path: entry.path)
        let result = try run("heif-info", [entry.path])
        let text = String(decoding: result.stdout, as: UTF8.self)
        let stored = try #require(heif.storedSize)
        let display = try #require(heif.orientation).displaySize(width: stored.width, height: stored.height)
        #expect(
            text.contains("image: \(display.width)x\(display.height) (id=\(heif.primaryItemID)), primary"), "\(text)")
    }

    /// The axis of `imir`, proved against libheif: for all eight orientations, a file whose
    /// stored pixels are the inverse of the orientation and whose irot/imir are Core's
    /// `Orientation.heif` must come out of heif-convert (which applies irot and imir) upright.
    @Test(.enabled(if: isInstalled("heif-convert") && isInstalled("ffmpeg")), arguments: 1...8, ["heic", "avif"])
    func libheifShowsCoresTransformsUpright(orientation: Int, container: String) throws {
        let path = TestMedia.path("orient-\(orientation).\(container)")
        let heif = try HEIFStructure(path: path)
        let table = try #require(Orientation(exif: orientation)).heif
        let rotations = heif.evidence.transforms.compactMap { if case .rotation(let n) = $0 { n } else { nil } }
        let mirrors = heif.evidence.transforms.compactMap { if case .mirror(let axis) = $0 { axis } else { nil } }
        #expect(rotations == (table.irot == 0 ? [] : [table.irot]))
        #expect(mirrors == (table.imir.map { [$0] } ?? []))
        let folder = try TemporaryFolder("heif-convert")
        defer { folder.remove() }
        let png = folder.path("out.png")
        let converted = try run("heif-convert", [path, png])
        #expect(converted.status == 0, "\(converted.stderr)")
        let picture = try PPM(decoding: png)
        #expect(picture.width == 160 && picture.height == 96)
        #expect(picture.quadrants == [["red", "green"], ["blue", "white"]])
    }

    @Test func exifInsideIsInformativeOnly() throws {
        let path = TestMedia.path("heic-exif-conflict.heic")
        let file = try FileBytes(path: path)
        let heif = try HEIFStructure(file)
        #expect(heif.orientation == .right)
        let exif = try #require(try heif.exifTIFF(in: file))
        #expect(exif.bytes.starts(with: [0x4D, 0x4D, 0, 0x2A]) || exif.bytes.starts(with: [0x49, 0x49, 0x2A, 0]))
        #expect(tiffOrientation(exif.bytes) == 8)
        // The offset is where those bytes are in the file.
        let offset = try #require(exif.offset)
        #expect(try file.read(at: offset, count: exif.bytes.count) == exif.bytes)
        let exifItem = try #require(heif.items.first { $0.type == "Exif" })
        #expect(heif.referenced(from: exifItem.id, type: "cdsc") == [heif.primaryItemID])
        #expect(try heif.xmp(in: file) == nil)
        #expect(
            try HEIFStructure(path: TestMedia.path("orient-6.heic")).exifTIFF(
                in: FileBytes(path: TestMedia.path("orient-6.heic"))) == nil)
    }

    @Test func metaAfterMediaDataReadsTheSamePicture() throws {
        let first = try FileBytes(path: TestMedia.path("orient-6.heic"))
        let last = try FileBytes(path: TestMedia.path("heic-meta-last.heic"))
        let a = try HEIFStructure(first), b = try HEIFStructure(last)
        #expect(!a.metaAfterMediaData && b.metaAfterMediaData)
        #expect(b.topLevelBoxes.map(\.type) == ["ftyp", "mdat", "meta"])
        #expect(a.evidence.transforms == b.evidence.transforms)
        for item in a.items {
            #expect(try a.data(of: item.id, in: first) == b.data(of: item.id, in: last))
        }
    }

    @Test func badHEIFFilesThrowAReason() throws {
        let truncated = try #require(throws: ISOBMFFError.self) {
            try HEIFStructure(path: TestMedia.path("bad-meta-truncated.heic"))
        }
        #expect(truncated.reason.contains("'meta' box at"), "\(truncated.reason)")
        // An extent past the end is a cut file (issue 24): read, and said (`truncation`).
        let pastEnd = try HEIFStructure(path: TestMedia.path("bad-iloc-past-end.heic"))
        #expect(pastEnd.truncation?.contains("runs past the end of the file") == true, "\(pastEnd.truncation ?? "nil")")
    }

    @Test func videosAreNotHEIF() throws {
        let error = try #require(throws: ISOBMFFError.self) { try HEIFStructure(path: TestMedia.path("orient-6.mp4")) }
        #expect(error.reason == "no 'meta' box")
    }
}

/// Real phone files beside the project (facts in ../shared/media/README.md and heif-info).
@Suite(.enabled(if: SharedMedia.isPresent, "../shared/media is absent"))
struct HEIFSharedMediaTests {
    @Test func iPhone7GridWithThumbnail() throws {
        let file = try FileBytes(path: SharedMedia.path("IMG_2682.heic"))
        let heif = try HEIFStructure(file)
        let evidence = heif.evidence
        #expect(evidence.itemType == "grid")
        #expect(heif.storedSize?.width == 4032 && heif.storedSize?.height == 3024)
        #expect(evidence.gridColumns == 8 && evidence.gridRows == 6)
        #expect(evidence.tileCodec == "hevc")
        #expect(!evidence.metaAfterMediaData)
        #expect(heif.orientation == .up)
        #expect(evidence.transforms.allSatisfy { $0 == .rotation(anticlockwiseQuarterTurns: 0) })
        let thumbnail = try #require(evidence.thumbnails.first)
        #expect(evidence.thumbnails.count == 1)
        #expect(thumbnail.codec == "hevc")
        // heif-info: "image: 4032x3024 (id=49), primary", "thumbnail: 320x240", "Exif: 2144 bytes".
        #expect(heif.primaryItemID == 49)
        #expect(thumbnail.width == 320 && thumbnail.height == 240)
        #expect(evidence.colourType == "prof")
        let exifItem = try #require(heif.items.first { $0.type == "Exif" })
        #expect(try heif.data(of: exifItem.id, in: file).count == 2144)
        let offset = try #require(thumbnail.offset)
        #expect(offset > 0 && offset + thumbnail.length <= Int(file.size))
        let exif = try #require(try heif.exifTIFF(in: file))
        #expect(tiffOrientation(exif.bytes) == 1)
        #expect(heif.bitDepth == 8)
        #expect(heif.motionVideoBox == nil)
    }

    @Test func samsungMotionPhoto() throws {
        let path = SharedMedia.path("samsung-one-ui-6.heic")
        let file = try FileBytes(path: path)
        let heif = try HEIFStructure(file)
        let evidence = heif.evidence
        #expect(evidence.itemType == "grid")
        #expect(heif.storedSize?.width == 4000 && heif.storedSize?.height == 3000)
        #expect(evidence.metaAfterMediaData)
        #expect(evidence.transforms == [.rotation(anticlockwiseQuarterTurns: 3)])
        #expect(heif.orientation == .right)
        let exif = try #require(try heif.exifTIFF(in: file))
        #expect(tiffOrientation(exif.bytes) == 6)
        // heif-info: "image: 3000x4000 (id=49), primary", "thumbnail: 384x512" (after irot), "XMP: 1280 bytes".
        #expect(heif.primaryItemID == 49)
        #expect(evidence.thumbnails.map { [$0.width, $0.height] } == [[512, 384]])
        let xmp = try #require(try heif.xmp(in: file))
        #expect(xmp.count == 1280)
        #expect(String(decoding: xmp, as: UTF8.self).contains("x:xmpmeta"))
        let range = try #require(heif.motionVideoRange)
        #expect(try file.read(at: range.lowerBound + 4, count: 4) == Array("ftyp".utf8))
        let motion = try #require(heif.motionVideoProbe(path: path, source: file))
        let video = try #require(motion.video)
        #expect(motion.streams.contains { $0.type == "video" })
        // ffprobe on the mpvd payload cut out: HEVC 1440x1080, rotation -90 (orientation 6).
        #expect(motion.streams.first { $0.type == "video" }?.codedWidth == 1440)
        #expect(video.containerMatrix?.analysis.orientation == .right)
        #expect(video.containerMatrix?.ffprobeRotation == -90)
    }

    @Test func avifWithoutTransforms() throws {
        let heif = try HEIFStructure(path: SharedMedia.path("8bit-sRGB.avif"))
        #expect(heif.storedSize?.width == 1617 && heif.storedSize?.height == 1080)
        #expect(heif.evidence.transforms.isEmpty)
        #expect(heif.evidence.tileCodec == "av1")
        #expect(heif.orientation == .up)
        #expect(heif.bitDepth == 8)
    }
}

/// IFD0's Orientation (tag 274) of TIFF bytes, read here independently of any EXIF reader.
func tiffOrientation(_ tiff: [UInt8]) -> Int? {
    guard tiff.count >= 8 else { return nil }
    let little = tiff[0] == 0x49
    func value(_ at: Int, _ width: Int) -> Int {
        (0..<width).reduce(0) { $0 | Int(tiff[at + $1]) << (8 * (little ? $1 : width - 1 - $1)) }
    }
    let ifd = value(4, 4)
    guard ifd + 2 <= tiff.count else { return nil }
    for index in 0..<value(ifd, 2) {
        let entry = ifd + 2 + 12 * index
        guard entry + 12 <= tiff.count else { return nil }
        if value(entry, 2) == 274 { return value(entry + 8, 2) }
    }
    return nil
}

/// A picture decoded to RGB by ffmpeg, for its quadrant colours.
struct PPM {
    let width: Int, height: Int
    let pixels: [UInt8]

    init(decoding path: String) throws {
        let decoded = try DecodedRGB(decoding: path)
        (width, height, pixels) = (decoded.width, decoded.height, decoded.pixels)
    }

    /// The colour nearest the pixel at the centre of each quadrant, [row][column].
    var quadrants: [[String]] {
        let colours: [(String, [Int])] = [
            ("red", [255, 0, 0]), ("green", [0, 255, 0]), ("blue", [0, 0, 255]), ("white", [255, 255, 255]),
        ]
        return (0..<2).map { row in
            (0..<2).map { column in
                let x = width * (2 * column + 1) / 4, y = height * (2 * row + 1) / 4
                let rgb = pixels[(y * width + x) * 3..<(y * width + x) * 3 + 3].map { Int($0) }
                let best = colours.min { a, b in
                    zip(a.1, rgb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
                        < zip(b.1, rgb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
                }!
                return zip(best.1, rgb).allSatisfy { abs($0 - $1) <= 48 } ? best.0 : "unclear"
            }
        }
    }
}

/// `primaryItemID` and `items` are public and can be changed: an ID that names no item is then
/// no primary item (nil), never a trap (run in a child process, which a trap would end).
@Suite struct HEIFPrimaryItemTests {
    @Test func anIDThatNamesNoItemIsNoPrimaryItem() async throws {
        await #expect(processExitsWith: .success) {
            var structure = try HEIFStructure(try FileBytes(path: TestMedia.path("orient-6.heic")))
            structure.primaryItemID = 9999
            _ = structure.primaryItem
            _ = structure.evidence
            _ = structure.storedSize
        }
        var structure = try HEIFStructure(try FileBytes(path: TestMedia.path("orient-6.heic")))
        #expect(structure.primaryItem != nil)
        structure.primaryItemID = 9999
        #expect(structure.primaryItem == nil)
        #expect(structure.storedSize == nil)
    }
}
