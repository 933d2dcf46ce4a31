import Foundation
import Testing
import VidorientCore

private func videoStream(
    index: Int = 0, width: Int = 568, height: Int = 320, sar: String? = "1:1", tags: [String: String] = [:]
) -> StreamReport {
    var stream = StreamReport(index: index, type: "video")
    stream.codec = "h264"
    stream.codedWidth = width
    stream.codedHeight = height
    stream.sampleAspectRatio = sar
    stream.tags = tags
    stream.title = tags["title"]
    return stream
}

private func report(
    stream: StreamReport = videoStream(), evidence: VideoEvidence? = nil, formatTags: [String: String] = [:]
) -> MediaReport {
    MediaReport(
        probe: MediaProbe(
            path: "clip.mov", format: FormatReport(name: "mov", streamCount: 1, tags: formatTags),
            streams: [stream], video: evidence ?? VideoEvidence(streamIndex: stream.index)))
}

private func codes(_ report: MediaReport) -> Set<String> { Set(report.findings.map(\.code)) }

@Suite struct InspectionTests {
    @Test(arguments: Orientation.allCases)
    func containerMatrixDecides(orientation: Orientation) throws {
        let matrix = DisplayMatrix(orientation, width: 568, height: 320)
        let video = try #require(report(evidence: VideoEvidence(streamIndex: 0, containerMatrix: matrix)).video)
        #expect(video.orientationSource == .container)
        #expect(video.exifOrientation == orientation.exif)
        #expect(video.rotation == Double(orientation.rotation))
        #expect(video.mirrored == orientation.isMirrored)
        let shown = orientation.displaySize(width: 568, height: 320)
        #expect(video.displayWidth == shown.width && video.displayHeight == shown.height)
        #expect(video.layout == (orientation.swapsDimensions ? .portrait : .landscape))
        #expect(video.camera == (orientation.isMirrored ? .front : .back))
        #expect(video.ffprobeRotation == matrix.ffprobeRotation)
        #expect(video.matrix == matrix.entries)
    }

    @Test func mirroredMatrixIsAFinding() {
        let r = report(evidence: VideoEvidence(streamIndex: 0, containerMatrix: DisplayMatrix(a: 0, b: 1, c: 1, d: 0)))
        #expect(codes(r).contains("mirrored"))
        #expect(r.video?.cameraEvidence?.contains("mirrored") == true)
    }

    @Test func noMatrixMeansAsStored() throws {
        let video = try #require(report().video)
        #expect(video.orientationSource == OrientationSource.none)
        #expect(video.exifOrientation == 1)
        #expect(video.ffprobeRotation == nil)
        #expect(video.matrix == DisplayMatrix.identity.entries)
        #expect(report().findings.isEmpty)
    }

    @Test func seiDecidesWhenTheContainerIsSilent() throws {
        let sei = DisplayMatrix(a: 0, b: 1, c: -1, d: 0)
        let r = report(evidence: VideoEvidence(streamIndex: 0, frameMatrix: sei))
        let video = try #require(r.video)
        #expect(video.orientationSource == .sei)
        #expect(video.exifOrientation == 6)
        #expect(video.ffprobeRotation == nil)
        #expect(codes(r) == ["codec-orientation"])
    }

    @Test func containerAndCodecDisagreeing() throws {
        let r = report(
            evidence: VideoEvidence(
                streamIndex: 0, containerMatrix: DisplayMatrix(.right, width: 568, height: 320),
                frameMatrix: DisplayMatrix(.left, width: 0, height: 0)))
        #expect(r.video?.orientationSource == .container)
        #expect(r.video?.sources.map(\.source) == [.container, .sei])
        #expect(codes(r).contains("orientation-conflict"))
    }

    @Test func containerAndCodecAgreeing() {
        let r = report(
            evidence: VideoEvidence(
                streamIndex: 0, containerMatrix: DisplayMatrix(.right, width: 568, height: 320),
                frameMatrix: DisplayMatrix(.right, width: 0, height: 0)))
        #expect(codes(r) == ["orientation-duplicated"])
    }

    @Test func photoOrientationComesFromEXIF() throws {
        let stream = videoStream(width: 1200, height: 1800)
        let r = report(
            stream: stream,
            evidence: VideoEvidence(
                streamIndex: 0, frameMatrix: DisplayMatrix(a: 0, b: 1, c: -1, d: 0), exifOrientationTag: "    6",
                isStillImage: true))
        let video = try #require(r.video)
        #expect(video.orientationSource == .exif)
        #expect(video.displayWidth == 1800 && video.displayHeight == 1200)
        #expect(r.findings.isEmpty)
    }

    @Test func exifTagWithoutAMatrixStillCounts() throws {
        let r = report(evidence: VideoEvidence(streamIndex: 0, exifOrientationTag: "1", isStillImage: true))
        #expect(r.video?.orientationSource == .exif)
        #expect(r.video?.exifOrientation == 1)
    }

