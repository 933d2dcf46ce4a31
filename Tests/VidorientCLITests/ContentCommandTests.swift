import Foundation
import Testing
import VidorientTestSupport

/// `--content` as a user runs it, on scikit-image's sample photos (`ContentPhotos`) made sideways
/// by vidorient itself: `fix` sets a tag, `normalize` turns the pixels and sets the tag to 1 (a
/// sideways picture whose tag says nothing, as from a camera without an orientation sensor).
@Suite(.enabled(if: ContentPhotos.isPresent, "scikit-image's sample photos are absent (.ci/setup extracts them)"))
struct ContentCommandTests {
    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func content(_ path: String, _ extra: [String] = []) throws -> (
        report: [String: Any], content: [String: Any]
    ) {
        let run = try Run.vidorient(["inspect", "--json", "--content"] + extra + [path])
        try #require(run.status == 0, "\(run.stderr)")
        let report = try json(run.stdout)
        return (report, try #require(report["content"] as? [String: Any]))
    }

    /// Every EXIF orientation on an upright portrait: the verdict names the turn that undoes the
    /// tag's rotation (a mirror stays: the pixels cannot say it), decided by the scene, which is sure
    /// enough of this photo that no face is looked for (`faces` null: ContentPolicy.faceTurns). Three
    /// of the eight in the test run, all eight in `.ci/run`'s large rounds (`LargeRounds.tagTargets`).
    @Test(arguments: LargeRounds.tagTargets)
    func everyTagIsTurnedBack(orientation: Int) throws {
        let folder = try TemporaryFolder("content-tag")
        defer { folder.remove() }
        let path = try folder.copy(ContentPhotos.path(ContentPhotos.face), as: "face.png")
        if orientation != 1 {
            let fix = try Run.vidorient(["fix", "--orientation", "\(orientation)", path])
            try #require(fix.status == 0, "\(fix.stderr)")
        }
        let (report, content) = try Self.content(path)
        let rotation = try #require((report["photo"] as? [String: Any])?["rotation"] as? Int)
        #expect(content["decided_by"] as? String == "scene")
        #expect(content["turn_needed"] as? Int == (360 - rotation) % 360)
        #expect(
            content["verdict"] as? String == (rotation == 0 ? "upright" : rotation == 180 ? "upside-down" : "sideways"))
        #expect(content["faces"] is NSNull)
        #expect((content["face_scores"] as? [Any])?.allSatisfy { $0 is NSNull } == true)
        #expect(content["frames"] as? Int == 1)
    }

    /// A photo shown on its side with tag 1: audit finds it and suggests the orientation that
    /// shows it upright, `fix --from-audit` applies it, inspect then agrees, and undo takes it back.
    @Test func aSidewaysPhotoIsFoundFixedAndUndone() throws {
        let folder = try TemporaryFolder("content-audit")
        defer { folder.remove() }
        let library = folder.path("library")
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        let path = try folder.copy(ContentPhotos.path(ContentPhotos.face), as: "library/face.png")
        // Turned 90° clockwise in its pixels, tag 1.
        for arguments in [["fix", "--orientation", "6", path], ["normalize", path]] {
            let run = try Run.vidorient(arguments)
            try #require(run.status == 0, "\(arguments): \(run.stderr)")
        }
        let sideways = try Data(contentsOf: URL(fileURLWithPath: path))
        let (before, _) = try Self.content(path)
        #expect((before["photo"] as? [String: Any])?["rotation"] as? Int == 0)

        // Without --content the audit has nothing to say.
        let plain = try Run.vidorient(["audit", "--jsonl", "--no-progress", library])
        #expect(plain.status == 0)
        #expect(!plain.stdout.contains("\"code\":\"content-"))

        let audit = try Run.vidorient(["audit", "--jsonl", "--no-progress", "--content", library])
        #expect(audit.status == 1, "\(audit.stderr)")
        let record = try Self.json(audit.stdout)
        let finding = try #require(
            (record["findings"] as? [[String: Any]])?.first { $0["code"] as? String == "content-sideways" })
        #expect((finding["suggested_fix"] as? [String: Any])?["orientation"] as? Int == 8)
        #expect((finding["action"] as? String)?.contains("--orientation 8") == true)
        #expect((record["content"] as? [String: Any])?["turn_needed"] as? Int == 270)

