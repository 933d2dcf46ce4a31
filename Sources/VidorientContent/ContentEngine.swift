import CContentEngine
import Synchronization
public import VidorientCore

/// Why content cannot be judged here: the engine's library, dlib or OpenCV, or the scene model
/// is missing. One line, for the file's error line or the command's.
public struct ContentUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}

/// The scene network's file: EfficientNet-Lite0 as ONNX with its top tuned for the task, made from
/// its PyPI package and `models/scene-top.npz` by `models/make-scene-model.py` (at setup in a
/// checkout, again whenever either script's input changes; by `make install` for an install).
public enum SceneModel {
    public static let fileName = "scene-efficientnet-lite0-upright.onnx"
    /// The converter's output is the same bytes every time; another size is another network (the
    /// original one, without the tuned top, has 18,543,668 bytes), which the upright head was not
    /// trained on.
    public static let byteCount = 22_599_931

    /// Where the model is looked for, first match wins: `$VIDORIENT_MODEL_DIR`; `../share/vidorient`
    /// beside the program (an install); `.build-models` in the program's folder or one above it
    /// (a checkout: the program is in `.build/<triple>/<configuration>`).
    public static func candidates(
        environment: String? = ProcessEnvironment.value("VIDORIENT_MODEL_DIR"),
        programFolder: String? = ProcessEnvironment.programFolder
    ) -> [String] {
        if let environment, !environment.isEmpty { return [environment + "/" + fileName] }
        guard let programFolder else { return [] }
        var places = [programFolder + "/../share/vidorient/" + fileName]
        var folder = programFolder
        for _ in 0..<5 {
            places.append(folder + "/.build-models/" + fileName)
            folder += "/.."
        }
        return places
    }

    /// The first candidate that is a regular file of the expected size.
    public static func locate() throws(ContentUnavailable) -> String {
        let places = candidates()
        var found: [String] = []
        for place in places {
            var status = stat()
            guard place.withPathCString({ stat($0, &status) }) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
                continue
            }
            if Int(status.st_size) == byteCount { return place }
            found.append("\(place) has \(status.st_size) bytes, not \(byteCount)")
        }
        if let wrong = found.first {
            throw ContentUnavailable("the content model is not the one vidorient was trained with (\(wrong))")
        }
        throw ContentUnavailable(
            "the content model is not installed (no \(fileName) in $VIDORIENT_MODEL_DIR, ../share/vidorient or "
                + ".build-models; run models/make-scene-model.py)")
    }
}

/// The process's environment and its program's folder, read once.
public enum ProcessEnvironment {
    public static func value(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// The folder of the running program (`/proc/self/exe`), symbolic links resolved.
    public static let programFolder: String? = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(pathBytes: buffer[0..<count].map { UInt8(bitPattern: $0) })
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }()
}

/// dlib's faces and the scene network's say on one picture, with the upright head applied. Owns
/// one engine of libVidorientContentEngine.so, which one thread uses at a time: a batch gives each
/// worker its own (`ContentEnginePool`); hence `@unchecked Sendable`, to pass it to that worker.
public final class ContentEngine: @unchecked Sendable {
    /// The longest side faces are looked for at (the picture is scaled down to it first), and the
    /// detector's upsampling: together they set the smallest face found (about 40 px at upsample 1).
    public static let faceSide = UprightHead.faceSide
    public static let faceUpsample = UprightHead.faceUpsample
    /// The side of the square the scene network is shown, and whether its mirror image may be shown
    /// too (the two scores averaged, when the picture alone leaves the scene in doubt: `showsMirror`):
    /// what the upright head was fitted for.
    public static let sceneSide = UprightHead.sceneSide
    public static let sceneMirror = UprightHead.sceneMirror
    /// The verdict's numbers, chosen with the head (`threshold` is the default `--content-threshold`),
    /// and the text signal's and the letter shapes', chosen on the `text-choose` split (docs/content.md).
    public static let policy: ContentPolicy = {
        var policy = UprightHead.policy
        policy.textLikenessFloor = 0.5
        policy.textConfidence = 3
        policy.letterConfidence = 7
        policy.letterRatio = 2.5
        policy.wordCount = 5
        policy.wordRatio = 3
        policy.wordConfidence = 70
        policy.wordLetters = 3
        return policy
    }()

