public import VidorientContent
public import VidorientCore
import VidorientFFmpeg
import VidorientIO

/// Which way the pixels say is up, for a photo or a clip as it is displayed (the orientation
/// `inspect` decided, applied): the pictures are made here, measured by a `ContentEngine`, and
/// judged by Core's `ContentVerdict` (docs/content.md).
public struct ContentJudge: Sendable {
    /// The box the displayed picture is scaled into: its centred square (at least 224 px for a
    /// picture no longer than 2:1) feeds the scene network, and the engine scales it down again
    /// for the face detector (`ContentEngine.faceSide`).
    public static let pictureSide = 448
    /// Where in a clip frames are taken: spread over it, as a viewer skimming it would see it, each
    /// decoded at its time (not the keyframe before it, which a short clip shares between several).
    public static let frameFractions: [Double] = [0.1, 0.3, 0.5, 0.7, 0.9]
    /// A picture whose shorter side is below this has too little in it to judge: no opinion.
    public static let minimumSide = 32

    public var policy: ContentPolicy

    public init(policy: ContentPolicy = ContentEngine.policy) {
        self.policy = policy
    }

    /// An engine for files judged one after another (`inspect --content`): each pass runs
    /// OpenCV's threads on every core this process may use. (The audit, which judges a file on
    /// each core, prepares its engines with `Auditor.prepareContent` instead.)
    public static func engineForOneFileAtATime() throws(ContentUnavailable) -> ContentEngine {
        try ContentEngine.setThreadsPerPass(processorCount)
        return try ContentEngine()
    }

    /// The verdict on `path`, read as `inspect` reads it. Throws one `InputError` naming the file
    /// when it cannot be decoded, or when the engine cannot judge.
    public func verdict(_ path: String, engine: ContentEngine) throws(InputError) -> ContentVerdict {
        ContentVerdict(evidence: try evidence(path, engine: engine), policy: policy)
    }

    /// The verdict on a file `Prober` has read, its pictures shown as the inspection's report decides.
    public func verdict(of inspected: InspectedFile, engine: ContentEngine) throws(InputError) -> ContentVerdict {
        ContentVerdict(evidence: try evidence(of: inspected, engine: engine), policy: policy)
    }

    /// The evidence of each picture judged, combined for a clip; a clip whose frames are all
    /// black or flat gives evidence with no faces and no scene (no opinion, 0 frames).
    public func evidence(_ path: String, engine: ContentEngine) throws(InputError) -> ContentEvidence {
        try judge(PictureSource(path, request: ContentJudge.request), path: path, engine: engine) {
            request throws(InputError) in try PictureSource(path, request: request)
        }
    }

    /// `evidence` of a file `Prober` has read.
    public func evidence(of inspected: InspectedFile, engine: ContentEngine) throws(InputError) -> ContentEvidence {
        try judge(PictureSource(inspected, request: ContentJudge.request), path: inspected.path, engine: engine) {
            request throws(InputError) in try PictureSource(inspected, request: request)
        }
    }

    /// The pictures measured and combined; then, for a file that faces and scene leave without an
    /// opinion and that looks like a page or a screen (`ContentPolicy.readsText`), what Tesseract
    /// reads in it at `ContentEngine.textSide`: a photo decoded again, a clip's middle frame
    /// (`reopened` asks for the file at that size); where that leaves it without an opinion
    /// (`ContentPolicy.readsWords`), the words Tesseract's recogniser reads in each turn of the same
    /// picture; and where those leave it without one too (`ContentPolicy.readsLetterShapes`), what
    /// Leptonica's letter shapes say of it. Where Tesseract or its data, or Leptonica, is not
    /// installed, that reading is not made (`content.text`, `content.word_counts`,
    /// `content.letter_shapes` null) and the file is judged without it.
    private func judge(
        _ source: PictureSource, path: String, engine: ContentEngine,
        reopened: (ThumbnailRequest) throws(InputError) -> PictureSource
    ) throws(InputError) -> ContentEvidence {
        var evidence = try measure(frames(source).map(\.picture), path: path, engine: engine)
        guard policy.readsText(evidence) else { return evidence }
        let request = ThumbnailRequest(width: ContentEngine.textSide, height: ContentEngine.textSide)
        let picture: Picture
        switch source {
        case .photo(let photo): picture = try photo.frame(request).picture
        case .video:
            guard case .video(let video) = try reopened(request) else { return evidence }
            let middle = video.isStill ? 0 : (video.duration ?? 0) / 2
            picture = Thumbnailer.Frame(try video.grab(at: middle, exact: true), report: video.report).picture
        }
        guard !RepresentativeFrame.isUniform(picture) else { return evidence }
        evidence.text = try? engine.text(in: picture)
        if policy.readsWords(evidence) { evidence.words = (try? engine.wordCounts(in: picture, policy: policy)) ?? nil }
        if policy.readsLetterShapes(evidence) { evidence.letterShapes = try? engine.letterShapes(in: picture) }
        // A page the thumbnail's test calls flat (nearly white) was still judged, by its text.
        let lettersCounted = evidence.letterShapes.map { $0.up != 0 || $0.left != 0 } ?? false
        let wordsRead = evidence.words.map { $0.counts.contains { $0 > 0 } } ?? false
        if evidence.text != nil || lettersCounted || wordsRead { evidence.frames = max(evidence.frames, 1) }
        return evidence
    }

