#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Which way is up, from the pixels alone (docs/content.md). The content engine (VidorientContent)
// measures; everything here decides, and is tested without it.
//
// A turn is a clockwise quarter turn of the picture *as displayed* (the orientation inspect decided,
// applied): turn 1 is the displayed picture turned 90° clockwise. "Turn needed: 90" means the
// displayed picture shows upright once turned 90° clockwise.

/// What the pixels of a picture (or of a few frames of a clip) say, turn by turn.
public struct ContentEvidence: Sendable, Hashable {
    /// One quarter turn's measurements.
    public struct Turn: Sendable, Hashable {
        /// dlib's score of every face found in the picture turned this way, best first (a score of
        /// 0 is dlib's own threshold; weaker candidates down to `ContentPolicy.faceFloor` are kept
        /// so that the turns can be compared).
        public var faces: [Double]
        /// The upright head's log-odds that the picture turned this way is upright, the picture and
        /// its mirror image averaged; for several frames, the frames' log-probabilities summed.
        /// nil when the scene was not measured.
        public var scene: Double?
        /// Whether faces were looked for in this turn (`ContentPolicy.faceTurns`): `faces` is
        /// empty both where none was found and where none was looked for.
        public var facesSought: Bool

        public init(faces: [Double], scene: Double?, facesSought: Bool = true) {
            self.faces = faces.sorted(by: >)
            self.scene = scene
            self.facesSought = facesSought
        }

        /// The strongest face, or nil.
        public var bestFace: Double? { faces.first }
    }

    /// Index k: the displayed picture turned k quarter turns clockwise. Always four.
    public var turns: [Turn]
    /// How many pictures were judged: 1 for a photo, the frames kept for a clip.
    public var frames: Int
    /// The probability that the picture has a natural up at all (a texture, a sky, a top-down shot
    /// has none), from what it shows whichever way it is turned; for several frames, their mean.
    /// nil when the scene was not measured.
    public var naturalUp: Double?
    /// How much the picture looks like a page of text or a screen: the scene network's probability
    /// of its ImageNet classes of such things (`ContentEngine.textClasses`: web site, menu, book
    /// jacket...), the most of any turn; for several frames, the most of any. nil when not measured.
    public var textLikeness: Double?
    /// What Tesseract's orientation detection read in the picture at a size its letters can be
    /// read (`TextReading`); nil when it was not asked (`ContentPolicy.readsText`) or read nothing.
    public var text: TextReading?
    /// How many words Tesseract's recogniser reads with confidence in each turn of the same picture
    /// (`WordCounts`); nil when they were not counted (`ContentPolicy.readsWords`: Tesseract's
    /// orientation detection gave no opinion) or could not be.
    public var words: WordCounts?
    /// What Leptonica's letter shapes say of the same picture (`LetterShapes`); nil when they were
    /// not asked (`ContentPolicy.readsLetterShapes`: the words gave no opinion either) or could not be read.
    public var letterShapes: LetterShapes?

    public init(
        turns: [Turn], frames: Int = 1, naturalUp: Double? = nil, textLikeness: Double? = nil,
        text: TextReading? = nil, letterShapes: LetterShapes? = nil, words: WordCounts? = nil
    ) {
        precondition(turns.count == 4, "content evidence has one entry per quarter turn")
        self.turns = turns
        self.frames = frames
        self.naturalUp = naturalUp
        self.textLikeness = textLikeness
        self.text = text
        self.letterShapes = letterShapes
        self.words = words
    }