    /// The ImageNet classes of pictures that are mostly text or a screen, whose summed probability
    /// is a picture's `ContentEvidence.textLikeness`: binder, envelope, packet, web site, comic book,
    /// crossword puzzle, street sign, book jacket, menu, screen, monitor, television, desktop
    /// computer, laptop, notebook, hand-held computer, cellular telephone, scoreboard.
    public static let textClasses = [
        446, 549, 692, 916, 917, 918, 919, 921, 922, 782, 664, 851, 527, 620, 681, 590, 487, 781,
    ]
    /// The longest side a picture is read by Tesseract at (a smaller one is enlarged toward it, at
    /// most twice): its letters must be of a readable size. Chosen on the `text-choose` split
    /// (docs/content.md): at confidence 5, read as they are up to 2,400 px, 38.6% of its pages;
    /// enlarged toward 2,400, 59.8%; toward 3,200, 64.9%, every one right.
    public static let textSide = 3200
    /// The longest side Tesseract's recogniser counts words at (the text picture shrunk to it, or a
    /// smaller one enlarged toward it, at most twice), and how long each turn's recognition may take
    /// before the counts are given up (four passes took 2.6-7.2 s of CPU on the pages timed for it, a
    /// dense page more: docs/content.md).
    public static let wordSide = 2400
    public static let wordDeadlineMilliseconds = 15000

    /// What measured a verdict: the scene network (by its size) and the head (by its fingerprint).
    /// A cached verdict with another identity is stale.
    /// The mirror's doubt range and the face search change the scores a verdict carries, so they are part of it.
    public static let identity =
        "lite0-\(SceneModel.byteCount)-head-\(UprightHead.fingerprint)-mirror-\(UprightHead.mirrorDoubt)-facesearch2"
        + "-text-\(policy.textLikenessFloor)-\(policy.textConfidence)-pagefaces"
        + "-letters-\(policy.letterConfidence)-\(policy.letterRatio)-\(textSide)"
        + "-words-\(policy.wordCount)-\(policy.wordRatio)-\(policy.wordConfidence)-\(policy.wordLetters)-\(wordSide)"

    private let engine: OpaquePointer

    /// Loads the engine's library (once per process) and the scene model.
    public init() throws(ContentUnavailable) {
        try ContentEngine.loadLibrary()
        let model = try SceneModel.locate()
        var error = [CChar](repeating: 0, count: 600)
        guard let engine = model.withPathCString({ vo_content_engine_create($0, &error, error.count) }) else {
            throw ContentUnavailable("the content model cannot be read (\(String(cMessage: error)))")
        }
        self.engine = engine
    }

    deinit { vo_content_engine_destroy(engine) }

    /// Opens libVidorientContentEngine.so, and with it dlib and OpenCV, once per process.
    public static func loadLibrary() throws(ContentUnavailable) {
        var error = [CChar](repeating: 0, count: 600)
        guard vo_content_load(&error, error.count) != 0 else { return }
        throw ContentUnavailable(String(cMessage: error))
    }

    /// How many threads OpenCV may use inside one pass of the scene network, for the whole
    /// process: all cores for one file, 1 when each worker has its own engine.
    public static func setThreadsPerPass(_ threads: Int) throws(ContentUnavailable) {
        try loadLibrary()
        vo_content_set_threads(Int32(clamping: threads))
    }

    /// The evidence of one picture as displayed: the scene in each of its four quarter turns, whether
    /// it has a natural up at all (from the scene's features of every turn, averaged), and faces in
    /// the turns the scene leaves open (`ContentPolicy.faceTurns`; `onlyPicture`: the picture is
    /// all of its file's evidence, a photo rather than a clip's frame). Each turn is shown to the
    /// network as it is, then, only when that leaves the scene in doubt (`UprightHead.mirrorDoubt`),
    /// as its mirror image too, the two scores and features averaged (`sceneMirror`).
    public func evidence(of picture: Picture, policy: ContentPolicy, onlyPicture: Bool = false)
        throws(ContentUnavailable) -> ContentEvidence
    {
        var turned: [Picture] = []
        var features: [[Float]] = []
        var textLikeness = 0.0
        for k in 0..<4 {
            turned.append(k == 0 ? picture : picture.oriented(Orientation(rotation: k * 90, mirrored: false)!))
            let (turnFeatures, classes) = try sceneFeaturesAndClasses(of: turned[k])
            features.append(turnFeatures)
            textLikeness = max(textLikeness, ContentEngine.textLikeness(classes))
        }
        var logits = features.map(ContentEngine.sceneLogit)
        if ContentEngine.showsMirror(sceneLogits: logits) {
            for k in 0..<4 {
                let mirrored = try sceneFeatures(of: turned[k], mirror: .mirrorAlone)
                logits[k] = (logits[k] + ContentEngine.sceneLogit(mirrored)) / 2
                features[k] = zip(features[k], mirrored).map { ($0 + $1) / 2 }
            }
        }
        let naturalUp = UprightHead.naturalUp(
            (0..<Int(VO_CONTENT_FEATURES)).map { i in features.reduce(Float(0)) { $0 + $1[i] } / 4 })
        let searched = policy.faceTurns(sceneLogits: logits, naturalUp: naturalUp, onlyPicture: onlyPicture)
        var turns: [ContentEvidence.Turn] = []
        for k in 0..<4 {
            let faces = searched[k] ? try faces(in: turned[k], floor: policy.faceFloor) : []
            turns.append(ContentEvidence.Turn(faces: faces, scene: logits[k], facesSought: searched[k]))
        }
        return ContentEvidence(turns: turns, naturalUp: naturalUp, textLikeness: textLikeness)
    }