        // The HTML report shows the picture as stored, as displayed and as suggested.
        let page = folder.path("report.html")
        let html = try Run.vidorient(["audit", "--content", "--no-progress", "--html", page, "--thumbnails", library])
        #expect(html.status == 1, "\(html.stderr)")
        let text = try String(contentsOfFile: page, encoding: .utf8)
        #expect(text.contains("\"u\":270"), "the row has no suggested turn")
        let thumbnails = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != "library" }
        let suggested = try thumbnails.flatMap { name -> [String] in
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path(name), isDirectory: &isFolder), isFolder.boolValue
            else { return [] }
            return try FileManager.default.contentsOfDirectory(atPath: folder.path(name)).filter {
                $0.hasSuffix("-u.jpg")
            }
        }
        #expect(suggested.count == 1, "\(thumbnails)")

        let auditFile = folder.path("audit.jsonl")
        try Data(audit.stdout.utf8).write(to: URL(fileURLWithPath: auditFile))
        // A judgment is not applied unasked (issue 29): the dry run says why, and nothing is written.
        let held = try Run.vidorient(["fix", "--from-audit", auditFile, "--dry-run"])
        #expect(held.status == 0, "\(held.stderr)")
        #expect(
            held.stdout.contains(
                "face.png: content-sideways held back: a judgment, confidence "), "\(held.stdout)")
        #expect(held.stderr.contains("would fix 0, already right 0"), "\(held.stderr)")
        let unasked = try Run.vidorient(["fix", "--from-audit", auditFile])
        #expect(unasked.status == 0, "\(unasked.stderr)")
        #expect(unasked.stderr.contains("held back 1 suggested fix "), "\(unasked.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == sideways)
        // Too sure a floor holds it back even when named.
        let floor = try Run.vidorient([
            "fix", "--from-audit", auditFile, "--only", "content-sideways", "--min-confidence", "1", "--dry-run",
        ])
        let confidence = try #require((record["content"] as? [String: Any])?["confidence"] as? Double)
        #expect(floor.stdout.contains("is below --min-confidence 1") == (confidence < 1), "\(floor.stdout)")
        // Named in --only, it is applied, and the dry run says why.
        let named = try Run.vidorient(["fix", "--from-audit", auditFile, "--only", "content-sideways", "--dry-run"])
        #expect(
            named.stdout.contains("content-sideways would be applied: --only names content-sideways"), "\(named.stdout)"
        )
        let journal = folder.path("journal.jsonl")
        let fix = try Run.vidorient([
            "fix", "--from-audit", auditFile, "--only", "content-sideways", "--journal", journal,
        ])
        #expect(fix.status == 0, "\(fix.stderr)")
        let (after, content) = try Self.content(path)
        #expect((after["photo"] as? [String: Any])?["rotation"] as? Int == 270)
        #expect(content["verdict"] as? String == "upright")

        let undo = try Run.vidorient(["fix", "--undo", journal])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == sideways)
    }

    /// A clip is judged from frames spread over it: a portrait filmed on its side, no matrix.
    @Test func aSidewaysClipIsJudgedFromItsFrames() throws {
        let folder = try TemporaryFolder("content-clip")
        defer { folder.remove() }
        let path = folder.path("sideways.mp4")
        let (status, _, stderr) = try run(
            "ffmpeg",
            [
                "-v", "error", "-loop", "1", "-i", ContentPhotos.path(ContentPhotos.face), "-vf",
                "transpose=clock,format=yuv420p",
                "-t", "2", "-r", "10", "-c:v", "libx264", "-g", "5", path,
            ])
        try #require(status == 0, "\(stderr)")
        let (_, content) = try Self.content(path)
        #expect(content["frames"] as? Int ?? 0 >= 2)
        #expect(content["turn_needed"] as? Int == 270)
        #expect(content["decided_by"] as? String == "faces")
    }

    /// A page of text stored turned (the pixels; no tag): faces and the scene say nothing of it, so
    /// Tesseract reads its lines, and the text decides each turn back, naming itself, with no
    /// probability (Tesseract's confidence is in `text`). The pixels' own way up, once turned back,
    /// is upright by the text too.
    @Test(
        .enabled(if: TextPages.isPresent, "Tesseract's orientation data, FFmpeg or DejaVu is absent"),
        arguments: 0..<4)
    func aPageOfTextIsTurnedBackByItsText(quarterTurns: Int) throws {
        let folder = try TemporaryFolder("content-page")
        defer { folder.remove() }
        let path = folder.path("page.png")
        try TextPages.page(path, turned: quarterTurns)
        let (report, content) = try Self.content(path)
        #expect(content["decided_by"] as? String == "text")
        #expect(content["turn_needed"] as? Int == (360 - 90 * quarterTurns) % 360)
        #expect(content["confidence"] is NSNull)
        let text = try #require(content["text"] as? [String: Any])
        #expect(text["turn_needed"] as? Int == (360 - 90 * quarterTurns) % 360)
        #expect(text["script"] as? String == "Latin")
        #expect(try #require(text["confidence"] as? Double) >= 5)
        #expect(try #require(content["text_likeness"] as? Double) >= 0.5)
        let findings = try #require(report["findings"] as? [[String: Any]])
        #expect(findings.contains { $0["code"] as? String == "content-sideways" } == (quarterTurns % 2 == 1))
    }

    /// Where Tesseract gives no opinion (here it cannot: its orientation data, named by
    /// `$TESSDATA_PREFIX`, is unusable), a page on its side is turned back by its letters' shapes:
    /// Leptonica's confidences in `letter_shapes`, no probability, no Tesseract reading, nothing said
    /// on standard error; as the same page upright, where no finding is raised.
    @Test(
        .enabled(if: TextPages.isPresent, "Tesseract's orientation data, FFmpeg or DejaVu is absent"),
        arguments: [1, 0])
    func whereTesseractIsSilentTheLetterShapesDecide(quarterTurns: Int) throws {
        let folder = try TemporaryFolder("content-letters")
        defer { folder.remove() }
        let path = folder.path("page.png")
        try TextPages.page(path, turned: quarterTurns)
        try Data().write(to: URL(fileURLWithPath: folder.path("osd.traineddata")))
        let run = try Run.vidorient(
            ["inspect", "--json", "--content", path], environment: ["TESSDATA_PREFIX": folder.path])
        try #require(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let report = try Self.json(run.stdout)
        let content = try #require(report["content"] as? [String: Any])
        #expect(content["decided_by"] as? String == "letter-shapes")
        #expect(content["turn_needed"] as? Int == (360 - 90 * quarterTurns) % 360)
        #expect(content["confidence"] is NSNull)
        #expect(content["text"] is NSNull)
        let letters = try #require(content["letter_shapes"] as? [String: Any])
        let (up, left) = (
            try #require(letters["up_confidence"] as? Double), try #require(letters["left_confidence"] as? Double)
        )
        // Upright: the letters stand up. A quarter turn clockwise: their up faces right.
        #expect(quarterTurns == 0 ? up > 7 : left < -7, "\(letters)")
        let findings = try #require(report["findings"] as? [[String: Any]])
        #expect(findings.contains { $0["code"] as? String == "content-sideways" } == (quarterTurns == 1))
    }

    /// Where Tesseract's orientation detection gives no opinion (its data, named by `$TESSDATA_PREFIX`
    /// beside the real English data, is unusable), a page of capitals on its side is turned back by
    /// the words its recogniser reads in each turn, before Leptonica is asked (its letter shapes take
    /// capitals for letters upside down): `word_counts`, no probability, no orientation reading, no
    /// letter shapes, nothing said on standard error.
    @Test(.enabled(if: TextPages.recognisesWords, "Tesseract's English data, FFmpeg or DejaVu is absent"))
    func whereTheOrientationDetectionIsSilentTheWordsDecide() throws {
        let folder = try TemporaryFolder("content-words")
        defer { folder.remove() }
        let path = folder.path("page.png")
        try TextPages.page(path, turned: 1, lines: 16, capitals: true)
        try Data().write(to: URL(fileURLWithPath: folder.path("osd.traineddata")))
        try FileManager.default.createSymbolicLink(
            atPath: folder.path("eng.traineddata"), withDestinationPath: TextPages.englishData)
        let run = try Run.vidorient(
            ["inspect", "--json", "--content", path], environment: ["TESSDATA_PREFIX": folder.path])
        try #require(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let report = try Self.json(run.stdout)
        let content = try #require(report["content"] as? [String: Any])
        #expect(content["decided_by"] as? String == "words")
        #expect(content["turn_needed"] as? Int == 270)
        #expect(content["confidence"] is NSNull)
        #expect(content["text"] is NSNull)
        #expect(content["letter_shapes"] is NSNull)
        let counts = try #require(content["word_counts"] as? [Int])
        try #require(counts.count == 4)
        #expect(counts[3] >= 3 * counts[0..<3].max()!, "\(counts)")
        let findings = try #require(report["findings"] as? [[String: Any]])
        let finding = try #require(findings.first { $0["code"] as? String == "content-sideways" })
        #expect((finding["message"] as? String)?.contains("its words say") == true)
    }

    /// A page with a few lines at its top is nearly white, which the thumbnail's test calls flat:
    /// faces and the scene judge nothing (`frames` would be 0), but its text is still read.
    @Test(.enabled(if: TextPages.isPresent, "Tesseract's orientation data, FFmpeg or DejaVu is absent"))
    func aNearlyWhitePageIsStillReadByItsText() throws {
        let folder = try TemporaryFolder("content-white-page")
        defer { folder.remove() }
        let path = folder.path("page.png")
        try TextPages.page(path, turned: 1, lines: 30)
        let (_, content) = try Self.content(path)
        #expect(content["decided_by"] as? String == "text")
        #expect(content["turn_needed"] as? Int == 270)
        #expect(content["frames"] as? Int == 1)
    }

    /// A screen recording of a page turned on its side: the frames say nothing, its middle frame's
    /// text does.
    @Test(.enabled(if: TextPages.isPresent, "Tesseract's orientation data, FFmpeg or DejaVu is absent"))
    func aScreenRecordingIsTurnedBackByItsText() throws {
        let folder = try TemporaryFolder("content-recording")
        defer { folder.remove() }
        let path = folder.path("recording.mp4")
        try TextPages.recording(path, turned: 3)
        let (_, content) = try Self.content(path)
        #expect(content["decided_by"] as? String == "text")
        #expect(content["turn_needed"] as? Int == 90)
    }

    /// More workers than cores judge no more files at once than there are cores, so load no more
    /// engines: on one core (`taskset`, the first this process may use), four workers over four
    /// folders of a photo each peak within 40 MB of one worker (an engine and a judgment each, as
    /// a worker reading without its core's place had, is about 50 MB more per worker), with the
    /// same verdicts.
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time"),
        .enabled(if: isInstalled("taskset"), "needs taskset (util-linux)"))
    func moreWorkersThanCoresLoadNoMoreEngines() throws {
        let folder = try TemporaryFolder("content-jobs")
        defer { folder.remove() }
        for (i, name) in ContentPhotos.scenes.enumerated() {
            try FileManager.default.createDirectory(atPath: folder.path("\(i)"), withIntermediateDirectories: true)
            _ = try folder.copy(ContentPhotos.path(name), as: "\(i)/\(name)")
        }
        let allowed = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }
        let core = try #require(
            allowed?.split(separator: ":").last?.split(whereSeparator: { ",- \t".contains($0) }).first)
        func audit(jobs: Int) throws -> (peak: Int, verdicts: [String]) {
            let run = try Run.vidorient(
                ["audit", "--content", "--jsonl", "--no-progress", "--sort", "--jobs", "\(jobs)", folder.path],
                prefix: ["taskset", "-c", String(core), "/usr/bin/time", "-f", "%M"])
            try #require(run.status <= 1, "\(run.stderr)")
            let peak = try #require(run.stderrLines.last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
            let verdicts = try run.stdout.split(separator: "\n").map { line in
                let content = try #require(try Self.json(String(line))["content"] as? [String: Any])
                return "\(content["verdict"] ?? "") \(content["turn_needed"] ?? "")"
            }
            return (peak, verdicts)
        }
        let one = try audit(jobs: 1), four = try audit(jobs: 4)
        #expect(four.verdicts == one.verdicts)
        #expect(four.verdicts.count == ContentPhotos.scenes.count)
        #expect(four.peak < one.peak + 40_000, "peak \(four.peak) kB at four jobs, \(one.peak) kB at one")
    }

    /// A photo is not read as text: its likeness is low and Tesseract is not asked.
    @Test func aPhotoIsNotReadAsText() throws {
        let (_, content) = try Self.content(ContentPhotos.path("gravel.png"))
        #expect(content["text"] is NSNull)
        #expect(try #require(content["text_likeness"] as? Double) < 0.5)
    }

    /// A texture has no up: no opinion, and audit --content raises nothing for it.
    @Test func aTextureHasNoOpinion() throws {
        let (_, content) = try Self.content(ContentPhotos.path("gravel.png"))
        #expect(content["verdict"] as? String == "no-opinion")
        #expect(content["turn_needed"] is NSNull)
        #expect(content["decided_by"] is NSNull)
    }

    /// Without the scene network, --content is one line naming the reason and exit 2; without
    /// --content nothing of the engine is loaded.
    @Test func aMissingModelIsOneLine() throws {
        let run = try Run.vidorient(
            ["inspect", "--content", ContentPhotos.path(ContentPhotos.face)],
            environment: ["VIDORIENT_MODEL_DIR": "/nonexistent/vidorient-no-model"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("content model is not installed"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }

    @Test func onlyContentLoadsTheEngine() throws {
        let path = ContentPhotos.path(ContentPhotos.face)
        let engine = { (objects: [String]) in
            objects.filter { $0.contains("VidorientContentEngine") || $0.contains("libdlib") || $0.contains("opencv") }
        }
        let (plain, plainObjects) = try LoadedObjects.of(["inspect", "--json", path])
        #expect(plain.status == 0)
        #expect(engine(plainObjects) == [])
        let (judged, judgedObjects) = try LoadedObjects.of(["inspect", "--json", "--content", path])
        #expect(judged.status == 0, "\(judged.stderr)")
        #expect(!engine(judgedObjects).isEmpty)
    }

    /// The threshold is a probability: the verdict says which it was held to, and a bad one is usage.
    @Test func theThresholdIsAProbability() throws {
        let (_, content) = try Self.content(ContentPhotos.path(ContentPhotos.face), ["--content-threshold", "0.97"])
        #expect(content["threshold"] as? Double == 0.97)
        for bad in ["0.2", "1", "x"] {
            let run = try Run.vidorient([
                "inspect", "--content", "--content-threshold", bad, ContentPhotos.path(ContentPhotos.face),
            ])
            #expect(run.status == 64, "\(bad): \(run.stderr)")
        }
    }
}
