import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientTestSupport

@Suite struct MovieStructureTests {
    @Test func manifestIsThere() {
        // Guards the tables below: an empty manifest would make them pass vacuously.
        #expect(TestMedia.iso.count >= 22)
        #expect(TestMedia.iso.contains { $0.faststart == false })
        #expect(TestMedia.badMP4s.count == 4)
    }

    @Test(arguments: TestMedia.iso)
    func videoTrackMatrixIsTheManifests(entry: TestMedia.Entry) throws {
        let movie = try MovieStructure(path: entry.path)
        #expect(movie.moovPrecedesMdat == entry.faststart)
        #expect(!movie.isFragmented)
        #expect(movie.movieHeader.matrix.fixedPoint == DisplayMatrix.identity.fixedPoint)
        guard let codec = entry.videoCodec, codec != "png" else {
            // Audio only, or cover art, which MP4 keeps in the item list rather than in a track.
            #expect(movie.videoTracks.isEmpty)
            return
        }
        let video = try #require(movie.videoTracks.first)
        #expect(movie.videoTracks.count == 1)
        #expect(video.sampleEntry == (codec == "hevc" ? "hvc1" : "avc1"))
        #expect(video.codedWidth == entry.storedWidth)
        #expect(video.codedHeight == entry.storedHeight)
        // The SEI file's manifest matrix is the decoder's frame matrix; its tkhd is the identity.
        let expected = entry.orientationSource == "sei" ? DisplayMatrix.identity.fixedPoint : entry.matrixInt32
        #expect(video.matrix.fixedPoint == expected)
        // The offset is where those 36 bytes really are.
        let file = try bytes(entry.path)
        let offset = Int(video.matrix.offset)
        #expect(Array(file[offset..<offset + 36]) == video.matrix.bytes)
    }

    /// The generator writes Apple's translation from the tkhd width and height, as iPhones do.
    @Test(
        arguments: TestMedia.iso.filter {
            $0.orientationSource == "container" && $0.exifOrientation != nil && !$0.name.hasPrefix("scaled")
        })
    func translationIsApplesForTheTrackHeaderSize(entry: TestMedia.Entry) throws {
        let video = try #require(try MovieStructure(path: entry.path).videoTracks.first)
        let expected = Truth.matrix(entry.exifOrientation!, width: Int32(video.width), height: Int32(video.height))
        #expect(video.matrix.fixedPoint == expected)
    }

    @Test func audioFirstFileFindsTheVideoTrackByItsHandler() throws {
        let movie = try MovieStructure(path: TestMedia.path("audio-first.mov"))
        #expect(movie.tracks.map(\.handler) == ["soun", "vide"])
        #expect(movie.videoTracks.map(\.trackID) == [2])
    }

    @Test func coverArtIsAnItemListImage() throws {
        let movie = try MovieStructure(path: TestMedia.path("cover-art.m4a"))
        let cover = try #require(movie.metadata.first { $0.key == "covr" })
        #expect(cover.dataType == 14)  // PNG
        guard case .bytes(let png) = cover.value else {
            Issue.record("cover art is not bytes")
            return
        }
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(movie.majorBrand == "M4A ")
    }

    @Test(arguments: TestMedia.badMP4s)
    func badFilesThrowAReason(entry: TestMedia.Entry) throws {
        let expected: [String: String] = [
            "bad-empty.mp4": "file is empty",
            "bad-random.mp4": "not an mp4 or quicktime file",
            "bad-text.mp4": "not an mp4 or quicktime file",
            "bad-truncated.mp4": "has only",
        ]
        let error = try #require(throws: ISOBMFFError.self) { try MovieStructure(path: entry.path) }
        #expect(error.reason.contains(try #require(expected[entry.name])), "\(error.reason)")
        #expect(error.reason == error.reason.lowercased() || error.reason.contains("'"))
    }