    /// How much `picture` looks like a page of text or a screen (`ContentEvidence.textLikeness`), for
    /// a picture faces and the scene do not judge (nearly white or black): the scene's passes of its
    /// four turns, their classes only.
    public func textLikeness(of picture: Picture) throws(ContentUnavailable) -> Double {
        var most = 0.0
        for k in 0..<4 {
            let turned = k == 0 ? picture : picture.oriented(Orientation(rotation: k * 90, mirrored: false)!)
            most = max(most, ContentEngine.textLikeness(try sceneFeaturesAndClasses(of: turned).1))
        }
        return most
    }

    /// The probability of `textClasses` among the network's 1,000 class scores.
    static func textLikeness(_ logits: [Float]) -> Double {
        let top = Double(logits.max() ?? 0)
        let exponentials = logits.map { exp(Double($0) - top) }
        let sum = exponentials.reduce(0, +)
        return textClasses.reduce(0) { $0 + exponentials[$1] } / sum
    }

    /// What Tesseract's orientation detection reads in `picture`, given at most `textSide` on its
    /// longest side (a smaller one is enlarged toward it, at most twice); nil when there is too little
    /// text for it. Throws when Tesseract or its orientation data is not installed.
    public func text(in picture: Picture) throws(ContentUnavailable) -> TextReading? {
        var reading = vo_content_text()
        var error = [CChar](repeating: 0, count: 600)
        let status = picture.pixels.withUnsafeBufferPointer { pixels in
            vo_content_text_orientation(
                engine, pixels.baseAddress, Int32(picture.width), Int32(picture.height), Int32(picture.width * 3),
                Int32(ContentEngine.textSide), &reading, &error, error.count)
        }
        guard status >= 0 else { throw ContentUnavailable(String(cMessage: error)) }
        guard status == 1 else { return nil }
        let script = withUnsafeBytes(of: reading.script) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return TextReading(
            turn: Int(reading.rotation) / 90, confidence: Double(reading.confidence), script: script,
            scriptConfidence: Double(reading.script_confidence))
    }

    /// What Leptonica's letter shapes say of `picture`, fitted to `textSide` on its longest side
    /// (enlarged or shrunk: its templates are made for letters at 150-300 pixels an inch). Throws
    /// when Leptonica is not installed.
    public func letterShapes(in picture: Picture) throws(ContentUnavailable) -> LetterShapes {
        var letters = vo_content_letters()
        var error = [CChar](repeating: 0, count: 600)
        let status = picture.pixels.withUnsafeBufferPointer { pixels in
            vo_content_letter_shapes(
                engine, pixels.baseAddress, Int32(picture.width), Int32(picture.height), Int32(picture.width * 3),
                Int32(ContentEngine.textSide), &letters, &error, error.count)
        }
        guard status == 0 else { throw ContentUnavailable(String(cMessage: error)) }
        return LetterShapes(up: Double(letters.up), left: Double(letters.left))
    }

    /// How many words Tesseract's recogniser reads in each quarter turn of `picture`, fitted to
    /// `wordSide`: those of at least `policy.wordLetters` letters read with a confidence of
    /// `policy.wordConfidence` or more. nil when a turn ran past `deadline` milliseconds
    /// (`wordDeadlineMilliseconds`). Throws when Tesseract or its English data is not installed.
    public func wordCounts(
        in picture: Picture, policy: ContentPolicy, deadline: Int = ContentEngine.wordDeadlineMilliseconds
    ) throws(ContentUnavailable) -> WordCounts? {
        var words = vo_content_words()
        var error = [CChar](repeating: 0, count: 600)
        let status = picture.pixels.withUnsafeBufferPointer { pixels in
            vo_content_word_counts(
                engine, pixels.baseAddress, Int32(picture.width), Int32(picture.height), Int32(picture.width * 3),
                Int32(ContentEngine.wordSide), Float(policy.wordConfidence), Int32(policy.wordLetters),
                Int32(deadline), &words, &error, error.count)
        }
        guard status >= 0 else { throw ContentUnavailable(String(cMessage: error)) }
        guard status == 1 else { return nil }
        return withUnsafeBytes(of: words.counts) { bytes in
            WordCounts(bytes.bindMemory(to: Int32.self).map { Int($0) })
        }
    }