    /// Several frames of one clip as one piece of evidence: each frame's scene turned into
    /// log-probabilities and summed (independent witnesses), every face kept.
    public init?(frames: [ContentEvidence], policy: ContentPolicy) {
        guard !frames.isEmpty else { return nil }
        var turns = (0..<4).map { _ in Turn(faces: [], scene: nil, facesSought: false) }
        for frame in frames {
            let logProbabilities = frame.sceneProbabilities(policy: policy)?.map { log(max($0, 1e-12)) }
            for k in 0..<4 {
                turns[k].faces += frame.turns[k].faces
                turns[k].facesSought = turns[k].facesSought || frame.turns[k].facesSought
                if let logProbability = logProbabilities?[k] {
                    turns[k].scene = (turns[k].scene ?? 0) + logProbability * policy.sceneTemperature
                }
            }
        }
        let naturalUp = frames.compactMap(\.naturalUp)
        self.init(
            turns: turns.map { Turn(faces: $0.faces, scene: $0.scene, facesSought: $0.facesSought) },
            frames: frames.reduce(0) { $0 + $1.frames },
            naturalUp: naturalUp.isEmpty ? nil : naturalUp.reduce(0, +) / Double(naturalUp.count),
            textLikeness: frames.compactMap(\.textLikeness).max())
    }

    /// The scene's probability of each turn being the upright one; nil when not measured.
    public func sceneProbabilities(policy: ContentPolicy) -> [Double]? {
        let logits = turns.compactMap(\.scene)
        guard logits.count == 4 else { return nil }
        return ContentEvidence.softmax(logits.map { $0 / policy.sceneTemperature })
    }

    /// The faces' probability of each turn being the upright one, from each turn's strongest face
    /// (a turn with none counts as `faceFloor`); nil when no turn has a face at `faceScore` or above.
    public func faceProbabilities(policy: ContentPolicy) -> [Double]? {
        let best = turns.map { max($0.bestFace ?? policy.faceFloor, policy.faceFloor) }
        guard best.contains(where: { $0 >= policy.faceScore }) else { return nil }
        return ContentEvidence.softmax(best.map { $0 / policy.faceTemperature })
    }

    static func softmax(_ values: [Double]) -> [Double] {
        let top = values.max() ?? 0
        let exponentials = values.map { exp($0 - top) }
        let sum = exponentials.reduce(0, +)
        return exponentials.map { $0 / sum }
    }
}

/// What Tesseract's orientation and script detection read in a picture of text (`tesseract --psm 0`).
public struct TextReading: Sendable, Hashable, Codable {
    /// Quarter turns clockwise (0...3) that show the picture upright, as `ContentEvidence.turns` counts them.
    public var turn: Int
    /// Tesseract's orientation confidence: how far its best orientation leads the next (not a
    /// probability; its header calls 15 "reasonably confident").
    public var confidence: Double
    /// The script it saw (`Latin`, `Han`, `Cyrillic`...) and its confidence in that.
    public var script: String
    public var scriptConfidence: Double

    public init(turn: Int, confidence: Double, script: String, scriptConfidence: Double) {
        self.turn = ((turn % 4) + 4) % 4
        self.confidence = confidence
        self.script = script
        self.scriptConfidence = scriptConfidence
    }

    enum CodingKeys: String, CodingKey {
        case turn = "turn_needed", confidence, script, scriptConfidence = "script_confidence"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            turn: try c.decode(Int.self, forKey: .turn) / 90,
            confidence: try c.decode(Double.self, forKey: .confidence),
            script: try c.decode(String.self, forKey: .script),
            scriptConfidence: try c.decode(Double.self, forKey: .scriptConfidence))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        // Two decimals, as Tesseract prints them: the rest is float noise.
        try c.encode(turn * 90, forKey: .turn)
        try c.encode((confidence * 100).rounded() / 100, forKey: .confidence)
        try c.encode(script, forKey: .script)
        try c.encode((scriptConfidence * 100).rounded() / 100, forKey: .scriptConfidence)
    }
}

/// What Leptonica's text orientation detection measured in a picture of text (`pixOrientDetect`:
/// the ascenders and descenders of Latin letters counted with hit-miss templates, up against down;
/// Bloomberg, Kopec and Dasari 1995). Neither number is a probability: each says how far one count
/// leads the other, in the spread expected by chance ("a confidence of 10 means that it is nearly
/// certain that the difference did not happen at random", Leptonica's notes).
public struct LetterShapes: Sendable, Hashable, Codable {
    /// Up against down in the picture as displayed: positive when the letters stand upright,
    /// negative when they hang upside down; 0 when too few were counted.
    public var up: Double
    /// The same in the picture turned 90° clockwise: positive when the letters' up faces left (a
    /// quarter turn clockwise shows them upright), negative when it faces right.
    public var left: Double