    @Test func pathsThatAreNotFilesSayWhy() throws {
        let missing = try #require(throws: ISOBMFFError.self) {
            try MovieStructure(path: TestMedia.path("missing.mp4"))
        }
        #expect(missing.reason == "no such file or directory")
        let folder = try #require(throws: ISOBMFFError.self) { try MovieStructure(path: TestMedia.folder.path) }
        #expect(folder.reason == "is a directory")
    }

    @Test(arguments: ["orient-3.jpg", "no-exif.jpg"])
    func photosAreRecognisedByTheirContent(name: String) throws {
        // Renamed to .mp4: the content decides, not the name.
        let folder = try TemporaryFolder("jpeg")
        defer { folder.remove() }
        let path = try folder.copy(TestMedia.path(name), as: "photo.mp4")
        let error = try #require(throws: ISOBMFFError.self) { try MovieStructure(path: path) }
        #expect(error.reason == "not an mp4 or quicktime file (jpeg)")
        #expect(error.kind == .unsupported)
    }

    @Test func stillImagesAreNamedAsSuch() throws {
        // The opening of an iPhone HEIC: ftyp 'heic' (compatible mif1, heic), then a meta box.
        let ftyp: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
        let meta: [UInt8] = [0, 0, 0, 12] + Array("meta".utf8) + [0, 0, 0, 0]
        let error = try #require(throws: ISOBMFFError.self) { try MovieStructure(MemoryBytes(ftyp + meta)) }
        #expect(error.reason == "a heif/avif image ('heic'), not a movie: no 'moov' box")
        // The same without an image brand is a movie that lost its moov.
        let mp4: [UInt8] = [0, 0, 0, 16] + Array("ftypisom".utf8) + [0, 0, 2, 0]
        let lost = try #require(throws: ISOBMFFError.self) { try MovieStructure(MemoryBytes(mp4 + meta)) }
        #expect(lost.reason.hasPrefix("no 'moov' box"))
    }

    @Test func sixtyFourBitSizesAndSizeZeroAreRead() throws {
        // orient-6.mp4 rewritten by hand: mdat with a 64-bit size, then moov last with size 0.
        let original = try bytes(TestMedia.path("orient-6.mp4"))
        let movie = try MovieStructure(MemoryBytes(original))
        let boxes = movie.topLevelBoxes
        func box(_ type: FourCC) -> [UInt8] {
            let b = boxes.first { $0.type == type }!
            return Array(original[Int(b.offset)..<Int(b.offset + b.size)])
        }
        let ftyp = box("ftyp"), moov = box("moov"), mdat = box("mdat")
        var largeMdat: [UInt8] = [0, 0, 0, 1] + Array("mdat".utf8)
        largeMdat += withUnsafeBytes(of: UInt64(mdat.count + 8).bigEndian, Array.init)
        largeMdat += mdat[8...]
        let zeroMoov: [UInt8] = [0, 0, 0, 0] + moov[4...]
        let rebuilt = MemoryBytes(ftyp + largeMdat + zeroMoov)
        let read = try MovieStructure(rebuilt)
        #expect(read.topLevelBoxes.map(\.type) == ["ftyp", "mdat", "moov"])
        #expect(read.moovPrecedesMdat == false)
        #expect(read.moov.size == Int64(moov.count))
        #expect(read.topLevelBoxes[1].size == Int64(mdat.count + 8))
        #expect(read.videoTracks.first?.matrix.fixedPoint == movie.videoTracks.first?.matrix.fixedPoint)
        let offsetInMoov = movie.videoTracks.first!.matrix.offset - movie.moov.offset
        #expect(read.videoTracks.first?.matrix.offset == Int64(ftyp.count + largeMdat.count) + offsetInMoov)
    }

    @Test func versionOneHeadersAreRead() throws {
        // Rewrites orient-8.mp4's tkhd and mvhd as version 1 (64-bit times, 12 more bytes each)
        // and fixes up every enclosing size: what a long recording's muxer writes.
        let original = try bytes(TestMedia.path("orient-8.mp4"))
        let movie = try MovieStructure(MemoryBytes(original))
        let upgraded = try VersionOne.upgrade(original, movie: movie)
        let read = try MovieStructure(MemoryBytes(upgraded))
        let video = try #require(read.videoTracks.first)
        #expect(video.headerVersion == 1)
        #expect(read.movieHeader.version == 1)
        #expect(video.matrix.fixedPoint == movie.videoTracks.first!.matrix.fixedPoint)
        #expect(video.width == 96 && video.height == 160)
        #expect(read.movieHeader.timescale == movie.movieHeader.timescale)
        #expect(read.movieHeader.duration == movie.movieHeader.duration)
        #expect(read.movieHeader.nextTrackID == movie.movieHeader.nextTrackID)
        let offset = Int(video.matrix.offset)
        #expect(Array(upgraded[offset..<offset + 36]) == video.matrix.bytes)
    }

    @Test func uuidBoxesAreSkippedWithTheirExtendedType() throws {
        let original = try bytes(TestMedia.path("orient-5.mp4"))
        let uuid: [UInt8] = [0, 0, 0, 28] + Array("uuid".utf8) + Array(repeating: 0xAB, count: 16) + [1, 2, 3, 4]
        let read = try MovieStructure(MemoryBytes(uuid + original))
        #expect(read.topLevelBoxes.first?.type == "uuid")
        #expect(read.topLevelBoxes.first?.size == 28)
        #expect(
            read.videoTracks.first?.matrix.offset == 28
                + (try MovieStructure(MemoryBytes(original))).videoTracks.first!.matrix.offset)
    }

    @Test(.enabled(if: isInstalled("ffmpeg"), "ffmpeg is not installed"))
    func fragmentedFilesAreRecognised() throws {
        let folder = try TemporaryFolder("frag")
        defer { folder.remove() }
        let output = folder.path("frag.mp4")
        #expect(try writeFragmented(TestMedia.path("orient-6.mp4"), to: output) == 0)
        let movie = try MovieStructure(path: output)
        #expect(movie.isFragmented)
        #expect(movie.topLevelBoxes.contains { $0.type == "moof" })
    }
}

