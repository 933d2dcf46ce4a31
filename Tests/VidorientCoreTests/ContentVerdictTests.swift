import Foundation
import Testing
import VidorientCore

#if canImport(Glibc)
import Glibc
#endif

/// The content verdict's decisions, from measurements given by hand (the engine is tested on real
/// photos in VidorientTests' ContentJudgeTests and end to end in VidorientCLITests).
@Suite struct ContentVerdictTests {
    static let policy = policy(threshold: 0.9)

    static func policy(threshold: Double) -> ContentPolicy {
        ContentPolicy(threshold: threshold, faceScore: 0.3, faceFloor: -0.5, faceTemperature: 0.25, sceneTemperature: 1)
    }

    static func evidence(faces: [[Double]] = [[], [], [], []], scene: [Double]? = [0, 0, 0, 0]) -> ContentEvidence {
        ContentEvidence(turns: (0..<4).map { ContentEvidence.Turn(faces: faces[$0], scene: scene?[$0]) })
    }

    /// A picture whose pixels all differ, so that any wrong move shows.
    static let stored: Picture = {
        var picture = Picture(width: 3, height: 2)
        for y in 0..<2 { for x in 0..<3 { picture[x, y] = RGB(UInt8(x * 10 + y), 0, 0) } }
        return picture
    }()

    /// Faces are looked for only where they could decide: where the scene has a say, in the turns it
    /// gives at least `sceneVeto`; every turn where it has none (below the natural-up floor) or
    /// when the veto is off.
    @Test func facesAreLookedForOnlyWhereTheSceneLeavesRoom() {
        var policy = Self.policy
        policy.sceneVeto = 0.05
        policy.naturalUpFloor = 0.4
        // Probabilities about 0.98, 0.007, 0.007, 0.007: one turn left open.
        #expect(policy.faceTurns(sceneLogits: [5, 0, 0, 0], naturalUp: 0.9) == [true, false, false, false])
        // About 0.47, 0.47, 0.06, 0.0003: the last one ruled out.
        #expect(policy.faceTurns(sceneLogits: [2, 2, 0, -6], naturalUp: 0.9) == [true, true, true, false])
        #expect(policy.faceTurns(sceneLogits: [5, 0, 0, 0], naturalUp: 0.3) == [true, true, true, true])
        policy.sceneVeto = 0
        #expect(policy.faceTurns(sceneLogits: [5, 0, 0, 0], naturalUp: 0.9) == [true, true, true, true])
        // A hotter scene (temperature 4) spreads its say: no turn under 0.05 here.
        policy.sceneVeto = 0.05
        policy.sceneTemperature = 4
        #expect(policy.faceTurns(sceneLogits: [5, 0, 0, 0], naturalUp: 0.9) == [true, true, true, true])
    }

    /// A photo (the picture is all the evidence) whose scene leaves one turn open at the threshold
    /// or above has that turn for its verdict whatever faces say: none is looked for. Below the
    /// threshold, with two turns open, below the natural-up floor or for a clip's frame, they are.
    /// Checked against the verdict itself: with a face in the open turn, without one, or with one in
    /// a turn the scene rules out, the turn needed is the same as with no face looked for.
    @Test func aPhotoTheSceneIsSureOfIsNotSearchedForFaces() {
        var policy = Self.policy
        policy.sceneVeto = 0.05
        policy.naturalUpFloor = 0.4
        policy.threshold = 0.95
        let none = [false, false, false, false]
        // About 0.98, 0.007, 0.007, 0.007: one turn open, above the threshold.
        let sure: [Double] = [5, 0, 0, 0]
        #expect(policy.faceTurns(sceneLogits: sure, naturalUp: 0.9, onlyPicture: true) == none)
        #expect(policy.faceTurns(sceneLogits: sure, naturalUp: 0.9) == [true, false, false, false])
        #expect(policy.faceTurns(sceneLogits: sure, naturalUp: 0.3, onlyPicture: true) == [true, true, true, true])
        // About 0.94: one turn open, below the threshold; a face there could lift it.
        let first = [true, false, false, false]
        #expect(policy.faceTurns(sceneLogits: [4, 0, 0, 0], naturalUp: 0.9, onlyPicture: true) == first)
        // Two turns open.
        let firstTwo = [true, true, false, false]
        #expect(policy.faceTurns(sceneLogits: [5, 2.5, 0, 0], naturalUp: 0.9, onlyPicture: true) == firstTwo)
        for threshold in [0.5, 0.9, 0.95, 0.99] {
            policy.threshold = threshold
            let searched = policy.faceTurns(sceneLogits: sure, naturalUp: 0.9, onlyPicture: true)
            #expect((searched == none) == (threshold < 0.98), "threshold \(threshold): \(searched)")
            guard searched == none else { continue }
            let unsearched = ContentVerdict(
                evidence: Self.evidence(faces: [[], [], [], []], scene: sure), policy: policy)
            #expect(unsearched.turnNeeded == 0 && unsearched.decidedBy == .scene)
            for faces: [[Double]] in [[[1.5], [], [], []], [[-0.3], [], [], []], [[], [2], [], []]] {
                let verdict = ContentVerdict(evidence: Self.evidence(faces: faces, scene: sure), policy: policy)
                #expect(verdict.turnNeeded == unsearched.turnNeeded, "threshold \(threshold), faces \(faces)")
            }
        }
    }