    public init(up: Double, left: Double) {
        self.up = up
        self.left = left
    }

    /// The quarter turns clockwise that show the letters upright, as Leptonica's
    /// `makeOrientDecision` decides: one direction's count at least `confidence` and at least
    /// `ratio` times the other direction's; nil when neither is (or nothing was counted).
    public func turn(confidence: Double, ratio: Double) -> Int? {
        guard up != 0, left != 0 else { return nil }
        let (upward, leftward) = (abs(up), abs(left))
        if up > confidence, upward > ratio * leftward { return 0 }
        if left > confidence, leftward > ratio * upward { return 1 }
        if up < -confidence, upward > ratio * leftward { return 2 }
        if left < -confidence, leftward > ratio * upward { return 3 }
        return nil
    }

    /// `up confidence 12.3, left confidence -1.2`, as a person reads the evidence.
    public var phrase: String {
        "up confidence \(up.text(decimals: 2)), left confidence \(left.text(decimals: 2))"
    }

    enum CodingKeys: String, CodingKey {
        case up = "up_confidence", left = "left_confidence"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        // Two decimals: the rest is float noise.
        try c.encode((up * 100).rounded() / 100, forKey: .up)
        try c.encode((left * 100).rounded() / 100, forKey: .left)
    }
}

/// How many words Tesseract's recogniser (its English data, the picture taken as one column of text)
/// reads with confidence in each quarter turn of a picture of text. Text on its side or upside down
/// reads as few words or none, so the turn that reads the most shows the text upright: the check a
/// person makes by trying to read it.
public struct WordCounts: Sendable, Hashable, Codable {
    /// Index k: the words read in the picture as displayed turned k quarter turns clockwise.
    public var counts: [Int]

    public init(_ counts: [Int]) {
        precondition(counts.count == 4, "word counts have one entry per quarter turn")
        self.counts = counts
    }

    /// The quarter turns clockwise that show the text upright: the turn with the most words, when it
    /// has at least `least` and at least `ratio` times as many as any other turn; nil otherwise.
    public func turn(least: Int, ratio: Double) -> Int? {
        guard let best = counts.indices.max(by: { counts[$0] < counts[$1] }) else { return nil }
        let others = counts.indices.filter { $0 != best }.map { counts[$0] }.max() ?? 0
        guard counts[best] >= least, Double(counts[best]) >= ratio * Double(others) else { return nil }
        return best
    }

    /// `13 words read in that turn, at most 2 in any other`, as a person reads the evidence.
    public func phrase(turn: Int) -> String {
        let others = counts.indices.filter { $0 != turn }.map { counts[$0] }.max() ?? 0
        return "\(counts[turn].counting("word")) read in that turn, at most \(others) in any other"
    }

    public init(from decoder: any Decoder) throws {
        let counts = try decoder.singleValueContainer().decode([Int].self)
        guard counts.count == 4 else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "four word counts"))
        }
        self.init(counts)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(counts)
    }
}

