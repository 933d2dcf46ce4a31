import Foundation
import Testing
import Vidorient
import VidorientCore

/// Which frame a thumbnail shows, on a clip where every frame shows its own number: 48 frames at
/// 10 fps, H.264 with a keyframe every 12 frames and always two B-frames between references
/// (x264's pyramid makes one of them a reference, the other not), so that decoding the frame at
/// a time means skipping non-reference frames and reordering. Frame n shows n in binary: six
/// bars 16 pixels wide, bar k white when bit k of n is set.
@Suite struct FrameChoiceTests {
    static let clip: Result<String, CounterClipError> = makeCounterClip()

    struct CounterClipError: Error { var status: Int32 }

    static func makeCounterClip() -> Result<String, CounterClipError> {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vidorient-counter-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("counter.mp4").path
        let status =
            (try? runFFmpeg([
                "-f", "lavfi", "-i",
                "nullsrc=s=96x32:r=10:d=4.8,format=gray,geq=lum='if(bitand(N,pow(2,floor(X/16))),235,16)'",
                "-pix_fmt", "yuv420p", "-c:v", "libx264", "-g", "12", "-bf", "2", "-sc_threshold", "0",
                "-x264-params", "b-adapt=0", "-crf", "12", path,
            ])) ?? -1
        return status == 0 ? .success(path) : .failure(CounterClipError(status: status))
    }

    /// The number the picture shows.
    static func number(in picture: Picture) -> Int {
        (0..<6).reduce(0) { number, bit in
            let x = (bit * 16 + 8) * picture.width / 96
            return picture[x, picture.height / 2].green > 128 ? number | 1 << bit : number
        }
    }

    @Test func theClipIsWhatTheTestsAssume() throws {
        let path = try FrameChoiceTests.clip.get()
        let report = try Prober().inspect(path)
        #expect(report.streams.first?.frameCount == 48)
        #expect(report.streams.first?.codec == "h264")
    }

    /// `--exact`: the first frame at or after the time, wherever it falls in a GOP (a keyframe,
    /// a reference B, a non-reference B, a P), and the last frame for a time past the end.
    static let exactTimes: [(seconds: Double, frame: Int)] =
        (0..<48).map { (n: Int) -> (seconds: Double, frame: Int) in (n == 0 ? 0 : (Double(n) - 0.5) / 10, n) }
        + [(4.7, 47), (4.75, 47), (60, 47)]

    @Test(arguments: exactTimes)
    func exactTimeShowsTheFirstFrameAtOrAfterIt(seconds: Double, frame: Int) throws {
        let path = try FrameChoiceTests.clip.get()
        let shown = try Thumbnailer().frame(path, request: ThumbnailRequest(at: .seconds(seconds), exact: true))
        #expect(FrameChoiceTests.number(in: shown.picture) == frame, "at \(seconds) s")
        #expect(abs(try #require(shown.time) - Double(frame) / 10) < 1e-6, "at \(seconds) s")
    }

    /// Without `--exact`: the keyframe at or before the time, by its number and its time.
    @Test(
        arguments: [(0, 0), (0.55, 0), (1.15, 0), (1.2, 12), (2.3, 12), (2.45, 24), (3.65, 36), (4.7, 36), (60, 36)]
            as [(Double, Int)])
    func defaultShowsTheKeyframeAtOrBefore(seconds: Double, frame: Int) throws {
        let path = try FrameChoiceTests.clip.get()
        let shown = try Thumbnailer().frame(path, request: ThumbnailRequest(at: .seconds(seconds)))
        #expect(FrameChoiceTests.number(in: shown.picture) == frame, "at \(seconds) s")
        #expect(abs(try #require(shown.time) - Double(frame) / 10) < 1e-6, "at \(seconds) s")
    }

    /// The representative frame tries several times on one open decoder, each a keyframe.
    @Test func representativeFrameIsTheKeyframeBeforeTenPercent() throws {
        let path = try FrameChoiceTests.clip.get()
        // 10% of 4.8 s is 0.48 s: frame 4.8, keyframe 0; frame 0 shows 0, all bars black, which is
        // flat: the next candidates (15% = 0.72 s, ...) share keyframe 0 up to 20% (0.96 s), then
        // 30% (1.44 s) has keyframe 12, which is not flat.
        let shown = try Thumbnailer().frame(path, request: ThumbnailRequest())
        #expect(FrameChoiceTests.number(in: shown.picture) == 12)
    }
}