    /// The score of every face at `floor` or above, best first.
    public func faces(in picture: Picture, floor: Double) throws(ContentUnavailable) -> [Double] {
        var found = [vo_content_face](repeating: vo_content_face(), count: 64)
        var error = [CChar](repeating: 0, count: 600)
        let count = picture.pixels.withUnsafeBufferPointer { pixels in
            vo_content_faces(
                engine, pixels.baseAddress, Int32(picture.width), Int32(picture.height), Int32(picture.width * 3),
                Int32(ContentEngine.faceSide), Int32(ContentEngine.faceUpsample), Float(floor), &found,
                Int32(found.count), &error, error.count)
        }
        guard count >= 0 else { throw ContentUnavailable("face detection failed (\(String(cMessage: error)))") }
        return found.prefix(Int(count)).map { Double($0.score) }
    }

    /// Which picture one pass of the scene network is shown (the C surface's `mirror`).
    public enum ScenePass: Int32, Sendable {
        case pictureAlone = 0
        case mirrorAlone = 2
    }

    /// The scene network's features of the picture's centred square, or of its mirror image's.
    public func sceneFeatures(of picture: Picture, mirror pass: ScenePass) throws(ContentUnavailable) -> [Float] {
        try scenePass(of: picture, mirror: pass, classes: false).features
    }

    /// The scene network's features of the picture's centred square and its ImageNet class scores,
    /// from one pass.
    func sceneFeaturesAndClasses(of picture: Picture) throws(ContentUnavailable) -> ([Float], [Float]) {
        try scenePass(of: picture, mirror: .pictureAlone, classes: true)
    }

    /// One pass of the scene network: its features and, when asked, its class scores (else empty).
    private func scenePass(of picture: Picture, mirror pass: ScenePass, classes: Bool) throws(ContentUnavailable)
        -> (features: [Float], logits: [Float])
    {
        var features = [Float](repeating: 0, count: Int(VO_CONTENT_FEATURES))
        var logits = [Float](repeating: 0, count: classes ? Int(VO_CONTENT_CLASSES) : 0)
        var error = [CChar](repeating: 0, count: 600)
        let status = picture.pixels.withUnsafeBufferPointer { pixels in
            logits.withUnsafeMutableBufferPointer { scores in
                vo_content_scene_classes(
                    engine, pixels.baseAddress, Int32(picture.width), Int32(picture.height), Int32(picture.width * 3),
                    Int32(ContentEngine.sceneSide), pass.rawValue, &features, classes ? scores.baseAddress : nil,
                    &error, error.count)
            }
        }
        guard status == 0 else { throw ContentUnavailable("the scene network failed (\(String(cMessage: error)))") }
        return (features, logits)
    }

    /// Whether the four turns' scores of the picture alone call for their mirror images too
    /// (`sceneMirror`, `UprightHead.mirrorDoubt`).
    public static func showsMirror(sceneLogits: [Double]) -> Bool {
        sceneMirror && UprightHead.inDoubt(sceneLogits)
    }

    /// The upright head's score of a picture's scene features.
    public static func sceneLogit(_ features: [Float]) -> Double { UprightHead.logit(features[...]) }

    /// The scene network's ImageNet classes for the picture, most likely first (class numbers in
    /// ImageNet's order, 0-999): how a test proves the network survived its conversion.
    public func imageNetClasses(of picture: Picture, count: Int = 5) throws(ContentUnavailable) -> [Int] {
        var logits = [Float](repeating: 0, count: Int(VO_CONTENT_CLASSES))
        var error = [CChar](repeating: 0, count: 600)
        let status = picture.pixels.withUnsafeBufferPointer { pixels in
            vo_content_classes(
                engine, pixels.baseAddress, Int32(picture.width), Int32(picture.height), Int32(picture.width * 3),
                &logits, &error, error.count)
        }
        guard status == 0 else { throw ContentUnavailable("the scene network failed (\(String(cMessage: error)))") }
        return Array(logits.indices.sorted { logits[$0] > logits[$1] }.prefix(count))
    }
}

/// Engines for a batch: each worker takes one, uses it alone, and gives it back; one is made when
/// none is idle, so a run holds as many as it has workers judging at once.
public final class ContentEnginePool: Sendable {
    private let idle = Mutex<[ContentEngine]>([])

    public init() {}

    /// An engine made beforehand (to learn early whether engines can be made at all).
    public func add(_ engine: ContentEngine) { idle.withLock { $0.append(engine) } }

    /// Runs `body` with an engine no other caller holds meanwhile; an engine that cannot be made
    /// is `path`'s error.
    public func withEngine<Result>(for path: String, _ body: (ContentEngine) throws(InputError) -> Result)
        throws(InputError) -> Result
    {
        let engine: ContentEngine
        if let idle = idle.withLock({ $0.popLast() }) {
            engine = idle
        } else {
            do { engine = try ContentEngine() } catch { throw InputError(path: path, reason: error.description) }
        }
        defer { idle.withLock { $0.append(engine) } }
        return try body(engine)
    }
}