    /// What the judged pictures are asked as: the displayed picture fitted into `pictureSide`.
    static let request = ThumbnailRequest(width: ContentJudge.pictureSide, height: ContentJudge.pictureSide)

    /// The pictures judged, as displayed: a photo's one, a clip's at `frameFractions` (each frame
    /// once); none when the picture is too small to judge.
    func frames(_ source: PictureSource) throws(InputError) -> [Thumbnailer.Frame] {
        let session: OpenVideo
        switch source {
        case .photo(let frames):
            guard ContentJudge.judgeable(frames.report.photo?.displayWidth, frames.report.photo?.displayHeight) else {
                return []
            }
            return [try frames.frame(ContentJudge.request)]
        case .video(let video): session = video
        }
        guard ContentJudge.judgeable(session.report.video?.displayWidth, session.report.video?.displayHeight) else {
            return []
        }
        let duration = session.duration
        let times = session.isStill || duration == nil ? [0] : ContentJudge.frameFractions.map { $0 * duration! }
        var frames: [Thumbnailer.Frame] = []
        var seen: Set<Double> = []
        for time in times {
            let frame = try session.grab(at: time, exact: true)
            // A short clip with few keyframes gives the same frame for several times: judge it once.
            if let shown = frame.time, !seen.insert(shown).inserted { continue }
            frames.append(Thumbnailer.Frame(frame, report: session.report))
        }
        return frames
    }

    /// A picture whose displayed size is known and at least `minimumSide` on its shorter side (the
    /// judged picture is scaled to `pictureSide`, which would hide how little there is).
    static func judgeable(_ width: Int?, _ height: Int?) -> Bool {
        guard let width, let height else { return false }
        return min(width, height) >= minimumSide
    }

    /// Every picture worth judging (not black or flat: as the thumbnail skips them)
    /// measured and combined; none left gives no faces and no scene, so no opinion. A picture
    /// judged alone is its file's whole evidence (`ContentPolicy.faceTurns`' `onlyPicture`).
    private func measure(_ pictures: [Picture], path: String, engine: ContentEngine) throws(InputError)
        -> ContentEvidence
    {
        let judged = pictures.filter { !RepresentativeFrame.isFlat($0) }
        var measured: [ContentEvidence] = []
        for picture in judged {
            do {
                measured.append(try engine.evidence(of: picture, policy: policy, onlyPicture: judged.count == 1))
            } catch {
                throw InputError(path: path, reason: error.description)
            }
        }
        if measured.count == 1 { return measured[0] }
        let nothing = ContentEvidence.Turn(faces: [], scene: nil)
        if let combined = ContentEvidence(frames: measured, policy: policy) { return combined }
        var evidence = ContentEvidence(turns: Array(repeating: nothing, count: 4), frames: 0)
        // Nothing for faces and the scene: but a page of sparse text on white is "flat" (nearly
        // white) to the thumbnail's test, and its text can still be read. How much it looks like
        // text is measured on every picture not of one colour, for Tesseract alone to decide.
        do {
            evidence.textLikeness = try pictures.filter { !RepresentativeFrame.isUniform($0) }
                .map { picture throws(ContentUnavailable) in try engine.textLikeness(of: picture) }.max()
        } catch {
            throw InputError(path: path, reason: error.description)
        }
        return evidence
    }
}
