import Foundation
import Testing
import Vidorient
import VidorientCore
import VidorientTestSupport

@Suite struct TestMediaTests {
    @Test func manifestIsThere() {
        // Guards every table below: an empty manifest would make them pass vacuously.
        #expect(TestMedia.good.count >= 90)
        #expect(TestMedia.bad.count >= 9)
    }

    @Test(arguments: TestMedia.good)
    func reportMatchesHowTheFileWasBuilt(entry: TestMedia.Entry) throws {
        let report = try Prober().inspect(entry.path)
        if let photo = report.photo {
            // Photos come down the photo path: no streams, the decision in `photo`.
            #expect(report.video == nil && report.streams.isEmpty)
            #expect(photo.storedWidth == entry.storedWidth && photo.storedHeight == entry.storedHeight)
            #expect(photo.displayWidth == entry.displayWidth && photo.displayHeight == entry.displayHeight)
            #expect(photo.exifOrientation == entry.exifOrientation)
            #expect(Double(photo.rotation) == entry.rotation)
            #expect(photo.mirrored == entry.mirrored)
            #expect(photo.orientationSource.rawValue == entry.orientationSource)
            #expect(report.findings.contains { $0.code == "mirrored" } == (entry.mirrored == true))
            return
        }
        guard let index = entry.videoIndex, entry.attachedPic != true else {
            // No video, or only cover art: nothing to orient.
            #expect(report.video == nil)
            #expect(report.findings.map(\.code) == ["no-video"])
            return
        }
        let video = try #require(report.video)
        #expect(video.index == index)
        #expect(video.codedWidth == entry.storedWidth && video.codedHeight == entry.storedHeight)
        #expect(video.displayWidth == entry.displayWidth && video.displayHeight == entry.displayHeight)
        #expect(video.exifOrientation == entry.exifOrientation)
        #expect(video.rotation == entry.rotation)
        #expect(video.mirrored == entry.mirrored)
        #expect(video.orientationSource.rawValue == entry.orientationSource)
        #expect(video.ffprobeRotation == entry.ffprobeRotation)
        let matrix = try #require(entry.matrix)
        #expect(zip(video.matrix, matrix).allSatisfy { abs($0 - $1) < 1e-4 })
        if entry.sampleAspectRatio != "1:1" { #expect(video.sampleAspectRatio == entry.sampleAspectRatio) }
        #expect(report.findings.contains { $0.code == "mirrored" } == (entry.mirrored == true))
    }

    @Test func oddScaledAndSEIFilesHaveTheirFindings() throws {
        func codes(_ name: String) throws -> [String] {
            try Prober().inspect(TestMedia.folder.appendingPathComponent(name).path).findings.map(\.code)
        }
        #expect(try codes("odd-angle-30.mp4") == ["odd-angle"])
        #expect(try codes("scaled-2x.mp4") == ["matrix-scale"])
        #expect(try codes("sei-90.mp4") == ["codec-orientation"])
        #expect(try codes("orient-6.mp4").isEmpty)
    }

    /// A movie whose last box claims more bytes than the file has: the file was cut (issue 24),
    /// the description is whole and read, and the box layer's reason is a finding, not a silence.
    @Test func aBoxLayerErrorIsAFindingNotASilence() throws {
        let folder = try TemporaryFolder("box-error")
        defer { folder.remove() }
        let path = try folder.copy(TestMedia.path("orient-6.mp4"), as: "orient-6.mp4")
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0, 0, 0x10, 0, 0x66, 0x72, 0x65, 0x65]))  // 4096-byte 'free', 8 there
        try handle.close()
        let report = try Prober().inspect(path)
        #expect(report.video?.exifOrientation == 6)
        #expect(report.findings.map(\.code) == ["file-truncated"])
        #expect(report.findings.first?.message.contains("'free' box at") == true, "\(report.findings)")
        #expect(try Prober().inspect(TestMedia.path("orient-6.mp4")).findings.isEmpty)
    }

    @Test(arguments: TestMedia.good.filter { $0.name.hasSuffix(".mp4") || $0.name.hasSuffix(".mov") })
    func ffprobeRotationIsWhatFFprobePrints(entry: TestMedia.Entry) throws {
        #expect(try Prober().inspect(entry.path).video?.ffprobeRotation == FFprobe.rotation(entry.path))
    }

    /// Photos report no streams (their `photo` object says what ffprobe's one image stream would).
    @Test(arguments: TestMedia.good)
    func streamsAgreeWithFFprobe(entry: TestMedia.Entry) throws {
        let report = try Prober().inspect(entry.path)
        guard report.photo == nil else { return }
        try FFprobe.expectStreamsAgree(path: entry.path, report: report)
    }

    /// A bad file is refused with a reason, or, when it is only cut short after its header (an
    /// IDAT or iloc extent that runs past the end), read as far as it goes with a `file-truncated`
    /// error finding (issue 24).
    @Test(arguments: TestMedia.bad)
    func badFilesAreRefusedWithAReason(entry: TestMedia.Entry) throws {
        do {
            let report = try Prober().inspect(entry.path)
            let truncated = report.findings.first { $0.code == "file-truncated" }
            #expect(truncated?.severity == .error, "\(entry.name): read, yet not said truncated")
            #expect(truncated?.message.contains("past the end of the file") == true)
        } catch {
            #expect(error.path == entry.path)
            #expect(!error.reason.isEmpty)
            #expect(error.description.hasPrefix("could not read '\(entry.path)': "))
        }
    }

    @Test func directoriesAndMissingFilesAreRefused() throws {
        let directory = try #require(throws: InputError.self) { try Prober().inspect(TestMedia.folder.path) }
        #expect(directory.reason == "is a directory")
        let missing = try #require(throws: InputError.self) { try Prober().inspect("/no/such/file.mp4") }
        #expect(missing.reason == "no such file or directory")
    }
}

@Suite struct SEITests {
    /// An SEI written by FFmpeg's own h264_metadata filter: flips come before the anticlockwise
    /// turn (H.264 D.2.27), so "rotate 90, flip horizontal" is a transpose, EXIF 5. Reading the
    /// NAL units ourselves and FFmpeg's decoder must agree.
    @Test(arguments: [
        ("rotate=90:flip=horizontal", 5), ("rotate=90", 8), ("rotate=180:flip=vertical", 2),
        ("rotate=270:flip=horizontal", 7),
    ])
    func ourSEIReaderAgreesWithFFmpegsDecoder(options: String, exif: Int) throws {
        let folder = try scratchFolder("sei-\(exif)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("sei.mp4").path
        let ffmpeg = try run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-i", TestMedia.path("orient-1.mp4"),
                "-c", "copy", "-bsf:v", "h264_metadata=display_orientation=insert:\(options)", clip,
            ])
        try #require(ffmpeg.status == 0, "\(ffmpeg.stderr)")
        let fast = try #require(try Prober().inspect(clip).video)
        let deep = try #require(try Prober(decodesFirstFrame: true).inspect(clip).video)
        #expect(fast.orientationSource == .sei)
        #expect(fast.exifOrientation == exif)
        #expect(deep.exifOrientation == exif)
        #expect(fast.matrix == deep.matrix)
    }
}