    /// The convention the whole feature rests on: a file shown as `displayed`, whose picture needs
    /// turning `turn` degrees clockwise, shows upright with `uprightOrientation(from:)`; checked by
    /// moving pixels with Core's own `Picture.oriented`, for every orientation and turn.
    @Test(arguments: Orientation.allCases, [0, 90, 180, 270])
    func uprightOrientationIsTheDisplayedOneThenTheTurn(displayed: Orientation, turn: Int) throws {
        var verdict = ContentVerdict(evidence: Self.evidence(), policy: Self.policy)
        verdict.turnNeeded = turn
        let upright = try #require(verdict.uprightOrientation(from: displayed))
        let turnedByHand = Self.stored.oriented(displayed).oriented(
            try #require(Orientation(rotation: turn, mirrored: false)))
        #expect(Self.stored.oriented(upright) == turnedByHand)
        #expect(upright.isMirrored == displayed.isMirrored)
    }

    @Test func noOpinionHasNoUprightOrientation() {
        let verdict = ContentVerdict(evidence: Self.evidence(), policy: Self.policy)
        #expect(verdict.verdict == .noOpinion)
        #expect(verdict.uprightOrientation(from: .up) == nil)
    }

    @Test func aStrongFaceInOneTurnDecides() throws {
        // A face when turned 90° clockwise; weak candidates elsewhere; the scene mildly disagrees.
        let verdict = ContentVerdict(
            evidence: Self.evidence(faces: [[-0.2], [1.1, 0.4], [], [-0.4]], scene: [1, 0, 0, 0]), policy: Self.policy)
        #expect(verdict.verdict == .sideways)
        #expect(verdict.turnNeeded == 90)
        #expect(verdict.decidedBy == .faces)
        #expect(verdict.faces == 2)
        #expect(try #require(verdict.confidence) >= 0.9)
        #expect(verdict.faceScores == [-0.2, 1.1, nil, -0.4])
    }

    @Test func facesInTwoTurnsLeaveItToTheScene() {
        // As strong in two turns: the faces cannot tell; the scene says upside down.
        let verdict = ContentVerdict(
            evidence: Self.evidence(faces: [[0.9], [], [0.9], []], scene: [0, 0, 6, 0]), policy: Self.policy)
        #expect(verdict.decidedBy == .scene)
        #expect(verdict.verdict == .upsideDown)
        #expect(verdict.turnNeeded == 180)
    }

    @Test func aFaceBelowTheFaceScoreDoesNotCount() {
        let verdict = ContentVerdict(evidence: Self.evidence(faces: [[0.1], [], [], []]), policy: Self.policy)
        #expect(verdict.decidedBy == nil)
        #expect(verdict.faces == 0)
    }

    @Test func theSceneDecidesAtTheThresholdAndNotBelow() throws {
        // softmax([0, s, 0, 0]) at turn 1 is e^s / (e^s + 3).
        let sure = ContentVerdict(evidence: Self.evidence(scene: [0, 5, 0, 0]), policy: Self.policy)
        #expect(sure.verdict == .sideways)
        #expect(sure.turnNeeded == 90)
        #expect(abs(try #require(sure.confidence) - 0.980187) < 1e-6)
        let unsure = ContentVerdict(evidence: Self.evidence(scene: [0, 2, 0, 0]), policy: Self.policy)  // 0.711
        #expect(unsure.verdict == .noOpinion)
        #expect(unsure.turnNeeded == nil && unsure.confidence == nil && unsure.decidedBy == nil)
        #expect(unsure.sceneProbabilities?.count == 4)
        let lenient = ContentVerdict(
            evidence: Self.evidence(scene: [0, 2, 0, 0]), policy: Self.policy(threshold: 0.7))
        #expect(lenient.turnNeeded == 90)
    }

    @Test func uprightIsAnOpinionToo() {
        let verdict = ContentVerdict(evidence: Self.evidence(scene: [6, 0, 0, 0]), policy: Self.policy)
        #expect(verdict.verdict == .upright)
        #expect(verdict.turnNeeded == 0)
    }

    @Test func nothingMeasuredIsNoOpinion() {
        let verdict = ContentVerdict(
            evidence: ContentEvidence(turns: Self.evidence(scene: nil).turns, frames: 0), policy: Self.policy)
        #expect(verdict.verdict == .noOpinion)
        #expect(verdict.sceneProbabilities == nil)
        #expect(verdict.frames == 0)
    }

    /// Frames of a clip are independent witnesses: two frames each 0.8 sure of the same turn make
    /// the clip surer than either; a frame that disagrees weakens it.
    @Test func framesCombine() throws {
        let eachFrame = log(0.8 / (0.2 / 3))  // turn 1 at 0.8, the others 0.2/3 each
        let frame = Self.evidence(scene: [0, eachFrame, 0, 0])
        let one = try #require(ContentVerdict(evidence: frame, policy: Self.policy).sceneProbabilities?[1])
        #expect(abs(one - 0.8) < 1e-6)
        let combined = try #require(ContentEvidence(frames: [frame, frame], policy: Self.policy))
        #expect(combined.frames == 2)
        let two = try #require(ContentVerdict(evidence: combined, policy: Self.policy))
        #expect(two.turnNeeded == 90)
        #expect(try #require(two.confidence) > 0.97)
        let split = try #require(
            ContentEvidence(frames: [frame, Self.evidence(scene: [eachFrame, 0, 0, 0])], policy: Self.policy))
        #expect(ContentVerdict(evidence: split, policy: Self.policy).verdict == .noOpinion)
        #expect(ContentEvidence(frames: [], policy: Self.policy) == nil)
    }

