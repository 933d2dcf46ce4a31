import Foundation
import Testing
import Vidorient
import VidorientCore
import VidorientTestSupport

struct Truth: Sendable, CustomTestStringConvertible {
    let file: String
    let exif: Int?
    let rotation: Double
    let mirrored: Bool
    let width: Int
    let height: Int
    let videoIndex: Int
    let source: OrientationSource
    var testDescription: String { file }
}

struct PhotoTruth: Sendable, CustomTestStringConvertible {
    let file: String
    let exif: Int
    let width: Int?
    let height: Int?
    /// Nil where the README does not say whether the file carries a (zero) `irot` at all.
    let source: PhotoOrientationSource?
    var testDescription: String { file }
}

@Suite(.enabled(if: SharedMedia.isPresent, "../shared/media is absent"))
struct SharedMediaTests {
    static let truths: [Truth] =
        [
            Truth(
                file: "sample.mp4", exif: 1, rotation: 0, mirrored: false, width: 1080, height: 720, videoIndex: 0,
                source: .none),
            Truth(
                file: "sample_rotate_and_reflect.mp4", exif: 5, rotation: 270, mirrored: true, width: 720, height: 1080,
                videoIndex: 0, source: .container),
            Truth(
                file: "sample_portrait.mp4", exif: 1, rotation: 0, mirrored: false, width: 720, height: 1080,
                videoIndex: 0,
                source: .none),
            Truth(
                file: "dolbyVision-hdr.MOV", exif: 6, rotation: 90, mirrored: false, width: 720, height: 1280,
                videoIndex: 0,
                source: .container),
            Truth(
                file: "iphone_rotated.mov", exif: 6, rotation: 90, mirrored: false, width: 320, height: 568,
                videoIndex: 1,
                source: .container),
            Truth(
                file: "sample_with_htc_rotation_track_name.mkv", exif: 1, rotation: 0, mirrored: false, width: 1080,
                height: 720, videoIndex: 0, source: .none),
        ]

    /// The photos' truth, from the shared README (the HEIF files' `irot`, the JPEGs' tag).
    static let photoTruths: [PhotoTruth] =
        (1...8).map { n in
            PhotoTruth(file: "Landscape_\(n).jpg", exif: n, width: 1800, height: 1200, source: .exif)
        } + [
            PhotoTruth(file: "denali.webp", exif: 1, width: nil, height: nil, source: .exif),
            PhotoTruth(file: "samsung-one-ui-6.heic", exif: 6, width: 3000, height: 4000, source: .heif),
            PhotoTruth(file: "IMG_2682.heic", exif: 1, width: 4032, height: 3024, source: nil),
            PhotoTruth(file: "8bit-sRGB.avif", exif: 1, width: 1617, height: 1080, source: PhotoOrientationSource.none),
        ]

