import CContentEngine
import Foundation
import Testing
import Vidorient
import VidorientContent
import VidorientCore
import VidorientTestSupport

/// The content engine on real photographs (scikit-image's sample images from Debian's
/// python3-skimage, `ContentPhotos`): the scene network survived its conversion, the faces and the
/// scene turn the way Core's verdict assumes, and pictures with nothing to say get no opinion.
/// Each test makes its own engine (one thread uses an engine at a time; an engine costs about 40 ms,
/// dlib's detector about 0.35 s once a process, at its first face search), so that the tests run
/// beside the others, not one by one.
@Suite(.enabled(if: ContentPhotos.isPresent, "scikit-image's sample photos are absent (.ci/setup extracts them)"))
struct ContentJudgeTests {
    /// The displayed picture as ContentJudge judges it.
    static func picture(_ name: String) throws -> Picture {
        let request = ThumbnailRequest(width: ContentJudge.pictureSide, height: ContentJudge.pictureSide)
        return try Thumbnailer(font: nil).frame(ContentPhotos.path(name), request: request).picture
    }

    static func turned(_ picture: Picture, _ quarterTurns: Int) -> Picture {
        quarterTurns == 0 ? picture : picture.oriented(Orientation(rotation: quarterTurns * 90, mirrored: false)!)
    }

    /// ImageNet's classes as the converted network names them: a wrong mean, scale or channel
    /// order, or a weight read in the wrong layout, loses these.
    @Test(arguments: [
        ("chelsea.png", 281...285),  // the cat classes: tabby, tiger cat, Persian, Siamese, Egyptian cat
        ("coffee.png", 967...968),  // espresso, cup
    ])
    func theNetworkNamesWhatIsShown(name: String, classes: ClosedRange<Int>) throws {
        let engine = try ContentEngine()
        let top = try engine.imageNetClasses(of: try Self.picture(name), count: 3)
        #expect(top.contains { classes.contains($0) }, "\(name): top classes \(top)")
    }

    /// A face is found in the upright turn only, and the verdict turns a sideways or upside-down
    /// picture back: turn k of the upright picture needs (4 − k) quarter turns clockwise. Faces are
    /// looked for only in the turns `ContentPolicy.faceTurns` leaves open (on this portrait, which
    /// the scene is sure of, at least two go unsearched, and weak candidates there are not reported),
    /// and the verdict is the one a search of every turn gives.
    @Test(arguments: 0..<4)
    func facesDecideEveryTurn(quarterTurns: Int) throws {
        let engine = try ContentEngine()
        let policy = ContentEngine.policy
        let picture = Self.turned(try Self.picture(ContentPhotos.face), quarterTurns)
        let evidence = try engine.evidence(of: picture, policy: policy)
        let needed = (4 - quarterTurns) % 4
        #expect((evidence.turns[needed].bestFace ?? -1) >= policy.faceScore, "no face where it is upright")
        for k in 0..<4 where k != needed {
            #expect((evidence.turns[k].bestFace ?? -1) < policy.faceScore, "a face in turn \(k)")
        }
        let logits = evidence.turns.map { $0.scene ?? .nan }
        let searched = policy.faceTurns(sceneLogits: logits, naturalUp: try #require(evidence.naturalUp))
        #expect(searched.filter { !$0 }.count >= 2, "the scene leaves \(searched) open")
        var everywhere = evidence
        for k in 0..<4 {
            let found = try engine.faces(in: Self.turned(picture, k), floor: policy.faceFloor)
            if searched[k] {
                #expect(evidence.turns[k].faces == found)
            } else {
                #expect(evidence.turns[k].faces.isEmpty)
            }
            everywhere.turns[k] = ContentEvidence.Turn(faces: found, scene: logits[k])
        }
        let verdict = ContentVerdict(evidence: evidence, policy: policy)
        #expect(verdict.decidedBy == .faces)
        #expect((verdict.faces ?? 0) >= 1)
        let searchedEverywhere = ContentVerdict(evidence: everywhere, policy: policy)
        #expect(
            verdict.turnNeeded == searchedEverywhere.turnNeeded && verdict.decidedBy == searchedEverywhere.decidedBy)
        #expect(verdict.turnNeeded == needed * 90)
    }