    @Test func framesKeepEveryFace() throws {
        let a = Self.evidence(faces: [[], [0.5], [], []], scene: nil)
        let b = Self.evidence(faces: [[], [0.8], [], []], scene: nil)
        let combined = try #require(ContentEvidence(frames: [a, b], policy: Self.policy))
        #expect(combined.turns[1].faces == [0.8, 0.5])
        #expect(combined.turns[0].scene == nil)
    }

    @Test(arguments: ["0.5", "0.9", "0.999"])
    func thresholdsAccepted(text: String) throws {
        #expect(try ContentPolicy.parseThreshold(text) == Double(text))
    }

    @Test(arguments: ["0.25", "0.1", "1", "1.5", "-0.5", "nan", "inf", "x", ""])
    func thresholdsRefused(text: String) {
        #expect(throws: ValueError.self) { try ContentPolicy.parseThreshold(text) }
    }

    /// Every key is present, null where unknown, as every JSON object vidorient writes.
    @Test func jsonHasEveryKey() throws {
        let text = try JSONText(pretty: false).encode(
            ContentVerdict(evidence: Self.evidence(scene: nil), policy: Self.policy))
        #expect(
            text
                == #"{"confidence":null,"decided_by":null,"face_scores":[null,null,null,null],"faces":0,"frames":1,"#
                + #""letter_shapes":null,"natural_up":null,"scene_probabilities":null,"silence":"below-threshold","#
                + #""text":null,"#
                + #""text_likeness":null,"threshold":0.9,"turn_needed":null,"verdict":"no-opinion","word_counts":null}"#
        )
    }

    static let textPolicy: ContentPolicy = {
        var policy = Self.policy
        policy.textLikenessFloor = 0.5
        policy.textConfidence = 5
        return policy
    }()

    /// A picture whose faces and scene say nothing, with how much it looks like text and what
    /// Tesseract read in it.
    static func page(likeness: Double = 0.8, reading: TextReading?) -> ContentEvidence {
        var evidence = Self.evidence()
        evidence.textLikeness = likeness
        evidence.text = reading
        return evidence
    }

    /// Where faces and the scene are silent on a page or a screen, the text decides: its turn, no
    /// probability (Tesseract's confidence is not one), the reading kept in the verdict and its JSON.
    @Test func theTextDecidesWhereFacesAndSceneAreSilent() throws {
        let reading = TextReading(turn: 3, confidence: 24.07, script: "Latin", scriptConfidence: 16.67)
        let verdict = ContentVerdict(evidence: Self.page(reading: reading), policy: Self.textPolicy)
        #expect(verdict.verdict == .sideways)
        #expect(verdict.turnNeeded == 270)
        #expect(verdict.decidedBy == .text)
        #expect(verdict.confidence == nil)
        #expect(verdict.text == reading)
        #expect(
            verdict.line == "upright once turned 270° clockwise (its text, by Tesseract, orientation confidence 24.07)")
        let json = try JSONText(pretty: false).encode(verdict)
        #expect(
            json.contains(#""text":{"confidence":24.07,"script":"Latin","script_confidence":16.67,"turn_needed":270}"#))
        #expect(json.contains(#""text_likeness":0.8"#))
        #expect(try JSONDecoder().decode(ContentVerdict.self, from: Data(json.utf8)) == verdict)
        var report = Self.photoReport(exif: 1)
        report.judgeContent(verdict)
        let finding = try #require(report.findings.first { $0.code == "content-sideways" })
        #expect(finding.message.contains("its text says it is upright once turned 270° clockwise"))
        #expect(finding.message.contains("orientation confidence 24.07"))
        #expect(finding.suggestedFix == SuggestedFix(orientation: 8))
    }

    /// Not below Tesseract's confidence, not on a picture that does not look like text, never over
    /// the scene or a face that decides.
    @Test func theTextDecidesOnlyWhatNothingElseDid() {
        let weak = TextReading(turn: 1, confidence: 4.9, script: "Latin", scriptConfidence: 3)
        #expect(ContentVerdict(evidence: Self.page(reading: weak), policy: Self.textPolicy).verdict == .noOpinion)
        let sure = TextReading(turn: 1, confidence: 30, script: "Latin", scriptConfidence: 3)
        let photo = Self.page(likeness: 0.49, reading: sure)
        #expect(ContentVerdict(evidence: photo, policy: Self.textPolicy).verdict == .noOpinion)
        var scene = Self.page(reading: sure)
        scene.turns = Self.evidence(scene: [7, 0, 0, 0]).turns
        let verdict = ContentVerdict(evidence: scene, policy: Self.textPolicy)
        #expect(verdict.decidedBy == .scene)
        #expect(verdict.turnNeeded == 0)
        // The policy of a build without the text signal never asks, and never lets it decide.
        #expect(ContentVerdict(evidence: Self.page(reading: sure), policy: Self.policy).verdict == .noOpinion)
        #expect(!Self.policy.readsText(Self.page(reading: nil)))
    }

    /// Leptonica's decision (flipdetect.c's `makeOrientDecision`): a direction decides when its
    /// confidence passes the minimum and `ratio` times the other direction's; up is checked first,
    /// then left, down, right; nothing counted (either 0) is no decision.
    @Test(arguments: [
        (12.0, 1.0, 0 as Int?), (12.0, 6.0, nil), (1.0, 12.0, 1), (-12.0, 2.0, 2), (2.0, -12.0, 3),
        (6.9, 0.1, nil), (7.1, 0.1, 0), (12.0, 0.0, nil), (0.0, -12.0, nil), (-7.5, 3.0, nil), (-7.5, 2.9, 2),
    ])
    func letterShapesDecideAsLeptonica(up: Double, left: Double, turn: Int?) {
        #expect(LetterShapes(up: up, left: left).turn(confidence: 7, ratio: 2.5) == turn)
    }

    static let letterPolicy: ContentPolicy = {
        var policy = Self.textPolicy
        policy.letterConfidence = 7
        policy.letterRatio = 2.5
        return policy
    }()

    /// Where Tesseract is silent (no reading, or one under its confidence) on a picture as much like
    /// a page, the letter shapes decide, naming themselves, with no probability; never where
    /// Tesseract decided, never on a picture that does not look like a page, and never with a
    /// policy that does not ask them.
    @Test func letterShapesDecideOnlyWhereTesseractIsSilent() throws {
        var page = Self.page(reading: TextReading(turn: 0, confidence: 1.2, script: "Latin", scriptConfidence: 1))
        #expect(Self.letterPolicy.readsLetterShapes(page))
        #expect(!Self.textPolicy.readsLetterShapes(page))
        page.letterShapes = LetterShapes(up: -1.5, left: 11.25)
        #expect(!Self.letterPolicy.readsLetterShapes(page))
        let verdict = ContentVerdict(evidence: page, policy: Self.letterPolicy)
        #expect(verdict.decidedBy == .letterShapes)
        #expect(verdict.turnNeeded == 90)
        #expect(verdict.confidence == nil)
        #expect(
            verdict.line
                == "upright once turned 90° clockwise (its letters' shapes, by Leptonica, up confidence -1.5, "
                + "left confidence 11.25)")
        let json = try JSONText(pretty: false).encode(verdict)
        #expect(json.contains(#""decided_by":"letter-shapes""#))
        #expect(json.contains(#""letter_shapes":{"left_confidence":11.25,"up_confidence":-1.5}"#))
        #expect(try JSONDecoder().decode(ContentVerdict.self, from: Data(json.utf8)) == verdict)
        var report = Self.photoReport(exif: 1)
        report.judgeContent(verdict)
        let finding = try #require(report.findings.first { $0.code == "content-sideways" })
        #expect(finding.message.contains("its letters' shapes say it is upright once turned 90° clockwise"))
        #expect(finding.message.contains("Leptonica's up confidence -1.5, left confidence 11.25"))
        // Tesseract's reading, when it reaches its confidence, decides and Leptonica is not asked.
        var read = page
        read.text = TextReading(turn: 2, confidence: 9, script: "Latin", scriptConfidence: 1)
        #expect(ContentVerdict(evidence: read, policy: Self.letterPolicy).decidedBy == .text)
        read.letterShapes = nil
        #expect(!Self.letterPolicy.readsLetterShapes(read))
        // Not on a picture that does not look like a page; not under the policy's confidence.
        var photo = page
        photo.textLikeness = 0.49
        #expect(ContentVerdict(evidence: photo, policy: Self.letterPolicy).verdict == .noOpinion)
        var faint = page
        faint.letterShapes = LetterShapes(up: -1.5, left: 6.5)
        #expect(ContentVerdict(evidence: faint, policy: Self.letterPolicy).verdict == .noOpinion)
        // The policy without letter shapes never lets them decide.
        #expect(ContentVerdict(evidence: page, policy: Self.textPolicy).verdict == .noOpinion)
    }

    /// The turn with the most words decides when it has at least the least and `ratio` times any
    /// other turn's; a tie, too few, or too close a second is no decision.
    @Test(arguments: [
        ([13, 1, 2, 3], 0 as Int?), ([0, 0, 9, 3], 2), ([0, 6, 0, 2], 1), ([4, 0, 0, 0], nil), ([5, 0, 0, 0], 0),
        ([12, 0, 5, 0], nil), ([12, 0, 4, 0], 0), ([0, 0, 0, 0], nil), ([7, 7, 0, 0], nil), ([1, 2, 3, 30], 3),
    ])
    func wordsDecideByTheTurnThatReads(counts: [Int], turn: Int?) {
        #expect(WordCounts(counts).turn(least: 5, ratio: 3) == turn)
    }

    static let wordPolicy: ContentPolicy = {
        var policy = Self.letterPolicy
        policy.wordCount = 5
        policy.wordRatio = 3
        return policy
    }()

    /// Where Tesseract's orientation detection is silent on a picture as much like a page, the words
    /// read in each turn decide, naming themselves, with no probability, before the letter shapes are
    /// asked; never where the orientation detection decided, never on a picture that does not look
    /// like a page, never with a policy that does not count them. Where they are silent, the letter
    /// shapes decide.
    @Test func wordsDecideWhereTheOrientationDetectionIsSilent() throws {
        var page = Self.page(reading: TextReading(turn: 0, confidence: 1.2, script: "Latin", scriptConfidence: 1))
        #expect(Self.wordPolicy.readsWords(page))
        #expect(!Self.letterPolicy.readsWords(page))
        page.words = WordCounts([1, 0, 2, 17])
        #expect(!Self.wordPolicy.readsWords(page))
        #expect(!Self.wordPolicy.readsLetterShapes(page))
        let verdict = ContentVerdict(evidence: page, policy: Self.wordPolicy)
        #expect(verdict.decidedBy == .words)
        #expect(verdict.turnNeeded == 270)
        #expect(verdict.confidence == nil)
        #expect(
            verdict.line
                == "upright once turned 270° clockwise (its words, by Tesseract, 17 words read in that turn, "
                + "at most 2 in any other)")
        let json = try JSONText(pretty: false).encode(verdict)
        #expect(json.contains(#""decided_by":"words""#))
        #expect(json.contains(#""word_counts":[1,0,2,17]"#))
        #expect(try JSONDecoder().decode(ContentVerdict.self, from: Data(json.utf8)) == verdict)
        var report = Self.photoReport(exif: 1)
        report.judgeContent(verdict)
        let finding = try #require(report.findings.first { $0.code == "content-sideways" })
        #expect(finding.message.contains("its words say it is upright once turned 270° clockwise"))
        #expect(finding.message.contains("(Tesseract: 17 words read in that turn, at most 2 in any other)"))
        // Over letter shapes that say otherwise (Leptonica takes capitals for letters upside down).
        var shaped = page
        shaped.letterShapes = LetterShapes(up: -11, left: 0.5)
        #expect(ContentVerdict(evidence: shaped, policy: Self.wordPolicy).decidedBy == .words)
        // The orientation detection, when it reaches its confidence, decides and no word is counted.
        var read = page
        read.text = TextReading(turn: 2, confidence: 9, script: "Latin", scriptConfidence: 1)
        #expect(ContentVerdict(evidence: read, policy: Self.wordPolicy).decidedBy == .text)
        read.words = nil
        #expect(!Self.wordPolicy.readsWords(read))
        // Not on a picture that does not look like a page; not under the least count or the ratio,
        // where the letter shapes are asked and decide.
        var photo = page
        photo.textLikeness = 0.49
        #expect(ContentVerdict(evidence: photo, policy: Self.wordPolicy).verdict == .noOpinion)
        var close = page
        close.words = WordCounts([6, 0, 0, 17])
        #expect(ContentVerdict(evidence: close, policy: Self.wordPolicy).verdict == .noOpinion)
        #expect(Self.wordPolicy.readsLetterShapes(close))
        close.letterShapes = LetterShapes(up: 11, left: 0.5)
        #expect(ContentVerdict(evidence: close, policy: Self.wordPolicy).decidedBy == .letterShapes)
        // The policy without word counts never lets them decide.
        #expect(ContentVerdict(evidence: page, policy: Self.textPolicy).verdict == .noOpinion)
        // Four counts or none: a record with three is refused.
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(WordCounts.self, from: Data("[1,2,3]".utf8))
        }
    }

    /// On a page or a screen a face decides only in the turn the scene finds likeliest; on a photo,
    /// in any turn the scene does not rule out. The page's text then decides instead.
    @Test func aFaceOnAPageNeedsTheScene() throws {
        // A strong face at 90°; the scene leans, under the threshold, to 180° (about 0.17 for 90°).
        let faces: [[Double]] = [[], [0.9], [], []]
        var unread = Self.evidence(faces: faces, scene: [0.3, 0, 0.8, 0.2])
        unread.textLikeness = 0.7
        // The face does not decide, so Tesseract is asked, and its reading decides.
        #expect(Self.textPolicy.readsText(unread))
        var page = unread
        page.text = TextReading(turn: 0, confidence: 9, script: "Latin", scriptConfidence: 5)
        let onPage = ContentVerdict(evidence: page, policy: Self.textPolicy)
        #expect(onPage.decidedBy == .text)
        #expect(onPage.turnNeeded == 0)
        var photo = unread
        photo.textLikeness = 0.3
        let onPhoto = ContentVerdict(evidence: photo, policy: Self.textPolicy)
        #expect(onPhoto.decidedBy == .faces)
        #expect(onPhoto.turnNeeded == 90)
        // The scene's likeliest turn is the face's: it decides on a page too.
        var confirmed = Self.evidence(faces: faces, scene: [0.3, 0.9, 0.8, 0.2])
        confirmed.textLikeness = 0.7
        #expect(ContentVerdict(evidence: confirmed, policy: Self.textPolicy).decidedBy == .faces)
        // A policy without the text signal (floor above 1) keeps faces as they were.
        #expect(ContentVerdict(evidence: page, policy: Self.policy).decidedBy == .faces)
        #expect(!Self.textPolicy.facesDecide(inTurn: 1, scene: nil, sceneHasSay: false, textLikeness: 0.7))
        #expect(Self.textPolicy.facesDecide(inTurn: 1, scene: nil, sceneHasSay: false, textLikeness: nil))
    }

    /// Tesseract is asked only of a picture that looks like text and has no opinion yet, once.
    @Test func tesseractIsAskedOnlyWhereItCouldDecide() {
        #expect(Self.textPolicy.readsText(Self.page(reading: nil)))
        #expect(!Self.textPolicy.readsText(Self.page(likeness: 0.2, reading: nil)))
        var decided = Self.page(reading: nil)
        decided.turns = Self.evidence(scene: [0, 7, 0, 0]).turns
        #expect(!Self.textPolicy.readsText(decided))
        let read = TextReading(turn: 0, confidence: 1, script: "Latin", scriptConfidence: 1)
        #expect(!Self.textPolicy.readsText(Self.page(reading: read)))
        var unmeasured = Self.page(reading: nil)
        unmeasured.textLikeness = nil
        #expect(!Self.textPolicy.readsText(unmeasured))
    }

    /// A record from before the text signal (an older cache) has neither key, and still reads.
    @Test func aVerdictFromBeforeTheTextSignalStillReads() throws {
        let old =
            #"{"confidence":0.97,"decided_by":"scene","face_scores":[null,null,null,null],"faces":null,"frames":1,"#
            + #""natural_up":0.8,"scene_probabilities":[0.97,0.01,0.01,0.01],"silence":null,"threshold":0.91,"#
            + #""turn_needed":0,"verdict":"upright"}"#
        let verdict = try JSONDecoder().decode(ContentVerdict.self, from: Data(old.utf8))
        #expect(verdict.decidedBy == .scene)
        #expect(verdict.text == nil)
        #expect(verdict.textLikeness == nil)
    }

    /// A picture with no natural up (a texture, space) may still have a turn the scene prefers:
    /// below the policy's natural-up floor the scene is silenced and says why; a face still decides.
    @Test func theSceneHasNoSayOnAPictureWithoutAnUp() throws {
        var policy = Self.policy
        policy.naturalUpFloor = 0.4
        var sure = Self.evidence(scene: [0, 7, 0, 0])
        sure.naturalUp = 0.39
        let silenced = ContentVerdict(evidence: sure, policy: policy)
        #expect(silenced.verdict == .noOpinion)
        #expect(silenced.silence == .noNaturalUp)
        #expect(silenced.naturalUp == 0.39)
        #expect(silenced.line.contains("no natural up"))
        sure.naturalUp = 0.41
        let heard = ContentVerdict(evidence: sure, policy: policy)
        #expect(heard.turnNeeded == 90)
        #expect(heard.silence == nil)
        var faced = Self.evidence(faces: [[], [], [1.2], []], scene: [0, 7, 0, 0])
        faced.naturalUp = 0.1
        let byFaces = ContentVerdict(evidence: faced, policy: policy)
        #expect(byFaces.turnNeeded == 180)
        #expect(byFaces.decidedBy == .faces)
        // Unsure as well as without an up: the threshold is the reason given.
        var unsure = Self.evidence(scene: [0, 0.1, 0, 0])
        unsure.naturalUp = 0.1
        #expect(ContentVerdict(evidence: unsure, policy: policy).silence == .belowThreshold)
        #expect(
            ContentVerdict(evidence: ContentEvidence(turns: unsure.turns, frames: 0), policy: policy).silence
                == .nothingToJudge)
    }

    /// dlib finds faces in clouds: a face whose turn the scene (of a picture with an up) all but
    /// rules out does not decide, and the scene may; a face the scene merely doubts still decides,
    /// and so does one on a picture whose scene has no say.
    @Test func aFaceTheSceneRulesOutDoesNotDecide() throws {
        var policy = Self.policy
        policy.sceneVeto = 0.05
        policy.naturalUpFloor = 0.4
        // A "face" when turned 90°; the scene is sure the picture is upright as it is.
        var sunset = Self.evidence(faces: [[], [1.5], [], []], scene: [6, 0, 0, 0])
        sunset.naturalUp = 0.9
        let vetoed = ContentVerdict(evidence: sunset, policy: policy)
        #expect(vetoed.decidedBy == .scene)
        #expect(vetoed.turnNeeded == 0)
        // Without the veto the face decides.
        #expect(ContentVerdict(evidence: sunset, policy: Self.policy).turnNeeded == 90)
        // The scene unsure between the face's turn and another: the face decides.
        var doubted = Self.evidence(faces: [[], [1.5], [], []], scene: [0.5, 0, -3, -3])
        doubted.naturalUp = 0.9
        let byFace = ContentVerdict(evidence: doubted, policy: policy)
        #expect(byFace.decidedBy == .faces)
        #expect(byFace.turnNeeded == 90)
        // A picture without an up: its scene has no say, so it rules nothing out.
        sunset.naturalUp = 0.1
        #expect(ContentVerdict(evidence: sunset, policy: policy).decidedBy == .faces)
        // Not measured: nothing to veto with.
        #expect(
            ContentVerdict(evidence: Self.evidence(faces: [[], [1.5], [], []], scene: nil), policy: policy).turnNeeded
                == 90)
    }

    /// A verdict stored before `silence` existed (an older cache) has none: its line still says
    /// why, from what it has.
    @Test func aVerdictWithoutItsSilenceStillSaysWhy() {
        var nothing = ContentVerdict(
            evidence: ContentEvidence(turns: Self.evidence().turns, frames: 0), policy: Self.policy)
        nothing.silence = nil
        #expect(nothing.line.hasPrefix("no opinion (nothing to judge"))
        var unsure = ContentVerdict(evidence: Self.evidence(), policy: Self.policy)
        unsure.silence = nil
        #expect(unsure.line.hasPrefix("no opinion (below the threshold"))
    }

    /// A clip's natural-up probability is its frames' mean, its text-likeness the most any frame
    /// has; frames without one do not count.
    @Test func framesAverageTheirNaturalUp() throws {
        var a = Self.evidence()
        a.naturalUp = 0.2
        a.textLikeness = 0.3
        var b = Self.evidence()
        b.naturalUp = 0.6
        b.textLikeness = 0.7
        let combined = try #require(ContentEvidence(frames: [a, b, Self.evidence(scene: nil)], policy: Self.policy))
        #expect(abs(try #require(combined.naturalUp) - 0.4) < 1e-12)
        #expect(combined.textLikeness == 0.7)
        #expect(try #require(ContentEvidence(frames: [Self.evidence()], policy: Self.policy)).naturalUp == nil)
    }

    static func photoReport(exif: Int, path: String = "a b.jpg") -> MediaReport {
        var evidence = PhotoEvidence(path: path, format: .jpeg)
        evidence.storedWidth = 4000
        evidence.storedHeight = 3000
        evidence.statements = [OrientationStatement(kind: .exif, location: "APP1 EXIF IFD0", rawValue: exif)]
        return MediaReport(photo: evidence)
    }

    @Test func aSidewaysPhotoGetsAFindingAndTheUprightTag() throws {
        var report = Self.photoReport(exif: 1)
        report.judgeContent(ContentVerdict(evidence: Self.evidence(scene: [0, 7, 0, 0]), policy: Self.policy))
        let finding = try #require(report.findings.first { $0.code == "content-sideways" })
        #expect(finding.severity == .warning)
        #expect(finding.suggestedFix == SuggestedFix(orientation: 6))
        #expect(finding.action == "vidorient fix 'a b.jpg' --orientation 6")
        #expect(finding.message.contains("the scene"))
        #expect(report.content?.turnNeeded == 90)
    }

    @Test func theSuggestionComposesWithTheTagAlreadyThere() throws {
        // Shown turned 90° clockwise by its tag (6), upright once turned another 270°: tag 1.
        var report = Self.photoReport(exif: 6)
        report.judgeContent(ContentVerdict(evidence: Self.evidence(scene: [0, 0, 0, 7]), policy: Self.policy))
        #expect(report.findings.first { $0.code == "content-sideways" }?.suggestedFix == SuggestedFix(orientation: 1))
        var upsideDown = Self.photoReport(exif: 1)
        upsideDown.judgeContent(ContentVerdict(evidence: Self.evidence(scene: [0, 0, 7, 0]), policy: Self.policy))
        #expect(upsideDown.findings.map(\.code).contains("content-upside-down"))
        #expect(upsideDown.findings.first?.suggestedFix == SuggestedFix(orientation: 3))
    }

    @Test func anUprightOrUnsurePictureGetsNoFinding() {
        for scene in [[7.0, 0, 0, 0], [0, 1, 0, 0]] {
            var report = Self.photoReport(exif: 1)
            report.judgeContent(ContentVerdict(evidence: Self.evidence(scene: scene), policy: Self.policy))
            #expect(report.findings.isEmpty)
            #expect(report.content != nil)
        }
    }

    @Test func aContainerVidorientCannotFixGetsALookNotAFix() throws {
        var report = MediaReport(
            path: "clip.mkv", format: FormatReport(name: "matroska/webm", streamCount: 1), streams: [], video: nil,
            findings: [])
        report.judgeContent(ContentVerdict(evidence: Self.evidence(scene: [0, 7, 0, 0]), policy: Self.policy))
        let finding = try #require(report.findings.first)
        #expect(finding.suggestedFix == nil)
        #expect(finding.action == "vidorient thumbnail clip.mkv --compare -o clip-check.png")
    }
}