/// Rewrites version 0 `tkhd` and `mvhd` boxes as version 1, growing every enclosing box.
enum VersionOne {
    static func upgrade(_ file: [UInt8], movie: MovieStructure) throws -> [UInt8] {
        var bytes = file
        // Work from the end so earlier offsets stay valid. tkhd: matrix at payload + 40 (v0);
        // mvhd: matrix at payload + 36 (v0). Each header starts 8 bytes before its payload.
        let headers: [(start: Int, kind: String)] =
            movie.videoTracks.map { (Int($0.matrix.offset) - 40 - 8, "tkhd") }
            + [(Int(movie.movieHeader.matrix.offset) - 36 - 8, "mvhd")]
        for (start, kind) in headers.sorted(by: { $0.start > $1.start }) {
            let size = Int(
                UInt32(bytes[start]) << 24 | UInt32(bytes[start + 1]) << 16 | UInt32(bytes[start + 2]) << 8
                    | UInt32(bytes[start + 3]))
            var box = Array(bytes[start..<start + size])
            box[8] = 1  // version
            // Widen creation and modification time (and duration) from 32 to 64 bits.
            func widen(_ at: Int) { box.replaceSubrange(at..<at + 4, with: [0, 0, 0, 0] + box[at..<at + 4]) }
            // Box offsets: creation 12, modification 16, then tkhd: track ID 20, reserved 24,
            // duration 28; mvhd: time scale 20, duration 24. Last first, so the others stay put.
            widen(kind == "tkhd" ? 28 : 24)
            widen(16)
            widen(12)
            let newSize = UInt32(box.count)
            box.replaceSubrange(0..<4, with: withUnsafeBytes(of: newSize.bigEndian, Array.init))
            bytes.replaceSubrange(start..<start + size, with: box)
            // Grow every box that encloses this one by 12.
            for parent in enclosing(start, in: file) {
                let value =
                    UInt32(bytes[parent]) << 24 | UInt32(bytes[parent + 1]) << 16 | UInt32(bytes[parent + 2]) << 8
                    | UInt32(bytes[parent + 3])
                bytes.replaceSubrange(
                    parent..<parent + 4, with: withUnsafeBytes(of: (value + 12).bigEndian, Array.init))
            }
        }
        return bytes
    }

    /// Offsets of the container boxes (moov, trak) that contain `offset` in the original file.
    /// Only moov and trak enclose tkhd and mvhd.
    static func enclosing(_ offset: Int, in file: [UInt8]) -> [Int] {
        var found: [Int] = []
        func walk(_ start: Int, _ end: Int) {
            var position = start
            while position + 8 <= end {
                let size = Int(
                    UInt32(file[position]) << 24 | UInt32(file[position + 1]) << 16 | UInt32(file[position + 2]) << 8
                        | UInt32(file[position + 3]))
                let type = String(decoding: file[position + 4..<position + 8], as: UTF8.self)
                guard size >= 8 else { return }
                if (type == "moov" || type == "trak") && position < offset && offset < position + size {
                    found.append(position)
                    walk(position + 8, position + size)
                }
                position += size
            }
        }
        walk(0, file.count)
        return found
    }
}
