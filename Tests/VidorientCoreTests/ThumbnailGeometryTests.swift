import Testing
import VidorientCore

/// The thumbnail size rule (docs/thumbnail.md): a claimed sample aspect ratio never makes the
/// picture longer than the stored frame's longest side, and nothing exceeds the pixel budget.
@Suite struct ThumbnailGeometryTests {
    @Test(arguments: [
        // stored, sample aspect ratio, expected scaled size
        (1920, 1080, 100.0, 1920, 11),
        (3840, 2160, 100.0, 3840, 22),
        (1920, 1080, 1.0, 1920, 1080),
        (720, 480, 32.0 / 27.0, 720, 405),
        (1920, 1080, 0.01, 19, 1080),
        (1920, 1080, 1e300, 1920, 1),
    ])
    func aClaimedAspectRatioStaysWithinTheStoredLongestSide(
        width: Int, height: Int, sar: Double, expectedWidth: Int, expectedHeight: Int
    ) throws {
        let geometry = try ThumbnailGeometry(
            storedWidth: width, storedHeight: height, sampleAspectRatio: sar, video: nil, request: ThumbnailRequest())
        #expect(geometry.scaledWidth == expectedWidth)
        #expect(geometry.scaledHeight == expectedHeight)
        #expect(max(geometry.outputWidth, geometry.outputHeight) <= max(width, height))
    }

    @Test func aRequestedSizeStillAppliesTheAspectRatio() throws {
        let geometry = try ThumbnailGeometry(
            storedWidth: 1920, storedHeight: 1080, sampleAspectRatio: 100, video: nil,
            request: ThumbnailRequest(width: 16384))
        #expect(geometry.outputWidth == 16384)
        #expect(geometry.outputHeight == 92)
    }

    @Test(arguments: [ThumbnailRequest(height: 2160), ThumbnailRequest(height: 1080)])
    func beyondTheBudgetIsRefused(request: ThumbnailRequest) {
        // 100:1 at 2160 lines high is 384,000 pixels wide: refused, not attempted.
        #expect(throws: ThumbnailGeometry.TooLarge.self) {
            try ThumbnailGeometry(
                storedWidth: 3840, storedHeight: 2160, sampleAspectRatio: 100, video: nil, request: request)
        }
    }

    @Test func everySideWithinLimitsCanStillBeTooManyPixels() {
        // 16384x16384 is 2^28 pixels: each side allowed, the whole not.
        #expect(throws: ThumbnailGeometry.TooLarge.self) {
            try ThumbnailGeometry(
                storedWidth: 16384, storedHeight: 16384, sampleAspectRatio: 1, video: nil, request: ThumbnailRequest())
        }
        #expect(throws: Never.self) {
            try ThumbnailGeometry(
                storedWidth: 16384, storedHeight: 16384, sampleAspectRatio: 1, video: nil,
                request: ThumbnailRequest(width: 8192))
        }
    }

    @Test func theRefusalSaysWhatWouldHaveBeenMade() {
        let error = ThumbnailGeometry.TooLarge(width: 384000, height: 2160)
        #expect(
            error.description
                == "the picture would be 384000x2160 pixels, beyond the limit of 16384 a side and 134217728 pixels in all"
        )
    }
}

/// The representative frame's candidates: a keyframe already judged is not decoded again.
@Suite struct RepresentativeFrameTests {
    /// Keyframes every `interval` seconds, as a grab without `exact` lands on them (in ms).
    static func keyframes(every interval: Double) -> (Double) -> Int64? {
        { Int64(($0 / interval).rounded(.down) * interval * 1000) }
    }

    @Test func aShortClipWithOneKeyframeIsJudgedOnce() {
        // 1.2 s with a keyframe a second: 10 % to 50 % all start from the keyframe at 0.
        let times = RepresentativeFrame.candidateTimes(duration: 1.2, exact: false, keyframe: Self.keyframes(every: 1))
        #expect(times == [1.2 * 0.10])
    }

    @Test func eachKeyframeIsTriedOnceInOrder() {
        // 10 s, a keyframe a second: 1.0, 1.5 and 2.0 s start from keyframes 1 s and 2 s.
        let times = RepresentativeFrame.candidateTimes(duration: 10, exact: false, keyframe: Self.keyframes(every: 1))
        #expect(times == [0.10, 0.20, 0.30, 0.40, 0.50].map { 10 * $0 })
    }

    @Test func exactOrUnknownKeyframesTryEveryCandidate() {
        let all = RepresentativeFrame.candidateFractions.map { 1.2 * $0 }
        #expect(
            RepresentativeFrame.candidateTimes(duration: 1.2, exact: true, keyframe: Self.keyframes(every: 1)) == all)
        #expect(RepresentativeFrame.candidateTimes(duration: 1.2, exact: false) { _ in nil } == all)
    }
}