/// The numbers the verdict is decided with. Those vidorient uses (`ContentEngine.policy`) were
/// chosen with the upright head on the validation split of models/photos (models/upright-head.md).
public struct ContentPolicy: Sendable, Hashable {
    /// The least probability of the winning turn for an opinion (`--content-threshold`).
    public var threshold: Double
    /// A face at least this strong takes part in the faces' say.
    public var faceScore: Double
    /// What a turn without a face counts as, and the weakest candidate the engine reports.
    public var faceFloor: Double
    /// How sharply face scores separate the turns (a softmax temperature).
    public var faceTemperature: Double
    /// How sharply the scene's log-odds separate the turns (a softmax temperature).
    public var sceneTemperature: Double
    /// Below this natural-up probability the scene has no say: a picture without an up (a texture,
    /// space, a top-down shot) still has one turn the head prefers, and that preference means nothing.
    public var naturalUpFloor: Double
    /// Faces do not decide when the scene, of a picture with a natural up, gives their turn a
    /// probability under this: dlib finds faces in clouds and foliage, and a sunset's sky says
    /// more than a face in it. The scene may still decide. 0: faces always decide.
    public var sceneVeto: Double
    /// Tesseract is asked only of a picture with no opinion from faces or scene whose
    /// `ContentEvidence.textLikeness` is at least this (it costs a decode at a readable size and
    /// 0.1 to 0.5 s of CPU); above 1: never.
    public var textLikenessFloor: Double
    /// Tesseract's orientation confidence at which the text decides.
    public var textConfidence: Double
    /// Where Tesseract's orientation detection gives no opinion on a picture as much like a page,
    /// its recogniser counts the words it reads in each turn, those of at least `wordLetters` letters
    /// read with a confidence of `wordConfidence` (0-100) or more, and the turn with the most
    /// decides when it has at least `wordCount` and `wordRatio` times any other turn's
    /// (`WordCounts.turn`); a `wordCount` of `Int.max`: never counted.
    public var wordCount: Int
    public var wordRatio: Double
    public var wordConfidence: Double
    public var wordLetters: Int
    /// Where the words give no opinion either, Leptonica's letter shapes decide when one
    /// direction's confidence is at least `letterConfidence` and `letterRatio` times the other's
    /// (`LetterShapes.turn`); a `letterConfidence` of infinity: never asked.
    public var letterConfidence: Double
    public var letterRatio: Double

    public init(
        threshold: Double, faceScore: Double, faceFloor: Double, faceTemperature: Double, sceneTemperature: Double,
        naturalUpFloor: Double = 0, sceneVeto: Double = 0, textLikenessFloor: Double = 2, textConfidence: Double = 15,
        letterConfidence: Double = .infinity, letterRatio: Double = 2.5, wordCount: Int = .max,
        wordRatio: Double = 3, wordConfidence: Double = 70, wordLetters: Int = 3
    ) {
        self.threshold = threshold
        self.faceScore = faceScore
        self.faceFloor = faceFloor
        self.faceTemperature = faceTemperature
        self.sceneTemperature = sceneTemperature
        self.naturalUpFloor = naturalUpFloor
        self.sceneVeto = sceneVeto
        self.textLikenessFloor = textLikenessFloor
        self.textConfidence = textConfidence
        self.letterConfidence = letterConfidence
        self.letterRatio = letterRatio
        self.wordCount = wordCount
        self.wordRatio = wordRatio
        self.wordConfidence = wordConfidence
        self.wordLetters = wordLetters
    }

    /// Whether faces may decide in `turn`, given the scene's probabilities and whether the scene has
    /// a say (a natural up): never where the scene with a say gives that turn under `sceneVeto`;
    /// anywhere else in a picture that does not look like a page or a screen (`textLikeness` under
    /// `textLikenessFloor`); in one that does, only in the turn the scene finds likeliest. A face the
    /// scene cannot confirm on a page is more often a drawing, an icon or a pattern than a person (on
    /// `text-choose`, the only face that decided was a wrong one, of 0.27, in a turn the scene gave 0.15).
    public func facesDecide(inTurn turn: Int, scene: [Double]?, sceneHasSay: Bool, textLikeness: Double?) -> Bool {
        if sceneHasSay, let scene, scene[turn] < sceneVeto { return false }
        guard let textLikeness, textLikeness >= textLikenessFloor else { return true }
        guard let scene, let likeliest = scene.indices.max(by: { scene[$0] < scene[$1] }) else { return false }
        return likeliest == turn
    }

    /// Whether Tesseract should read the picture this evidence is of: faces and scene leave it
    /// without an opinion, and it looks like a page or a screen.
    public func readsText(_ evidence: ContentEvidence) -> Bool {
        guard let likeness = evidence.textLikeness, likeness >= textLikenessFloor, evidence.text == nil else {
            return false
        }
        return ContentVerdict(evidence: evidence, policy: self).verdict == .noOpinion
    }