    /// A photo, its file's only picture (`onlyPicture`), whose scene leaves one turn open at the
    /// threshold or above is not searched for faces at all, and its verdict is the one a search
    /// gives; as a clip's frame, or where the scene is less sure, it is searched as before. Among
    /// the sample photos the portrait is such a photo: its face is left unlooked for.
    @Test func aPhotoTheSceneIsSureOfIsJudgedWithoutFaces() throws {
        let engine = try ContentEngine()
        let policy = ContentEngine.policy
        var skipped: [String] = []
        for name in ContentPhotos.scenes + [ContentPhotos.face] {
            let picture = try Self.picture(name)
            let frame = try engine.evidence(of: picture, policy: policy)
            let photo = try engine.evidence(of: picture, policy: policy, onlyPicture: true)
            #expect(photo.turns.map(\.scene) == frame.turns.map(\.scene), "\(name)")
            #expect(photo.naturalUp == frame.naturalUp, "\(name)")
            let logits = frame.turns.map { $0.scene ?? .nan }
            let naturalUp = try #require(frame.naturalUp)
            if policy.faceTurns(sceneLogits: logits, naturalUp: naturalUp, onlyPicture: true).contains(true) {
                #expect(photo == frame, "\(name)")
            } else {
                skipped.append(name)
                #expect(photo.turns.allSatisfy { $0.faces.isEmpty }, "\(name)")
            }
            let verdict = ContentVerdict(evidence: photo, policy: policy)
            #expect(verdict.turnNeeded == ContentVerdict(evidence: frame, policy: policy).turnNeeded, "\(name)")
        }
        #expect(skipped.contains(ContentPhotos.face), "searched for faces: every photo but \(skipped)")
    }