    @Test(arguments: ["0", "9", "sideways"])
    func invalidEXIFValuesAreFindings(tag: String) {
        let r = report(evidence: VideoEvidence(streamIndex: 0, exifOrientationTag: tag, isStillImage: true))
        #expect(codes(r).contains("exif-invalid"))
        #expect(r.video?.orientationSource == OrientationSource.none)
    }

    @Test func cameraMetadataOutranksTheHeuristic() throws {
        let stream = videoStream(tags: ["com.apple.quicktime.camera.identifier": "Front"])
        let r = report(
            stream: stream,
            evidence: VideoEvidence(streamIndex: 0, containerMatrix: DisplayMatrix(.right, width: 568, height: 320)))
        #expect(r.video?.camera == .front)
        #expect(r.video?.cameraEvidence?.contains("com.apple.quicktime.camera.identifier") == true)
        #expect(codes(r).contains("camera-conflict"))
        let lens = report(
            evidence: VideoEvidence(streamIndex: 0),
            formatTags: ["com.apple.quicktime.camera.lens_model": "iPhone 14 Pro back triple camera 6.86mm f/1.78"])
        #expect(lens.video?.camera == .back)
        #expect(!codes(lens).contains("camera-conflict"))
    }

    @Test func sampleAspectRatioComesBeforeTheRotation() throws {
        // 48x160 stored with 2:1 pixels shows as 96x160, then a quarter turn: 160x96.
        let r = report(
            stream: videoStream(width: 48, height: 160, sar: "2:1"),
            evidence: VideoEvidence(streamIndex: 0, containerMatrix: DisplayMatrix(.right, width: 48, height: 160)))
        #expect(r.video?.displayWidth == 160)
        #expect(r.video?.displayHeight == 96)
    }

    @Test func oddAngleReportsExactDegreesAndBoundingBox() throws {
        let r30 = 30 * Double.pi / 180
        let r = report(
            stream: videoStream(width: 160, height: 96),
            evidence: VideoEvidence(
                streamIndex: 0, containerMatrix: DisplayMatrix(a: cos(r30), b: sin(r30), c: -sin(r30), d: cos(r30))))
        let video = try #require(r.video)
        #expect(video.rotation == 30)
        #expect(video.exifOrientation == nil)
        #expect(video.displayWidth == Int((160 * cos(r30) + 96 * sin(r30)).rounded()))
        #expect(video.displayHeight == Int((160 * sin(r30) + 96 * cos(r30)).rounded()))
        #expect(codes(r) == ["odd-angle"])
    }

    @Test func invalidMatrixNeverCrashesNorPrintsNaN() throws {
        for entries in [[0.0, 0, 0, 0, 0, 0, 0, 0, 1], [Double.nan, 0, 0, 0, 1, 0, 0, 0, 1]] {
            let r = report(evidence: VideoEvidence(streamIndex: 0, containerMatrix: DisplayMatrix(entries)))
            #expect(codes(r).contains("matrix-invalid"))
            #expect(r.video?.rotation == nil && r.video?.exifOrientation == nil && r.video?.camera == nil)
            if entries[0].isFinite {
                let json = try JSONText().encode(r)
                #expect(!json.lowercased().contains("nan"))
            } else {
                // A non-finite entry cannot be written as a JSON number: encoding must fail loudly, not lie.
                #expect(throws: (any Error).self) { try JSONText().encode(r) }
            }
        }
    }

    @Test func timedOrientationThatDisagreesIsAFinding() {
        var evidence = VideoEvidence(streamIndex: 0, containerMatrix: DisplayMatrix(.right, width: 568, height: 320))
        evidence.timedOrientation = [TimedOrientation(time: 0, value: 6)]
        #expect(codes(report(evidence: evidence)).isEmpty)
        evidence.timedOrientation = [TimedOrientation(time: 0, value: 6), TimedOrientation(time: 2.5, value: 1)]
        #expect(codes(report(evidence: evidence)) == ["timed-orientation-differs"])
    }

    @Test func trackTitleRotationHint() {
        let r = report(stream: videoStream(tags: ["title": "htc_video_rotA-090"]))
        #expect(codes(r) == ["track-title-rotation"])
        #expect(r.findings.first?.message.contains("90") == true)
    }

    @Test func primaryVideoIsNotStreamZeroNorCoverArt() {
        var audio = StreamReport(index: 0, type: "audio")
        audio.isDefault = true
        var cover = videoStream(index: 1, width: 600, height: 600)
        cover.isAttachedPicture = true
        let small = videoStream(index: 2, width: 320, height: 240)
        let big = videoStream(index: 3, width: 1920, height: 1080)
        #expect(MediaProbe.primaryVideoIndex(in: [audio, cover, small, big]) == 3)
        var defaultSmall = small
        defaultSmall.isDefault = true
        #expect(MediaProbe.primaryVideoIndex(in: [audio, cover, defaultSmall, big]) == 2)
        #expect(MediaProbe.primaryVideoIndex(in: [audio, cover]) == nil)
    }