    /// Whether Leptonica should count the letter shapes of the picture Tesseract was asked of
    /// (`readsText`), which still has no opinion: Tesseract read no orientation, or none at
    /// `textConfidence`, and its words decided nothing (`readsWords`).
    public func readsLetterShapes(_ evidence: ContentEvidence) -> Bool {
        guard letterConfidence.isFinite, let likeness = evidence.textLikeness, likeness >= textLikenessFloor,
            evidence.letterShapes == nil
        else { return false }
        return ContentVerdict(evidence: evidence, policy: self).verdict == .noOpinion
    }

    /// Whether Tesseract's recogniser should count the words of the picture its orientation detection
    /// was asked of (`readsText`), which still has no opinion.
    public func readsWords(_ evidence: ContentEvidence) -> Bool {
        guard wordCount != .max, let likeness = evidence.textLikeness, likeness >= textLikenessFloor,
            evidence.words == nil
        else { return false }
        return ContentVerdict(evidence: evidence, policy: self).verdict == .noOpinion
    }

    /// The turns faces are looked for in, given the scene's log-odds of each turn and the
    /// picture's natural-up probability: where the scene has a say, only those it gives at least
    /// `sceneVeto`, since a face in a turn it rules out could not decide; every turn otherwise.
    /// (The face detector is about a third of a photo's cost; out of fold on the choosing splits,
    /// and on test3 and test4, this looks in 40-51% of the turns and gives the same verdicts.)
    ///
    /// `onlyPicture`: the picture is all the file's evidence (a photo, not one of a clip's frames,
    /// whose faces are pooled with the other frames'). Then, when the scene leaves one turn open and
    /// gives it `threshold` or more, the verdict is that turn whatever a face there says (a face
    /// could only confirm it), so none is looked for: the scene decides. About half the photos of
    /// the choosing splits; their verdicts are the same, at any threshold.
    public func faceTurns(sceneLogits: [Double], naturalUp: Double, onlyPicture: Bool = false) -> [Bool] {
        guard naturalUp >= naturalUpFloor, sceneVeto > 0 else { return sceneLogits.map { _ in true } }
        let scene = ContentEvidence.softmax(sceneLogits.map { $0 / sceneTemperature })
        let open = scene.map { $0 >= sceneVeto }
        if onlyPicture, open.count(where: { $0 }) == 1, let best = scene.max(), best >= threshold {
            return open.map { _ in false }
        }
        return open
    }

    /// `--content-threshold`: a probability above 0.25 (below that every picture has an opinion)
    /// and below 1.
    public static func parseThreshold(_ text: String) throws(ValueError) -> Double {
        guard let value = Double(text), value > 0.25, value < 1 else {
            throw ValueError("must be a probability above 0.25 and below 1, for example 0.95")
        }
        return value
    }
}

/// Which way the pixels say is up, with how sure, and why. In `inspect --content --json` as
/// the `content` object (docs/json.md).
public struct ContentVerdict: Sendable, Hashable, Codable {
    public enum Verdict: String, Sendable, Hashable, Codable {
        case upright
        case sideways
        case upsideDown = "upside-down"
        case noOpinion = "no-opinion"
    }

    public enum Signal: String, Sendable, Hashable, Codable {
        case faces, scene, text
        case letterShapes = "letter-shapes"
        case words
    }

    /// Why there is no opinion.
    public enum Silence: String, Sendable, Hashable, Codable {
        /// Nothing could be judged: every frame black, flat or tiny.
        case nothingToJudge = "nothing-to-judge"
        /// The scene's best turn is under the threshold, and no face decides.
        case belowThreshold = "below-threshold"
        /// The picture seems to have no natural up (a texture, the sky, a top-down shot), and no face decides.
        case noNaturalUp = "no-natural-up"
    }