    /// Each turn is shown to the network as it is, and its mirror image only when that leaves the
    /// scene in doubt: the evidence's scores are the picture's alone for a picture the scene is sure
    /// of, and the mean with the mirror image's otherwise; the mirror pass is the mirror image (its
    /// score is the one of the picture mirrored by hand, not the picture's). The engine shows the
    /// network the centred square, which sits a pixel off the centre when the sides differ by an
    /// odd number: the picture loses a column then, so that the square mirrored is the mirror
    /// image's square and the two scores agree to rounding.
    @Test(arguments: ContentPhotos.scenes + [ContentPhotos.face])
    func theMirrorIsShownOnlyWhenThePictureLeavesDoubt(name: String) throws {
        let engine = try ContentEngine()
        var picture = try Self.picture(name)
        if (picture.width - picture.height) % 2 != 0 {
            picture = picture.cropped(PixelRect(x: 0, y: 0, width: picture.width - 1, height: picture.height))
        }
        let evidence = try engine.evidence(of: picture, policy: ContentEngine.policy)
        var plain: [Double] = [], mirrored: [Double] = []
        for k in 0..<4 {
            let turned = Self.turned(picture, k)
            plain.append(ContentEngine.sceneLogit(try engine.sceneFeatures(of: turned, mirror: .pictureAlone)))
            mirrored.append(ContentEngine.sceneLogit(try engine.sceneFeatures(of: turned, mirror: .mirrorAlone)))
            let byHand = ContentEngine.sceneLogit(
                try engine.sceneFeatures(of: turned.oriented(.upMirrored), mirror: .pictureAlone))
            #expect(abs(mirrored[k] - byHand) < 0.01, "\(name) turn \(k): \(mirrored[k]) against \(byHand)")
        }
        #expect(
            zip(plain, mirrored).contains { abs($0 - $1) > 0.25 }, "\(name): the mirror pass is not the mirror image")
        let expected =
            ContentEngine.showsMirror(sceneLogits: plain) ? zip(plain, mirrored).map { ($0 + $1) / 2 } : plain
        for k in 0..<4 {
            #expect(abs((evidence.turns[k].scene ?? .nan) - expected[k]) < 1e-9, "\(name) turn \(k)")
        }
    }

    /// The scene's say turns with the picture: judging the picture turned k quarter turns gives
    /// the upright picture's probabilities moved k places (the same four pictures are shown), so a
    /// convention turned the wrong way round, or a turn dropped, cannot pass.
    @Test(arguments: ContentPhotos.scenes)
    func theSceneTurnsWithThePicture(name: String) throws {
        let engine = try ContentEngine()
        let policy = ContentEngine.policy
        let upright = try Self.picture(name)
        let base = try #require(try engine.evidence(of: upright, policy: policy).sceneProbabilities(policy: policy))
        for k in 1..<4 {
            let turned = try engine.evidence(of: Self.turned(upright, k), policy: policy)
            let probabilities = try #require(turned.sceneProbabilities(policy: policy))
            for turn in 0..<4 {
                #expect(
                    abs(probabilities[turn] - base[(turn + k) % 4]) < 0.02,
                    "\(name) turned \(k): \(probabilities) vs \(base)")
            }
        }
        // And the head prefers the upright picture over its turns.
        #expect(base.indices.max { base[$0] < base[$1] } == 0, "\(name): \(base)")
    }

    /// Each engine after the first copies the process's face detector, deserialized once: it finds
    /// the same faces, with the same scores, as the first.
    @Test func aSecondEngineFindsTheSameFaces() throws {
        let first = try ContentEngine()
        let second = try ContentEngine()
        let picture = try Self.picture(ContentPhotos.face)
        let faces = try first.faces(in: picture, floor: ContentEngine.policy.faceFloor)
        #expect(faces.contains { $0 >= ContentEngine.policy.faceScore })
        #expect(try second.faces(in: picture, floor: ContentEngine.policy.faceFloor) == faces)
    }

    /// Textures and flat pictures: no face, and no opinion at the default threshold.
    @Test(arguments: ContentPhotos.textures)
    func texturesHaveNoOpinion(name: String) throws {
        let engine = try ContentEngine()
        let verdict = ContentVerdict(
            evidence: try engine.evidence(of: try Self.picture(name), policy: ContentEngine.policy),
            policy: ContentEngine.policy)
        #expect(verdict.verdict == .noOpinion, "\(name): \(verdict)")
        #expect(verdict.faces == 0)
    }

    /// The natural-up gate tells pictures with an up from textures: every scene and the portrait
    /// above the policy's floor, every texture below it, so that a texture the head happens to
    /// prefer one turn of is silenced while a photo is heard.
    @Test func theGateTellsPhotosFromTextures() throws {
        let engine = try ContentEngine()
        let policy = ContentEngine.policy
        for name in ContentPhotos.scenes + [ContentPhotos.face] {
            let naturalUp = try #require(try engine.evidence(of: try Self.picture(name), policy: policy).naturalUp)
            #expect(naturalUp >= policy.naturalUpFloor, "\(name): natural up \(naturalUp)")
        }
        for name in ContentPhotos.textures {
            let naturalUp = try #require(try engine.evidence(of: try Self.picture(name), policy: policy).naturalUp)
            #expect(naturalUp < policy.naturalUpFloor, "\(name): natural up \(naturalUp)")
        }
    }

    /// The engine's C surface (what models/content_engine.py calls) refuses a pass it does not know
    /// or a side it cannot run with one line and the features untouched, and `mirror` 2 is exactly
    /// the second half of `mirror` 1: the mirror image alone.
    @Test func theSceneCallRefusesWhatItCannotDo() throws {
        try ContentEngine.loadLibrary()
        var error = [CChar](repeating: 0, count: 600)
        let engine = try #require(
            try SceneModel.locate().withPathCString { vo_content_engine_create($0, &error, error.count) },
            "\(String(cMessage: error))")
        defer { vo_content_engine_destroy(engine) }
        let picture = try Self.picture(ContentPhotos.scenes[0])
        let count = Int(VO_CONTENT_FEATURES)
        func scene(side: Int, mirror: Int32) -> (status: Int32, features: [Float], error: String) {
            var features = [Float](repeating: -7, count: 2 * count)
            var error = [CChar](repeating: 0, count: 600)
            let status = picture.pixels.withUnsafeBufferPointer { pixels in
                vo_content_scene(
                    engine, pixels.baseAddress, Int32(picture.width), Int32(picture.height),
                    Int32(picture.width * 3), Int32(side), mirror, &features, &error, error.count)
            }
            let line = String(cMessage: error)
            return (status, features, line)
        }
        let side = ContentEngine.sceneSide
        let refused = [
            (side, -1), (side, 3), (side, 100), (side + 16, 0), (Int(VO_CONTENT_SCENE_SIDE_MIN) - 32, 0),
            (Int(VO_CONTENT_SCENE_SIDE_MAX) + 32, 1),
        ]
        for (side, mirror) in refused {
            let result = scene(side: side, mirror: Int32(mirror))
            #expect(result.status == -1, "side \(side), mirror \(mirror)")
            #expect(result.error == "scene: invalid arguments", "side \(side), mirror \(mirror)")
            #expect(result.features.allSatisfy { $0 == -7 }, "side \(side), mirror \(mirror): features written")
        }
        let both = scene(side: side, mirror: 1)
        let alone = scene(side: side, mirror: 0)
        let mirrorAlone = scene(side: side, mirror: 2)
        #expect([both.status, alone.status, mirrorAlone.status] == [0, 0, 0])
        // One pass writes one set of features, and leaves the rest of the buffer alone.
        #expect(alone.features[count...].allSatisfy { $0 == -7 })
        #expect(mirrorAlone.features[count...].allSatisfy { $0 == -7 })
        let tolerance: Float = 1e-3
        #expect(zip(alone.features[..<count], both.features[..<count]).allSatisfy { abs($0 - $1) <= tolerance })
        #expect(zip(mirrorAlone.features[..<count], both.features[count...]).allSatisfy { abs($0 - $1) <= tolerance })
        // And the mirror image is not the picture.
        #expect(zip(mirrorAlone.features[..<count], alone.features[..<count]).contains { abs($0 - $1) > 0.1 })
    }

    /// The depthwise convolutions the engine computes itself (5×5, and 3×3 on small pictures) give
    /// OpenCV's own features within rounding, at every side the surface allows (each side puts the
    /// layers' pictures on another of the engine's paths: one channel at a time, every channel at once, or
    /// OpenCV's) and with the mirror image as a second picture of the batch. The sums are taken in
    /// another order, so some features differ in their last bits: proof that the engine's own ran.
    @Test func theEnginesOwnConvolutionsAreOpenCVs() throws {
        try ContentEngine.loadLibrary()
        let model = try SceneModel.locate()
        func engine(_ options: Int32) throws -> OpaquePointer {
            var error = [CChar](repeating: 0, count: 600)
            return try #require(
                model.withPathCString { vo_content_engine_create_with($0, options, &error, error.count) },
                "\(String(cMessage: error))")
        }
        let own = try engine(0)
        let opencv = try engine(VO_CONTENT_OPENCV_CONVOLUTIONS)
        defer {
            vo_content_engine_destroy(own)
            vo_content_engine_destroy(opencv)
        }
        func features(_ engine: OpaquePointer, _ picture: Picture, side: Int) -> [Float] {
            var features = [Float](repeating: -7, count: 2 * Int(VO_CONTENT_FEATURES))
            var error = [CChar](repeating: 0, count: 600)
            let status = picture.pixels.withUnsafeBufferPointer { pixels in
                vo_content_scene(
                    engine, pixels.baseAddress, Int32(picture.width), Int32(picture.height),
                    Int32(picture.width * 3), Int32(side), 1, &features, &error, error.count)
            }
            #expect(status == 0)
            return features
        }
        var differing = 0
        for name in [ContentPhotos.face, ContentPhotos.scenes[0], ContentPhotos.textures[0]] {
            let picture = try Self.picture(name)
            for side in [96, 160, 224, 320] {
                let mine = features(own, picture, side: side)
                let theirs = features(opencv, picture, side: side)
                let worst = zip(mine, theirs).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? .infinity
                #expect(worst <= 1e-4, "\(name) at \(side) px: features apart by \(worst)")
                #expect(theirs.allSatisfy { $0 != -7 })
                differing += zip(mine, theirs).filter { $0 != $1 }.count
            }
        }
        #expect(differing > 0, "every feature bit for bit OpenCV's: the engine's own convolutions did not run")
    }

    /// Leptonica's letter shapes turn the way Core's `LetterShapes.turn` assumes: a page of text
    /// (`TextPages`, drawn upright) turned k quarter turns clockwise needs 4 - k back, as it is
    /// and as light letters on dark (a terminal, inverted before the threshold); a photo of a cat
    /// has no letters to decide by. One page drawn, decoded and inverted, one engine, for the four
    /// turns.
    @Test(.enabled(if: TextPages.isPresent, "FFmpeg or DejaVu is absent"))
    func letterShapesTurnWithThePage() throws {
        let folder = try TemporaryFolder("content-letters")
        defer { folder.remove() }
        let path = folder.path("page.png")
        try TextPages.page(path)
        let request = ThumbnailRequest(width: ContentEngine.textSide, height: ContentEngine.textSide)
        let upright = try Thumbnailer(font: nil).frame(path, request: request).picture
        var dark = upright
        dark.pixels = upright.pixels.map { 255 - $0 }
        let cat = try Self.picture("chelsea.png")
        let engine = try ContentEngine()
        let policy = ContentEngine.policy
        func turn(_ picture: Picture) throws -> (Int?, LetterShapes) {
            let letters = try engine.letterShapes(in: picture)
            return (letters.turn(confidence: policy.letterConfidence, ratio: policy.letterRatio), letters)
        }
        for quarterTurns in 0..<4 {
            let needed = (4 - quarterTurns) % 4
            let (page, letters) = try turn(Self.turned(upright, quarterTurns))
            #expect(page == needed, "turned \(quarterTurns): \(letters)")
            let (inverted, darkLetters) = try turn(Self.turned(dark, quarterTurns))
            #expect(inverted == needed, "turned \(quarterTurns), inverted: \(darkLetters)")
            let (photo, catLetters) = try turn(Self.turned(cat, quarterTurns))
            #expect(photo == nil, "the cat turned \(quarterTurns): \(catLetters)")
        }
    }

    /// Tesseract's recogniser reads a page's words in the turn that shows it upright and next to none
    /// in the others, as Core's `WordCounts.turn` assumes: a page turned a quarter turn clockwise
    /// reads once turned three more (the other way round, it would read once turned one more); a
    /// photo of a cat has too few words to decide by.
    @Test(.enabled(if: TextPages.recognisesWords, "Tesseract's English data, FFmpeg or DejaVu is absent"))
    func wordsAreReadInTheTurnThatShowsThemUpright() throws {
        let folder = try TemporaryFolder("content-words")
        defer { folder.remove() }
        let path = folder.path("page.png")
        try TextPages.page(path, lines: 12)
        let request = ThumbnailRequest(width: ContentEngine.textSide, height: ContentEngine.textSide)
        let upright = try Thumbnailer(font: nil).frame(path, request: request).picture
        let engine = try ContentEngine()
        let policy = ContentEngine.policy
        let words = try #require(try engine.wordCounts(in: Self.turned(upright, 1), policy: policy))
        #expect(words.turn(least: policy.wordCount, ratio: policy.wordRatio) == 3, "\(words.counts)")
        let cat = try #require(try engine.wordCounts(in: Self.picture("chelsea.png"), policy: policy))
        #expect(cat.turn(least: policy.wordCount, ratio: policy.wordRatio) == nil, "the cat: \(cat.counts)")
        // A recognition that runs out of time gives no counts at all, never the turns it finished.
        #expect(try engine.wordCounts(in: Self.turned(upright, 1), policy: policy, deadline: 1) == nil)
    }

    @Test func aFlatPictureIsNotJudged() throws {
        let folder = try TemporaryFolder("content-flat")
        defer { folder.remove() }
        let path = folder.path("grey.png")
        let (status, _, _) = try run(
            "ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=320x240", "-frames:v", "1", path])
        try #require(status == 0)
        let engine = try ContentEngine()
        let verdict = try ContentJudge().verdict(path, engine: engine)
        #expect(verdict.verdict == .noOpinion)
        #expect(verdict.frames == 0)
        #expect(verdict.sceneProbabilities == nil)
    }
}