    @Test func noVideo() {
        let r = MediaReport(
            probe: MediaProbe(
                path: "a.m4a", format: FormatReport(name: "mov", streamCount: 1),
                streams: [StreamReport(index: 0, type: "audio")], video: nil))
        #expect(r.video == nil)
        #expect(codes(r) == ["no-video"])
    }

    @Test func everyKeyIsPresentEvenWhenUnknown() throws {
        let r = report(stream: StreamReport(index: 0, type: "video"))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(JSONText().encode(r).utf8)) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "schema_version", "path", "path_bytes", "format", "streams", "video", "photo", "content", "orientation",
                "findings",
            ])
        #expect(object["schema_version"] as? Int == 7)
        #expect(object["photo"] is NSNull)
        let video = try #require(object["video"] as? [String: Any])
        for key in [
            "index", "codec", "coded_width", "coded_height", "display_width", "display_height", "matrix", "rotation",
            "mirrored", "exif_orientation", "layout", "camera", "camera_evidence", "ffprobe_rotation",
            "orientation_source", "sources", "sample_aspect_ratio",
        ] {
            #expect(video.keys.contains(key), "video.\(key)")
        }
        #expect(video["coded_width"] is NSNull)
        let stream = try #require((object["streams"] as? [[String: Any]])?.first)
        #expect(stream.keys.contains("pix_fmt") && stream["pix_fmt"] is NSNull)
        let format = try #require(object["format"] as? [String: Any])
        for key in ["name", "duration", "size", "tags", "bit_rate", "location"] { #expect(format.keys.contains(key)) }
    }

    @Test func reportRoundTripsThroughJSON() throws {
        let original = report(
            evidence: VideoEvidence(
                streamIndex: 0, containerMatrix: DisplayMatrix(.leftMirrored, width: 568, height: 320)))
        let decoded = try JSONDecoder().decode(MediaReport.self, from: Data(JSONText().encode(original).utf8))
        #expect(decoded == original)
    }

    @Test(arguments: [
        ("+51.5334-000.1255+026.756/", 51.5334, -0.1255, 26.756 as Double?),
        ("+40.7248-073.9883+044.000/", 40.7248, -73.9883, 44),
        ("+40.68-074.50/", 40.68, -74.5, nil),
        ("+4040.8-07430.0/", 40 + 40.8 / 60, -(74 + 30.0 / 60), nil),
        ("-334512+1512006/", -(33 + 45 / 60.0 + 12 / 3600.0), 151 + 20 / 60.0 + 6 / 3600.0, nil),
    ])
    func iso6709(text: String, latitude: Double, longitude: Double, altitude: Double?) throws {
        let location = try #require(Location(iso6709: text))
        #expect(abs(location.latitude - latitude) < 1e-9)
        #expect(abs(location.longitude - longitude) < 1e-9)
        #expect(location.altitude == altitude)
    }

    @Test(arguments: ["", "garbage", "+95.0+010.0/", "+10.0/"])
    func iso6709Rejects(text: String) {
        #expect(Location(iso6709: text) == nil)
    }
}

/// One bit-rate rule for every path (FFmpeg's, the box layer's description, the headers' view).
@Suite struct AverageBitRateTests {
    @Test func sizeOverDurationRoundedTowardsZero() {
        #expect(FormatReport.averageBitRate(bytes: 1000, seconds: 3) == 2666)
        #expect(FormatReport.averageBitRate(bytes: 1000, seconds: 0) == nil)
        #expect(FormatReport.averageBitRate(bytes: 0, seconds: 1) == nil)
        #expect(FormatReport.averageBitRate(bytes: 1000, seconds: .nan) == nil)
    }

    /// Two terabytes in a microsecond is more bits a second than an Int holds: nil, not a trap.
    @Test func aRateAnIntCannotHoldIsNil() {
        #expect(FormatReport.averageBitRate(bytes: 2 << 40, seconds: 0.000001) == nil)
        #expect(FormatReport.averageBitRate(bytes: Int64.max, seconds: 1) == nil)
    }
}

/// The suggested look at a file names its picture after the file (issue 24: every suggestion said
/// `-o check.png`, so following several overwrote one picture), each word quoted once.
@Suite struct CompareCommandTests {
    @Test(arguments: [
        ("lib/IMG_1.mov", "vidorient thumbnail lib/IMG_1.mov --compare -o IMG_1-check.png"),
        ("a b/it's.jpg", "vidorient thumbnail 'a b/it'\\''s.jpg' --compare -o 'it'\\''s-check.png'"),
        ("-x.mp4", "vidorient thumbnail ./-x.mp4 --compare -o ./-x-check.png"),
        (".hidden", "vidorient thumbnail .hidden --compare -o .hidden-check.png"),
    ])
    func namedAfterTheFile(path: String, command: String) {
        #expect(MediaReport.compareCommand(path) == command)
    }
}