    public var verdict: Verdict
    /// Clockwise degrees (0, 90, 180, 270) that turn the displayed picture upright; nil without an opinion.
    public var turnNeeded: Int?
    /// The winning turn's probability under the deciding signal; nil without an opinion, and when
    /// the text decided (Tesseract's confidence, in `text`, and Leptonica's, in `letterShapes`, are not
    /// probabilities).
    public var confidence: Double?
    public var decidedBy: Signal?
    /// Faces at `faceScore` or above in the upright turn (the displayed picture without an opinion);
    /// nil when none was looked for there (`ContentPolicy.faceTurns`).
    public var faces: Int?
    /// Each turn's strongest face (0°, 90°, 180°, 270° clockwise), nil where none was found.
    public var faceScores: [Double?]
    /// The scene's probability of each turn being upright; nil when the scene was not measured.
    public var sceneProbabilities: [Double]?
    /// Pictures judged: 1 for a photo, the frames kept for a clip.
    public var frames: Int
    /// The probability that the picture has a natural up at all; nil when the scene was not measured.
    public var naturalUp: Double?
    /// How much the picture looks like a page of text or a screen (`ContentEvidence.textLikeness`).
    public var textLikeness: Double?
    /// What Tesseract read, when it was asked and read an orientation.
    public var text: TextReading?
    /// The words Tesseract's recogniser read in each turn, when they were counted (its orientation
    /// detection gave no opinion).
    public var words: WordCounts?
    /// What Leptonica's letter shapes say, when they were asked (neither the orientation detection nor
    /// the words gave an opinion).
    public var letterShapes: LetterShapes?
    /// Why there is no opinion; nil with one.
    public var silence: Silence?
    /// The threshold the opinion was held to.
    public var threshold: Double

    public init(evidence: ContentEvidence, policy: ContentPolicy) {
        let scene = evidence.sceneProbabilities(policy: policy)
        var decision: (turn: Int, confidence: Double, signal: Signal)?
        let sceneHasSay = scene != nil && (evidence.naturalUp ?? 1) >= policy.naturalUpFloor
        // Faces first: a face is the surest sign of up there is, when one turn alone has one and the
        // scene allows that turn (`ContentPolicy.facesDecide`).
        if let faces = evidence.faceProbabilities(policy: policy),
            let best = faces.indices.max(by: { faces[$0] < faces[$1] }), faces[best] >= policy.threshold,
            policy.facesDecide(
                inTurn: best, scene: scene, sceneHasSay: sceneHasSay, textLikeness: evidence.textLikeness)
        {
            decision = (best, faces[best], .faces)
        } else if let scene, let best = scene.indices.max(by: { scene[$0] < scene[$1] }),
            scene[best] >= policy.threshold, sceneHasSay
        {
            decision = (best, scene[best], .scene)
        } else if let text = evidence.text, text.confidence >= policy.textConfidence,
            (evidence.textLikeness ?? 0) >= policy.textLikenessFloor
        {
            // Where faces and scene are silent on a page or a screen, its letters say which way is up.
            decision = (text.turn, .nan, .text)
        } else if let words = evidence.words, (evidence.textLikeness ?? 0) >= policy.textLikenessFloor,
            let turn = words.turn(least: policy.wordCount, ratio: policy.wordRatio)
        {
            // Where the orientation detection is silent, the turn in which its words can be read.
            decision = (turn, .nan, .words)
        } else if let letters = evidence.letterShapes, (evidence.textLikeness ?? 0) >= policy.textLikenessFloor,
            let turn = letters.turn(confidence: policy.letterConfidence, ratio: policy.letterRatio)
        {
            // Where the words are silent too, the shapes of the letters (Latin ascenders and descenders).
            decision = (turn, .nan, .letterShapes)
        }
        let shown = decision?.turn ?? 0
        self.verdict =
            switch decision?.turn {
            case nil: .noOpinion
            case 0: .upright
            case 2: .upsideDown
            default: .sideways
            }
        self.turnNeeded = decision.map { $0.turn * 90 }
        self.confidence = decision.flatMap { $0.confidence.isNaN ? nil : ContentVerdict.tidy($0.confidence) }
        self.decidedBy = decision?.signal
        self.faces =
            evidence.turns[shown].facesSought
            ? evidence.turns[shown].faces.filter { $0 >= policy.faceScore }.count : nil
        self.faceScores = evidence.turns.map { $0.bestFace.map(ContentVerdict.tidy) }
        self.sceneProbabilities = scene?.map(ContentVerdict.tidy)
        self.frames = evidence.frames
        self.naturalUp = evidence.naturalUp.map(ContentVerdict.tidy)
        self.textLikeness = evidence.textLikeness.map(ContentVerdict.tidy)
        self.text = evidence.text
        self.letterShapes = evidence.letterShapes
        self.words = evidence.words
        self.silence =
            switch (decision, evidence.frames, evidence.naturalUp, scene?.max()) {
            case (.some, _, _, _): nil
            case (nil, 0, _, _): .nothingToJudge
            case (nil, _, let naturalUp?, let best?)
            where naturalUp < policy.naturalUpFloor && best >= policy.threshold:
                .noNaturalUp
            default: .belowThreshold
            }
        self.threshold = policy.threshold
    }

