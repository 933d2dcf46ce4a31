import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientTestSupport

/// Real phone and muxer files (`../shared/media`, facts in its README and measured with xxd).
@Suite(.enabled(if: SharedMedia.isPresent, "../shared/media is absent"))
struct SharedMediaTests {
    @Test func iPhone4SClipHasItsCameraInTheVideoTracksOwnKeys() throws {
        let movie = try MovieStructure(path: SharedMedia.path("iphone_rotated.mov"))
        #expect(movie.majorBrand == "qt  ")
        #expect(movie.moovPrecedesMdat == false)
        #expect(movie.movieHeader.matrix.fixedPoint == DisplayMatrix.identity.fixedPoint)
        #expect(movie.tracks.map(\.handler) == ["soun", "vide"])
        let video = try #require(movie.videoTracks.first)
        #expect(video.trackID == 2)
        #expect(video.sampleEntry == "avc1")
        #expect(video.width == 568 && video.height == 320)
        #expect(video.matrix.fixedPoint == [0, 65536, 0, -65536, 0, 0, 20_971_520, 0, 1_073_741_824])
        // Apple's translation comes from the tkhd size (568x320): tx = the height.
        #expect(video.matrix.fixedPoint == Truth.matrix(6, width: 568, height: 320))
        let camera = try #require(video.metadata.first { $0.key == "com.apple.quicktime.camera.identifier" })
        #expect(camera.value == .text("Back"))
        #expect(camera.namespace == "mdta")
        #expect(camera.dataType == 1)
        let readout = try #require(
            video.metadata.first { $0.key == "com.apple.quicktime.camera.framereadouttimeinmicroseconds" })
        #expect(readout.value == .integer(28512))
        #expect(readout.dataType == 22)
        #expect(movie.tracks[0].metadata.isEmpty)
        #expect(movie.metadata.first { $0.key == "com.apple.quicktime.model" }?.value == .text("iPhone 4S"))
        #expect(
            movie.metadata.first { $0.key == "com.apple.quicktime.location.ISO6709" }?.value
                == .text("+40.7248-073.9883+044.000/"))
    }

    @Test func iPhone14ProClipDeclaresVideoOrientationInATimedMetadataTrack() throws {
        let path = SharedMedia.path("dolbyVision-hdr.MOV")
        let file = try FileBytes(path: path)
        let movie = try MovieStructure(file)
        #expect(movie.tracks.map(\.sampleEntry) == ["hvc1", "mp4a", "mebx", "mebx", "mebx"])
        let video = try #require(movie.videoTracks.first)
        #expect(video.width == 1280 && video.height == 720)
        #expect(video.matrix.fixedPoint == Truth.matrix(6, width: 1280, height: 720))
        let orientationTrack = try #require(
            movie.tracks.first { $0.timedMetadataKeys.contains { $0.name == "com.apple.quicktime.video-orientation" } })
        #expect(orientationTrack.handler == "meta")
        let key = try #require(orientationTrack.timedMetadataKeys.first)
        #expect(key.namespace == "mdta")
        #expect(key.wellKnownType == 66)  // big-endian int16
        let samples = try orientationTrack.timedMetadataSamples(in: file)
        #expect(samples.count == 1)
        #expect(samples.first?.time == 0)
        #expect(samples.first?.items.map(\.value) == [.integer(6)])
        let faces = try #require(
            movie.tracks.first { $0.timedMetadataKeys.contains { $0.name == "com.apple.quicktime.detected-face" } })
        #expect(
            faces.timedMetadataKeys.first { $0.name == "com.apple.quicktime.detected-face" }?.typeName
                == "com.apple.quicktime.detected-face")
        #expect(faces.timedMetadataKeys.count == 5)
        #expect(movie.metadata.first { $0.key == "com.apple.quicktime.model" }?.value == .text("iPhone 14 Pro"))
        // Header-only reading stays header-only: the video track has no timed metadata to read.
        #expect(try video.timedMetadataSamples(in: file).isEmpty)
    }

    @Test func androidSampleMatricesAndTheirMirror() throws {
        let plain = try MovieStructure(path: SharedMedia.path("sample.mp4"))
        let mirrored = try MovieStructure(path: SharedMedia.path("sample_rotate_and_reflect.mp4"))
        #expect(plain.videoTracks.first?.matrix.fixedPoint == DisplayMatrix.identity.fixedPoint)
        let matrix = try #require(mirrored.videoTracks.first?.matrix)
        #expect(matrix.matrix.analysis.orientation == .leftMirrored)
        // The README: the two files differ in exactly 4 matrix bytes.
        let diff = differingOffsets(
            try bytes(SharedMedia.path("sample.mp4")), try bytes(SharedMedia.path("sample_rotate_and_reflect.mp4")))
        #expect(diff.count == 4)
        #expect(diff.allSatisfy { Int64($0) >= matrix.offset && Int64($0) < matrix.offset + 36 })
    }

    @Test(arguments: ["sample_with_htc_rotation_track_name.mkv", "Landscape_6.jpg"])
    func otherFormatsAreRefusedByContent(name: String) throws {
        let error = try #require(throws: ISOBMFFError.self) { try MovieStructure(path: SharedMedia.path(name)) }
        #expect(
            error.reason
                == (name.hasSuffix(".mkv")
                    ? "not an mp4 or quicktime file (matroska/webm)" : "not an mp4 or quicktime file (jpeg)"))
    }

    /// ffprobe multiplies the track and movie matrices; every movie matrix here is the identity,
    /// so its side data must be the track matrix read from the boxes.
    @Test(
        .enabled(if: isInstalled("ffprobe"), "ffprobe is not installed"),
        arguments: [
            "iphone_rotated.mov", "dolbyVision-hdr.MOV", "sample.mp4", "sample_rotate_and_reflect.mp4",
            "sample_portrait.mp4",
        ])
    func trackMatrixAgreesWithFFprobe(name: String) throws {
        let movie = try MovieStructure(path: SharedMedia.path(name))
        let tkhd = try #require(movie.videoTracks.first).matrix.fixedPoint
        let probed = try ffprobeDisplayMatrix(SharedMedia.path(name))
        #expect((probed ?? DisplayMatrix.identity.fixedPoint) == tkhd)
    }
}