    @Test(arguments: photoTruths)
    func photoOrientationMatchesTheKnownTruth(truth: PhotoTruth) throws {
        let path = try #require(SharedMedia.existingPath(truth.file))
        let report = try Prober().inspect(path)
        let photo = try #require(report.photo)
        #expect(report.video == nil)
        #expect(photo.exifOrientation == truth.exif)
        let orientation = try #require(Orientation(exif: truth.exif))
        #expect(photo.rotation == orientation.rotation && photo.mirrored == orientation.isMirrored)
        if let width = truth.width { #expect(photo.displayWidth == width && photo.displayHeight == truth.height) }
        if let source = truth.source { #expect(photo.orientationSource == source) }
        // No mirror heuristic for photos: the camera is named only where the metadata says so.
        #expect(photo.camera == nil || photo.cameraEvidence?.hasPrefix("EXIF ") == true)
        #expect(report.findings.contains { $0.code == "mirrored" } == orientation.isMirrored)
    }

    @Test(arguments: truths)
    func orientationMatchesTheKnownTruth(truth: Truth) throws {
        let path = try #require(SharedMedia.existingPath(truth.file))
        let report = try Prober().inspect(path)
        let video = try #require(report.video)
        #expect(video.index == truth.videoIndex)
        #expect(video.exifOrientation == truth.exif)
        #expect(video.rotation == truth.rotation)
        #expect(video.mirrored == truth.mirrored)
        #expect(video.displayWidth == truth.width)
        #expect(video.displayHeight == truth.height)
        #expect(video.orientationSource == truth.source)
        #expect(video.camera == (truth.mirrored ? .front : .back))
        #expect(report.findings.contains { $0.code == "mirrored" } == truth.mirrored)
    }

    /// Samsung's motion photo: the still is turned by irot 3 and its EXIF agrees; the video in
    /// the `mpvd` box has an orientation of its own, reported with it.
    @Test func samsungMotionPhotoReportsItsVideoToo() throws {
        let report = try Prober().inspect(try #require(SharedMedia.existingPath("samsung-one-ui-6.heic")))
        let photo = try #require(report.photo)
        #expect(photo.heifTransforms?.map(\.property) == ["irot"])
        #expect(photo.sources.map(\.source) == [.heif, .exif])
        #expect(report.findings.map(\.code).contains("orientation-duplicated"))
        let motion = try #require(photo.motionVideo)
        #expect(motion.exifOrientation == 6 && motion.codec == "hevc")
        #expect(motion.displayWidth == 1080 && motion.displayHeight == 1440)
    }

    @Test func landscapeZeroHasAnOrientationTagOfZero() throws {
        // The README calls it "tag absent"; exiftool and FFmpeg both read Orientation = 0.
        let report = try Prober().inspect(try #require(SharedMedia.existingPath("Landscape_0.jpg")))
        #expect(report.photo?.exifOrientation == 1)
        #expect(report.photo?.sources.first?.value == 0)
        #expect(report.photo?.displayWidth == 1800 && report.photo?.displayHeight == 1200)
        #expect(report.findings.map(\.code) == ["exif-invalid"])
    }

    @Test func iphoneFacts() throws {
        let report = try Prober().inspect(try #require(SharedMedia.existingPath("iphone_rotated.mov")))
        #expect(report.streams.map(\.type) == ["audio", "video"])
        #expect(report.video?.matrix == [0, 1, 0, -1, 0, 0, 320, 0, 1])
        #expect(report.video?.ffprobeRotation == -90)
        #expect(report.format.tags["com.apple.quicktime.model"] == "iPhone 4S")
        let location = try #require(report.format.location)
        #expect(abs(location.latitude - 40.7248) < 1e-9 && abs(location.longitude + 73.9883) < 1e-9)
        // The video track's own metadata, which FFmpeg 5.1 does not read, names the camera.
        #expect(report.video?.camera == .back)
        #expect(report.video?.cameraEvidence == "track metadata com.apple.quicktime.camera.identifier = Back")
        #expect(report.video?.trackMatrix == [0, 1, 0, -1, 0, 0, 320, 0, 1])
        #expect(report.video?.movieMatrix == DisplayMatrix.identity.entries)
        #expect(report.streams[0].profile == "LC")
        #expect(report.streams[1].profile == "Baseline")
        #expect(report.streams[1].pixelFormat == "yuv420p")
    }

    @Test func hdrFacts() throws {
        let report = try Prober().inspect(try #require(SharedMedia.existingPath("dolbyVision-hdr.MOV")))
        let video = try #require(report.streams.first)
        #expect(video.pixelFormat == "yuv420p10le")
        #expect(video.bitDepth == 10)
        #expect(video.hdr == "hlg")
        #expect(video.dolbyVision == "8.4")
        #expect(video.colorPrimaries == "bt2020")
        #expect(report.streams.filter { $0.codecTag == "mebx" }.count == 3)
        #expect(report.video?.timedMetadataKeys.contains("com.apple.quicktime.video-orientation") == true)
        // The iPhone's own record of how it was held agrees with the matrix.
        #expect(report.video?.timedVideoOrientation == [TimedOrientation(time: 0, value: 6)])
        #expect(!report.findings.contains { $0.code == "timed-orientation-differs" })
    }

    @Test func htcTrackTitleIsAHintNotAnOrientation() throws {
        let report = try Prober().inspect(
            try #require(SharedMedia.existingPath("sample_with_htc_rotation_track_name.mkv")))
        #expect(report.video?.rotation == 0)
        #expect(report.findings.map(\.code) == ["track-title-rotation"])
    }

    /// ffprobe's own number, read from ffprobe itself: what we report as `ffprobe_rotation`.
    @Test(arguments: truths)
    func ffprobeRotationIsWhatFFprobePrints(truth: Truth) throws {
        let path = try #require(SharedMedia.existingPath(truth.file))
        let printed = try FFprobe.rotation(path)
        #expect(try Prober().inspect(path).video?.ffprobeRotation == printed)
    }

    @Test(arguments: truths)
    func streamsAgreeWithFFprobe(truth: Truth) throws {
        let path = try #require(SharedMedia.existingPath(truth.file))
        try FFprobe.expectStreamsAgree(path: path, report: try Prober().inspect(path))
    }
}

/// Runs the real ffprobe for comparison.
enum FFprobe {
    static func json(_ arguments: [String]) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffprobe", "-v", "error", "-of", "json"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The `rotation` ffprobe prints in the video stream's side data, or nil when it prints none.
    static func rotation(_ path: String) throws -> Int? {
        let streams = try json(["-show_streams", "-select_streams", "v:0", path])["streams"] as? [[String: Any]]
        let sideData = streams?.first?["side_data_list"] as? [[String: Any]] ?? []
        return sideData.compactMap { $0["rotation"] as? Int }.first
    }

    static func expectStreamsAgree(path: String, report: MediaReport) throws {
        let streams = try #require(try json(["-show_streams", path])["streams"] as? [[String: Any]])
        #expect(streams.count == report.streams.count)
        for (theirs, ours) in zip(streams, report.streams) {
            #expect(theirs["index"] as? Int == ours.index)
            #expect(theirs["codec_type"] as? String == ours.type)
            #expect(theirs["codec_name"] as? String == ours.codec)
            if ours.type == "video" {
                #expect(theirs["width"] as? Int == ours.codedWidth)
                #expect(theirs["height"] as? Int == ours.codedHeight)
                #expect(theirs["pix_fmt"] as? String == ours.pixelFormat)
                #expect(theirs["profile"] as? String == ours.profile)
            }
            if ours.type == "audio" {
                #expect((theirs["sample_rate"] as? String).flatMap(Int.init) == ours.sampleRate)
                #expect(theirs["channels"] as? Int == ours.channels)
                #expect(theirs["profile"] as? String == ours.profile)
            }
        }
    }
}