    /// The orientation that shows the picture upright, for a file that displays as `displayed`
    /// now: nil without an opinion, and `displayed` itself when it is upright already.
    public func uprightOrientation(from displayed: Orientation) -> Orientation? {
        guard let turnNeeded, let turn = Orientation(rotation: turnNeeded, mirrored: false) else { return nil }
        return displayed.followed(by: turn)
    }

    /// Six decimals: enough for a probability, and stable across platforms in the JSON.
    static func tidy(_ value: Double) -> Double { (value * 1_000_000).rounded() / 1_000_000 }

    enum CodingKeys: String, CodingKey {
        case verdict, turnNeeded = "turn_needed", confidence, decidedBy = "decided_by", faces
        case faceScores = "face_scores", sceneProbabilities = "scene_probabilities", frames
        // A record from before the text signal (an older cache) has neither key: synthesized
        // decoding reads a missing optional as nil.
        case naturalUp = "natural_up", silence, threshold, textLikeness = "text_likeness", text
        case letterShapes = "letter_shapes"
        case words = "word_counts"
    }
}

extension MediaReport {
    /// Keeps the content verdict and, when the pixels disagree with the orientation decided from
    /// the tags (the picture looks turned as displayed), adds `content-sideways` or
    /// `content-upside-down`: what is seen, which signal says so, and the orientation that shows
    /// it upright as the fix, a tag or a matrix (docs/findings.md).
    public mutating func judgeContent(_ verdict: ContentVerdict) {
        content = verdict
        guard let turn = verdict.turnNeeded, turn != 0, let signal = verdict.decidedBy else { return }
        let displayed = (photo?.exifOrientation ?? video?.exifOrientation).flatMap(Orientation.init(exif:))
        let upright = displayed.flatMap(verdict.uprightOrientation(from:))
        let why =
            switch signal {
            case .faces: "faces (\(verdict.faces ?? 0)) say"
            case .scene: "the scene says"
            case .text: "its text says"
            case .letterShapes: "its letters' shapes say"
            case .words: "its words say"
            }
        let sure =
            verdict.confidence.map { "confidence \($0.text(decimals: 3))" }
            ?? {
                switch signal {
                case .text: verdict.text.map { "Tesseract's orientation confidence \($0.confidence.text(decimals: 2))" }
                case .letterShapes: verdict.letterShapes.map { "Leptonica's \($0.phrase)" }
                case .words: verdict.words.map { "Tesseract: \($0.phrase(turn: turn / 90))" }
                case .faces, .scene: nil
                }
            }() ?? ""
        let looks = turn == 180 ? "upside down" : "on its side"
        var message =
            "the picture looks \(looks) as displayed: \(why) it is upright once turned \(turn)° clockwise (\(sure))"
        if let upright { message += "; EXIF \(upright.exif) shows it so" }
        // A tag (photos) or a matrix (MP4/QuickTime) turns it losslessly; other containers only get a look.
        let fixable = photo != nil || MediaFormat.movieContainerNames.contains(format.name)
        let file = MediaReport.shellQuoted(path)
        findings.append(
            Finding(
                turn == 180 ? .contentUpsideDown : .contentSideways, severity: .warning, message: message,
                action: fixable
                    ? upright.map { "vidorient fix \(file) --orientation \($0.exif)" }
                    : MediaReport.compareCommand(path),
                suggestedFix: fixable ? upright.map { SuggestedFix(orientation: $0.exif) } : nil))
    }
}
