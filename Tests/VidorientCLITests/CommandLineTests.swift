import Foundation
import Testing
import VidorientTestSupport

@Suite struct InspectCommandTests {
    /// `inspect --deep` decodes: an error finding (the picture is cut short) is a file that could
    /// not be read, exit 2, its report still printed (issue 29: it exited 0). Without --deep the
    /// finding is said and the exit status stays 0, as TruncatedFileTests holds.
    @Test func aDeepInspectionThatFindsAnErrorExits2() throws {
        let path = Run.media("bad-png-length.png")
        let deep = try Run.vidorient(["inspect", "--deep", path])
        #expect(deep.status == 2, "\(deep.stderr)")
        #expect(deep.stdout.contains("error       file-truncated: "), "\(deep.stdout)")
        let json = try Run.vidorient(["inspect", "--deep", "--json", path])
        #expect(json.status == 2)
        #expect(json.stdout.contains("\"code\": \"file-truncated\""))
        #expect(try Run.vidorient(["inspect", "--deep", Run.media("orient-6.jpg")]).status == 0)
        #expect(try Run.vidorient(["inspect", path]).status == 0)
    }

    @Test func jsonForOneFileIsAnObject() throws {
        let run = try Run.vidorient(["inspect", "--json", Run.media("orient-6.mp4")])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let object = try #require(run.json as? [String: Any])
        #expect(object["schema_version"] as? Int == 7)
        let video = try #require(object["video"] as? [String: Any])
        #expect(video["exif_orientation"] as? Int == 6)
        #expect(video["rotation"] as? Int == 90)
        #expect(video["mirrored"] as? Bool == false)
        #expect(video["ffprobe_rotation"] as? Int == -90)
    }

    @Test func anMP4IsDescribedWithoutFFmpegInTheProjectsVocabulary() throws {
        let run = try Run.vidorient(["inspect", "--json", "--verbose", Run.media("orient-6.mp4")])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let format = try #require((run.json as? [String: Any])?["format"] as? [String: Any])
        #expect(format["name"] as? String == "mp4")
        #expect(format["ffmpeg_demuxer"] is NSNull)
        #expect((format["tags"] as? [String: Any])?["major_brand"] as? String == "isom")
    }

    @Test func aMovieTheBoxLayerRefusesGoesToFFmpegAndVerboseSaysWhy() throws {
        let quiet = try Run.vidorient(["inspect", "--json", Run.media("cover-art.m4a")])
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty)
        let format = try #require((quiet.json as? [String: Any])?["format"] as? [String: Any])
        #expect(format["name"] as? String == "m4a")
        #expect(format["ffmpeg_demuxer"] as? String == "mov,mp4,m4a,3gp,3g2,mj2")
        let verbose = try Run.vidorient(["inspect", "--json", "--verbose", Run.media("cover-art.m4a")])
        #expect(verbose.stderrLines.contains { $0.contains("read with ffmpeg") && $0.contains("covr") })
    }

    @Test func jsonForSeveralFilesIsAnArray() throws {
        let run = try Run.vidorient(["inspect", "--json", Run.media("orient-6.mp4"), Run.media("orient-5.jpg")])
        #expect(run.status == 0)
        let array = try #require(run.json as? [[String: Any]])
        #expect(array.count == 2)
        #expect(array.compactMap { ($0["video"] as? [String: Any])?["exif_orientation"] as? Int } == [6])
        // A photo's orientation is in `photo`, decided from its own EXIF.
        #expect(array.compactMap { ($0["photo"] as? [String: Any])?["exif_orientation"] as? Int } == [5])
    }

    @Test(arguments: ["bad-empty.mp4", "bad-truncated.mp4", "bad-random.mp4", "bad-text.mp4", "missing.mp4"])
    func badInputIsOneLineExitTwoAndTheOthersStillReported(name: String) throws {
        let bad = Run.media(name)
        let run = try Run.vidorient(["inspect", "--json", bad, Run.media("orient-3.mp4")])
        #expect(run.status == 2)
        #expect(run.stderrLines.count == 1)
        #expect(run.stderr.contains("'\(bad)'"))
        let array = try #require(run.json as? [[String: Any]])
        #expect(array.map { $0["path"] as? String } == [Run.media("orient-3.mp4")])
    }

    /// One file that cannot be read: nothing on stdout, not `[]` (issue 24: `inspect --json
    /// missing.mp4 | jq .video` failed on an array where one file gives an object).
    @Test(arguments: [["inspect", "--json"], ["fix", "--json", "--reset", "--dry-run"]])
    func oneUnreadableFileGivesNoJSONAtAll(command: [String]) throws {
        let run = try Run.vidorient(command + [Run.media("missing.mp4")])
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty, "\(run.stdout)")
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
    }

    @Test func reasonsAreSpecific() throws {
        #expect(try Run.vidorient(["inspect", Run.media("bad-empty.mp4")]).stderr.contains("file is empty"))
        // A folder is walked now (InspectInputsTests), not refused as "is a directory".
        #expect(try Run.vidorient(["inspect", Run.media("missing.mp4")]).stderr.contains("no such file"))
        #expect(try Run.vidorient(["inspect", Run.media("bad-random.mp4")]).stderr.contains("invalid data"))
    }

    @Test func unreadableFileIsRefusedEvenForRoot() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vidorient-perm-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let locked = folder.appendingPathComponent("locked.mp4")
        try FileManager.default.copyItem(atPath: Run.media("orient-6.mp4"), toPath: locked.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        // Root reads anything, so as root the check runs as nobody (setpriv, util-linux).
        let prefix = getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        let run = try Run.vidorient(["inspect", locked.path], prefix: prefix)
        #expect(run.status == 2)
        #expect(run.stderr.contains("permission denied"))
        #expect(run.stdout.isEmpty)
    }

    @Test func humanReportHasNoColourWhenNotATerminal() throws {
        let run = try Run.vidorient(["inspect", Run.media("orient-7.mp4")])
        #expect(run.status == 0)
        #expect(!run.stdout.contains("\u{1B}["))
        #expect(run.stdout.contains("EXIF 7: mirror, then rotate 90° clockwise (transverse)"))
        #expect(run.stdout.contains("mirrored"))
    }

    @Test func usageErrorsExit64() throws {
        #expect(try Run.vidorient(["inspect"]).status == 64)
        #expect(try Run.vidorient(["inspect", "--no-such-flag", Run.media("orient-1.mp4")]).status == 64)
        #expect(try Run.vidorient(["no-such-command"]).status == 64)
    }

    /// `inspect` prints its reports once every file is read (`--content` takes a while for each):
    /// until then a bar on a terminal, as audit and thumbnail show (issue 29), removed before the
    /// reports; none with `--no-progress`. Run under `script`, which gives it a terminal.
    @Test(.enabled(if: isInstalled("script")))
    func inspectShowsProgressOnATerminal() throws {
        let files = ["orient-1.jpg", "orient-6.jpg", "orient-8.png"].map { "'\(Run.media($0))'" }.joined(separator: " ")
        func onTerminal(_ options: String) throws -> String {
            let command = "'\(Run.binary.path)' inspect \(options) \(files)"
            let result = try run("env", ["-u", "NO_COLOR", "TERM=xterm", "script", "-qec", command, "/dev/null"])
            #expect(result.status == 0, "\(result.stderr)")
            return String(decoding: result.stdout, as: UTF8.self)
        }
        let shown = try onTerminal("")
        #expect(shown.contains("] 3/3"), "\(shown)")
        // The bar's last line cleared, then the reports.
        let cleared = try #require(shown.ranges(of: "\r\u{1B}[2K").last)
        #expect(shown[cleared.upperBound...].contains("EXIF 8"), "\(shown)")
        let quiet = try onTerminal("--no-progress")
        #expect(!quiet.contains("] 3/3") && quiet.contains("EXIF 8"), "\(quiet)")
    }
}

@Suite struct OrientationCommandTests {
    @Test func everyRepresentationOfOneOrientation() throws {
        let run = try Run.vidorient(["orientation", "--matrix", "0,1,1,0", "--json"])
        #expect(run.status == 0)
        let object = try #require(run.json as? [String: Any])
        #expect(object["exif_orientation"] as? Int == 5)
        #expect(object["rotation"] as? Int == 270)
        #expect(object["mirrored"] as? Bool == true)
        #expect((object["ui_image_orientation"] as? [String: Any])?["raw"] as? Int == 6)
        #expect(object["av_capture_video_orientation"] is NSNull)
        #expect(object["ffprobe_rotation"] as? Int == -90)
        #expect(object["ffmpeg_filter"] as? String == "transpose=cclock_flip")
    }

    /// A value with a minus sign is a value, as `fix --rotation -90` takes it (issue 29: "Missing
    /// value for '--rotation'").
    @Test(arguments: [
        (["--rotation", "-90"], 8), (["--rotation", "-180", "--mirrored"], 4), (["--matrix", "-1,0,0,-1"], 3),
        (["--rotation", "270"], 8),
    ])
    func negativeValues(arguments: [String], exif: Int) throws {
        let run = try Run.vidorient(["orientation"] + arguments + ["--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect((run.json as? [String: Any])?["exif_orientation"] as? Int == exif, "\(arguments)")
    }

    @Test func allEightWithoutAnOption() throws {
        let run = try Run.vidorient(["orientation", "--json"])
        let array = try #require(run.json as? [[String: Any]])
        #expect(array.compactMap { $0["exif_orientation"] as? Int } == Array(1...8))
    }

    @Test(arguments: [
        ["orientation", "--exif", "9"], ["orientation", "--exif", "6", "--uiimage", "3"],
        ["orientation", "--mirrored"], ["orientation", "--rotation", "45"], ["orientation", "--size", "big"],
        ["orientation", "--stored-size", "big"],
    ])
    func badOrientationUsageExits64(arguments: [String]) throws {
        let run = try Run.vidorient(arguments)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
    }
}

@Suite struct ThumbnailCommandTests {
    /// `--grid 3x3` on a photo made nine copies of it, silently (issue 29): the picture once, and a
    /// note on stderr; a clip still gets its nine frames.
    @Test func aContactSheetOfAPhotoIsThePictureOnce() throws {
        let folder = try scratchFolder("still-sheet")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = try Run.vidorient([
            "thumbnail", Run.media("orient-1.jpg"), "--grid", "3x3", "--width", "80", "--json", "-o",
            folder.appendingPathComponent("photo.png").path,
        ])
        #expect(photo.status == 0, "\(photo.stderr)")
        #expect(photo.stderr.contains("note: ") && photo.stderr.contains("shows it once, not 3x3"), "\(photo.stderr)")
        // One object a file, in an array (as for a folder).
        #expect(try #require((photo.json as? [[String: Any]])?.first?["width"] as? Int) <= 80 + 2 * 4)
        let clip = try Run.vidorient([
            "thumbnail", Run.media("orient-1.mp4"), "--grid", "3x3", "--width", "80", "--json", "-o",
            folder.appendingPathComponent("clip.png").path,
        ])
        #expect(clip.status == 0 && !clip.stderr.contains("note: "), "\(clip.stderr)")
        #expect((clip.json as? [[String: Any]])?.first?["width"] as? Int == 3 * 80 + 4 * 4)
    }

    @Test func oneFileToOneOutput() throws {
        let folder = try scratchFolder("one")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("six.jpg").path
        let run = try Run.vidorient(["thumbnail", Run.media("orient-6.mp4"), "-o", out, "--width", "80"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let bytes = try #require(FileManager.default.contents(atPath: out))
        #expect(bytes.prefix(2) == Data([0xFF, 0xD8]))  // JPEG, from the extension
        #expect(run.stdout.contains("(80x48"))
    }

    @Test func sameInputSameBytes() throws {
        let folder = try scratchFolder("same")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (a, b) = (folder.appendingPathComponent("a.png").path, folder.appendingPathComponent("b.png").path)
        #expect(try Run.vidorient(["thumbnail", Run.media("orient-7-hevc.mov"), "-o", a]).status == 0)
        #expect(try Run.vidorient(["thumbnail", Run.media("orient-7-hevc.mov"), "-o", b]).status == 0)
        let first = try #require(FileManager.default.contents(atPath: a))
        #expect(first.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(FileManager.default.contents(atPath: b) == first)
    }

    @Test func batchGoesOnPastBadFilesAndWritesNothingForThem() throws {
        let folder = try scratchFolder("batch")
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = [
            "orient-1.mp4", "bad-random.mp4", "orient-5.jpg", "bad-empty.mp4", "audio-only.m4a", "orient-8-hevc.mov",
        ]
        let run = try Run.vidorient(["thumbnail", "--out-dir", folder.path, "--json"] + inputs.map(Run.media))
        #expect(run.status == 2)
        #expect(run.stderrLines.count == 3)
        for bad in ["bad-random.mp4", "bad-empty.mp4", "audio-only.m4a"] {
            #expect(run.stderrLines.contains { $0.contains("'\(Run.media(bad))'") })
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(written == ["orient-1.png", "orient-5.png", "orient-8-hevc.png"])
        let json = try #require(run.json as? [[String: Any]])
        #expect(json.count == 3)
        #expect(json.allSatisfy { $0["width"] as? Int == 160 && $0["height"] as? Int == 96 })
    }

    @Test func directoriesAreWalked() throws {
        let folder = try scratchFolder("walk")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Run.vidorient([
            "thumbnail", "--out-dir", folder.path, "--width", "32", "--name", "{stem}-{index}.{ext}", Run.media(""),
        ])
        // TestMedia holds bad files too: exit 2 for them, thumbnails for the rest.
        #expect(run.status == 2)
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(written.count >= 30)
        // Every bad file is refused, photos included (the PNG readers check CRCs; FFmpeg does not).
        #expect(!written.contains { $0.hasPrefix("bad-") })
    }

    @Test(arguments: [
        ["thumbnail", "TestMedia/orient-1.mp4"],
        ["thumbnail", "TestMedia/orient-1.mp4", "TestMedia/orient-2.mp4", "-o", "/tmp/x.png"],
        ["thumbnail", "TestMedia/orient-1.mp4", "-o", "/tmp/x.png", "--compare", "--grid", "2x2"],
        ["thumbnail", "TestMedia/orient-1.mp4", "-o", "/tmp/x.png", "--at", "soon"],
        ["thumbnail", "TestMedia/orient-1.mp4", "-o", "/tmp/x.gif"],
        ["thumbnail", "TestMedia/orient-1.mp4", "-o", "/tmp/x.png", "--size", "0x10"],
        ["thumbnail", "TestMedia/orient-1.mp4", "TestMedia/orient-1.mp4", "--out-dir", "/tmp"],
    ])
    func badUsageExits64AndWritesNothing(arguments: [String]) throws {
        let run = try Run.vidorient(
            arguments.map { $0.hasPrefix("TestMedia/") ? Run.media(String($0.dropFirst(10))) : $0 })
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
    }

    @Test func unwritableOutputIsReported() throws {
        let run = try Run.vidorient(["thumbnail", Run.media("orient-1.mp4"), "-o", "/no/such/folder/x.png"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("could not write '/no/such/folder/x.png'"))
    }
}

@Suite struct AuditCommandTests {
    @Test func jsonlStreamsOneLinePerFileAndExitsOneOnWarnings() throws {
        let run = try Run.vidorient(["audit", "--jsonl", Run.media("")])
        #expect(run.status == 1)
        #expect(!run.stderr.contains("\r"), "no progress line when stderr is not a terminal")
        let lines = run.stdout.split(separator: "\n")
        // A folder in TestMedia would be walked too; none holds media today, so folders are not
        // counted as files.
        let media = try FileManager.default.contentsOfDirectory(atPath: Run.media("")).filter { name in
            !name.hasSuffix(".m4a") && !name.hasSuffix(".json") && !name.hasSuffix(".md") && !name.hasSuffix(".py")
                && !name.hasSuffix(".sh") && !name.hasSuffix(".xmp") && !isFolder(Run.media(name))
        }
        #expect(
            lines.count == media.count,
            "every TestMedia video, photo and bad file; audio .m4a is not a default extension")
        let objects = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let mirrored = objects.first { ($0["path"] as? String)?.hasSuffix("orient-7.mp4") == true }
        #expect(((mirrored?["findings"] as? [[String: Any]])?.first?["code"] as? String) == "mirrored")
        #expect(
            ((mirrored?["findings"] as? [[String: Any]])?.first?["action"] as? String)?.contains("vidorient fix")
                == true)
    }

    @Test func onlyUnreadableFilesExitTwo() throws {
        let run = try Run.vidorient(["audit", Run.media("bad-random.mp4"), Run.media("orient-6.mp4")])
        #expect(run.status == 2)
        #expect(run.stdout.contains("unreadable"))
        #expect(try Run.vidorient(["audit", Run.media("orient-6.mp4"), Run.media("orient-8.jpg")]).status == 0)
        #expect(try Run.vidorient(["audit", "--fail-on", "error", Run.media("orient-5.mp4")]).status == 0)
    }

    @Test func aFileNobodyMayReadIsReportedNotFatal() throws {
        let folder = try scratchFolder("audit-perm")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let locked = folder.appendingPathComponent("locked.mp4")
        let open = folder.appendingPathComponent("open.mp4")
        try FileManager.default.copyItem(atPath: Run.media("orient-6.mp4"), toPath: locked.path)
        try FileManager.default.copyItem(atPath: Run.media("orient-6.mp4"), toPath: open.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: open.path)
        let prefix = getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        let run = try Run.vidorient(["audit", "--csv", folder.path], prefix: prefix)
        #expect(run.status == 2)
        #expect(run.stdout.contains("\(locked.path),error,unreadable,could not be probed: permission denied"))
        #expect(!run.stdout.contains(open.path))
    }

    @Test func oneJSONDocumentWithASummary() throws {
        let run = try Run.vidorient(["audit", "--json", Run.media("orient-2.mp4"), Run.media("orient-3.mp4")])
        let object = try #require(run.json as? [String: Any])
        #expect((object["files"] as? [Any])?.count == 2)
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["files"] as? Int == 2)
        #expect((summary["findings_by_code"] as? [String: Int])?["mirrored"] == 1)
        #expect(summary["exit_status"] as? Int == 1)
    }

    @Test func filesFromStandardInputWithShards() throws {
        let list = Run.packageRoot.appendingPathComponent("TestMedia").path
        let all = try Run.vidorient(["audit", "--jsonl", list])
        var union: [String] = []
        for k in 1...3 {
            let part = try Run.vidorient(["audit", "--jsonl", "--shard", "\(k)/3", list])
            union += part.stdout.split(separator: "\n").map(String.init)
        }
        func paths(_ lines: [String]) -> [String] {
            lines.compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["path"] as? String
            }.sorted()
        }
        #expect(paths(union) == paths(all.stdout.split(separator: "\n").map(String.init)))
    }

    @Test(arguments: [
        ["audit"], ["audit", "--shard", "4/3", "x"], ["audit", "--json", "--csv", "x"], ["audit", "-0", "x"],
        ["audit", "--fail-on", "loud", "x"], ["audit", "--jobs", "0", "x"],
    ])
    func badUsageExits64(arguments: [String]) throws {
        let run = try Run.vidorient(arguments)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
    }
}

private func isFolder(_ path: String) -> Bool {
    var folder: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
}

/// Usage errors and help that point the right way (issue 24): each said what the user did not
/// do, or in the wrong tense.
@Suite struct PointingTheRightWayTests {
    @Test(arguments: [
        (["thumbnail", "TestMedia/orient-6.mp4", "--width", "-5", "-o", "x.png"], "--width must be 1-16384"),
        (["fix", "TestMedia/orient-6.jpg", "--mirrored"], "--mirrored goes with --rotation"),
        // The old spelling, still accepted, is told in the new words.
        (["fix", "TestMedia/orient-6.jpg", "--mirror"], "--mirrored goes with --rotation"),
        (["fix", "TestMedia/orient-6.jpg", "--rotate", "90", "--rotation", "90"], "--rotate is --rotation"),
    ])
    func usageErrorsSayWhatIsWrong(arguments: [String], said: String) throws {
        let run = try Run.vidorient(arguments)
        #expect(run.status == 64)
        #expect(run.stderr.contains(said), "\(run.stderr)")
    }

    @Test func theTopLevelHelpListsEveryExitStatus() throws {
        let help = try Run.vidorient(["--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for status in ["0 success", "1 audit found problems", "2 an input could not be read", "64 bad usage"] {
            #expect(help.contains(status), "\(status)")
        }
    }

    /// A photo's "taken" in ISO 8601, as a video's: one format for one idea.
    @Test func aPhotoWasTakenInISO8601() throws {
        let run = try Run.vidorient(["inspect", Run.media("jpeg-xmp-conflict.jpg")])
        #expect(run.stdout.contains("  taken       2024-05-06T07:08:09+02:00\n"), "\(run.stdout)")
    }

    @Test func aDryRunSpeaksOfWhatWouldBe() throws {
        let run = try Run.vidorient(["normalize", "--dry-run", "--trim", Run.media("orient-6.jpg")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("to change"), "\(run.stdout)")
        #expect(!run.stdout.contains("changed"), "\(run.stdout)")
    }
}

/// For scripts (issue 24): `inspect --print` as `exiftool -T`, and a top-level `orientation` in
/// the JSON whatever the file's kind.
@Suite struct ScriptFieldsTests {
    @Test func printWritesTheChosenFieldsOneLineAFile() throws {
        let files = ["orient-6.mp4", "orient-7.heic", "odd-angle-30.mp4", "audio-only.m4a", "orient-2.jpg"]
        let run = try Run.vidorient(
            ["inspect", "--print", "path,orientation,rotation,mirrored,kind,source"] + files.map(Run.media))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.split(separator: "\n").map(String.init) == [
                "\(Run.media("orient-6.mp4"))\t6\t90\tno\tvideo\tcontainer",
                "\(Run.media("orient-7.heic"))\t7\t90\tyes\tphoto\theif",
                "\(Run.media("odd-angle-30.mp4"))\t-\t30\tno\tvideo\tcontainer",
                "\(Run.media("audio-only.m4a"))\t-\t-\t-\t-\t-",
                "\(Run.media("orient-2.jpg"))\t2\t0\tyes\tphoto\texif",
            ])
    }

    @Test(arguments: [["--print", "orientation,colour"], ["--print", "orientation", "--json"], ["--print", ""]])
    func printRefusesWhatItCannotDo(options: [String]) throws {
        let run = try Run.vidorient(["inspect"] + options + [Run.media("orient-6.mp4")])
        #expect(run.status == 64, "\(run.stderr)")
    }

    @Test func jsonHasTheOrientationAtTheTopForEveryKind() throws {
        let run = try Run.vidorient(
            ["inspect", "--json", Run.media("orient-5.mp4"), Run.media("orient-8.webp"), Run.media("audio-only.m4a")])
        #expect(run.status == 0, "\(run.stderr)")
        let reports = try #require(run.json as? [[String: Any]])
        let shown = reports.map { $0["orientation"] as? [String: Any] }
        #expect(shown[0]?["exif_orientation"] as? Int == 5 && shown[0]?["kind"] as? String == "video")
        #expect(
            shown[0]?["exif_orientation"] as? Int == (reports[0]["video"] as? [String: Any])?["exif_orientation"]
                as? Int)
        #expect(shown[1]?["exif_orientation"] as? Int == 8 && shown[1]?["kind"] as? String == "photo")
        #expect(shown[1]?["rotation"] as? Double == 270 && shown[1]?["mirrored"] as? Bool == false)
        #expect(reports[2]["orientation"] is NSNull)
    }
}

/// `inspect` takes what `audit` and `thumbnail` take (issue 24): a folder is walked for media, and
/// `-` is one file on standard input.
@Suite struct InspectInputsTests {
    @Test func aFolderIsWalkedAndAlwaysAnArray() throws {
        let folder = try scratchFolder("inspect-folder")
        defer { try? FileManager.default.removeItem(at: folder) }
        let inner = folder.appendingPathComponent("inner")
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Run.media("orient-6.mp4"), toPath: inner.appendingPathComponent("a.mp4").path)
        try Data("not media".utf8).write(to: inner.appendingPathComponent("notes.txt"))
        let one = try Run.vidorient(["inspect", "--json", folder.path])
        #expect(one.status == 0, "\(one.stderr)")
        let reports = try #require(one.json as? [[String: Any]], "a folder is several files, even with one inside")
        #expect(reports.map { $0["path"] as? String } == [inner.appendingPathComponent("a.mp4").path])
        let printed = try Run.vidorient(["inspect", "--print", "orientation", folder.path, Run.media("orient-8.jpg")])
        #expect(printed.stdout == "6\n8\n", "\(printed.stderr)")
    }

    @Test(arguments: ["orient-7.heic", "orient-5.mp4", "orient-3.png"])
    func standardInputIsOneFile(name: String) throws {
        let run = try Run.vidorient(
            [],
            prefix: [
                "sh", "-c", "\"$0\" inspect --print path,orientation,kind - < \"$1\"", Run.binary.path, Run.media(name),
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try Run.vidorient(["inspect", "--print", "orientation,kind", Run.media(name)]).stdout
        #expect(run.stdout == "-\t" + expected)
        let json = try Run.vidorient(
            [], prefix: ["sh", "-c", "\"$0\" inspect --json - < \"$1\"", Run.binary.path, Run.media(name)])
        #expect((json.json as? [String: Any])?["path"] as? String == "-")
    }

    @Test func emptyStandardInputIsOneLineAndExitTwo() throws {
        let run = try Run.vidorient([], prefix: ["sh", "-c", "\"$0\" inspect - < /dev/null", Run.binary.path])
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderrLines == ["vidorient: could not read standard input: file is empty"], "\(run.stderr)")
    }
}

/// `inspect -` spools standard input to a file that has no name (issue 28, item 5): killed while
/// it spools, by SIGKILL even, the process leaves nothing in `$TMPDIR`. Before, the spool was
/// `$TMPDIR/vidorient-stdin-PID-N`, removed only by a normal exit.
@Suite
struct SpooledInputTests {
    @Test func aKilledSpoolLeavesNothing() throws {
        let folder = try scratchFolder("spool-kill")
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = Run.binary
        process.arguments = ["inspect", "-"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": folder.path]) { $1 }
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(repeating: 0x42, count: 1 << 20))
        // The spool is open once a descriptor of the process leads into the folder; it then
        // waits for more of standard input, which stays open.
        let descriptors = "/proc/\(process.processIdentifier)/fd"
        let deadline = Date().addingTimeInterval(20)
        var spooling = false
        while !spooling, process.isRunning, Date() < deadline {
            spooling = ((try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []).contains {
                ((try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + $0)) ?? "")
                    .hasPrefix(folder.path + "/")
            }
            if !spooling { usleep(1000) }
        }
        #expect(spooling)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
    }
}

/// What the program says, in words a person reads (issue 29).
@Suite struct WordingTests {
    /// One file is one file: "1 files in …" and "(1 files/s)" before.
    @Test func oneFileIsSingular() throws {
        let run = try Run.vidorient(["audit", "--no-progress", Run.media("orient-1.mp4")])
        #expect(run.status == 0, "\(run.stderr)")
        let summary = try #require(run.stdout.split(separator: "\n").first { $0.contains(" in ") })
        #expect(summary.hasPrefix("1 file in "), "\(summary)")
        #expect(!summary.contains(" 1 files/s"), "\(summary)")
    }

    /// `help watch` showed the top-level help; watching is `audit --watch`, whose help it shows now.
    /// A topic that is no command is bad usage.
    @Test func helpWatchIsAuditsHelp() throws {
        let run = try Run.vidorient(["help", "watch"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("OVERVIEW: Sweep a media library"), "\(run.stdout.prefix(200))")
        #expect(run.stdout.contains("--watch"))
        #expect(run.stderr.contains("audit --watch"))
        let unknown = try Run.vidorient(["help", "no-such-topic"])
        #expect(unknown.status == 64)
        #expect(unknown.stdout.isEmpty)
        #expect(unknown.stderr.contains("no command 'no-such-topic'"), "\(unknown.stderr)")
        #expect(try Run.vidorient(["help", "fix"]).stdout.contains("OVERVIEW: Set the orientation"))
    }

    /// `--include '*.HEIC'` found only the upper-case names (4 where `find -iname` found 16):
    /// globs match letters in either case now, in --include and --exclude alike.
    @Test func globsMatchEitherCase() throws {
        let folder = try TemporaryFolder("include-case")
        defer { folder.remove() }
        for name in ["a.HEIC", "b.heic", "c.Heic"] { _ = try folder.copy(Run.media("orient-1.heic"), as: name) }
        _ = try folder.copy(Run.media("orient-1.jpg"), as: "d.JPG")
        for pattern in ["*.HEIC", "*.heic"] {
            let run = try Run.vidorient(["audit", "--jsonl", "--no-progress", "--include", pattern, folder.path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.split(separator: "\n").count == 3, "\(pattern): \(run.stdout)")
        }
        let excluded = try Run.vidorient(["audit", "--jsonl", "--no-progress", "--exclude", "*.HEIC", folder.path])
        #expect(excluded.stdout.split(separator: "\n").count == 1, "\(excluded.stdout)")
    }

    /// `exif-invalid` suggested `exiftool -n -Orientation=1 FILE`, where vidorient's own fix does
    /// it: its action is that fix now, and running it as shown clears the finding.
    @Test func anInvalidTagSuggestsVidorientsOwnFix() throws {
        let folder = try TemporaryFolder("bad-tag-action")
        defer { folder.remove() }
        let path = folder.path("invalid.jpg")
        try JournalFixture.invalidOrientationJPEG(at: path)
        let run = try Run.vidorient(["inspect", "--json", path])
        let report = try #require(run.json as? [String: Any])
        let finding = try #require(
            (report["findings"] as? [[String: Any]])?.first { $0["code"] as? String == "exif-invalid" })
        let action = try #require(finding["action"] as? String)
        #expect(action == "vidorient fix \(path) --orientation 1", "\(action)")
        let fix = try Run.vidorient(["fix", path, "--orientation", "1"])
        #expect(fix.status == 0, "\(fix.stderr)")
        #expect(!(try Run.vidorient(["inspect", "--json", path]).stdout.contains("\"code\": \"exif-invalid\"")))
    }

    /// `fix DIR` and `normalize DIR` said "is a directory" where inspect, audit and thumbnail walk
    /// folders: they walk them now, as audit does.
    @Test func fixAndNormalizeWalkFolders() throws {
        let folder = try TemporaryFolder("walk-fix")
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path("lib/sub"), withIntermediateDirectories: true)
        let a = try folder.copy(Run.media("orient-1.jpg"), as: "lib/a.jpg")
        let b = try folder.copy(Run.media("orient-1.png"), as: "lib/sub/b.png")
        let fix = try Run.vidorient(["fix", folder.path("lib"), "--orientation", "6", "--no-progress", "--json"])
        #expect(fix.status == 0, "\(fix.stderr)")
        #expect((fix.json as? [[String: Any]])?.count == 2, "a folder is several files: an array")
        func shown(_ path: String) throws -> Int? {
            let report = try Run.vidorient(["inspect", "--json", path]).json as? [String: Any]
            return (report?["photo"] as? [String: Any])?["exif_orientation"] as? Int
        }
        #expect(try shown(a) == 6 && shown(b) == 6)
        let normalize = try Run.vidorient(["normalize", folder.path("lib")])
        #expect(normalize.status == 0, "\(normalize.stderr)")
        #expect(try shown(a) == 1 && shown(b) == 1)
        let copy = try Run.vidorient(["fix", folder.path("lib"), "--orientation", "1", "-o", folder.path("x.jpg")])
        #expect(copy.status == 64, "\(copy.stderr)")
    }

    /// `thumbnail -` failed ("could not read '-'") where `inspect -` works: standard input is one
    /// file, spooled, named `-`; it goes with -o, having no name of its own.
    @Test func aThumbnailOfStandardInput() throws {
        let folder = try TemporaryFolder("thumbnail-stdin")
        defer { folder.remove() }
        let out = folder.path("out.png")
        let run = try Run.vidorient(
            [],
            prefix: [
                "sh", "-c", "\"$0\" thumbnail - -o \"$2\" --width 40 < \"$1\"", Run.binary.path,
                Run.media("orient-6.jpg"), out,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("- -> \(out) (40x"), "\(run.stdout)")
        let png = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        // --json names the input as the line does (it named the spool's /proc/self/fd path).
        let json = try Run.vidorient(
            [],
            prefix: [
                "sh", "-c", "\"$0\" thumbnail - -o \"$2\" --width 40 --json < \"$1\"", Run.binary.path,
                Run.media("orient-6.jpg"), out,
            ])
        #expect(json.status == 0, "\(json.stderr)")
        #expect((json.json as? [[String: Any]])?.map { $0["input"] as? String } == ["-"], "\(json.stdout)")
        let noName = try Run.vidorient(["thumbnail", "-", "--out-dir", folder.path("t")])
        #expect(noName.status == 64, "\(noName.stderr)")
    }

    /// `--name '{parent}/{stem}.{ext}'` passed the collision check and then failed on every file
    /// ("no such file or directory"): the folders are made first now, and something in the way
    /// that is not a folder refuses the batch before anything is decoded.
    /// `{relpath}`: a folder of thumbnails mirrors the library (issue 29), as vipsthumbnail's `-o`.
    @Test func aRelativePathMirrorsTheSourceTree() throws {
        let folder = try TemporaryFolder("name-relpath")
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path("lib/x/y"), withIntermediateDirectories: true)
        _ = try folder.copy(Run.media("orient-6.jpg"), as: "lib/x/y/a.jpg")
        _ = try folder.copy(Run.media("orient-3.png"), as: "lib/b.png")
        let out = folder.path("thumbs")
        let run = try Run.vidorient([
            "thumbnail", folder.path("lib"), "--out-dir", out, "--name", "{relpath}/{stem}.{ext}", "--width", "32",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        for made in ["thumbs/x/y/a.png", "thumbs/b.png"] {
            #expect(FileManager.default.fileExists(atPath: folder.path(made)), "\(made): \(run.stdout)")
        }
    }

    @Test func aNameWithAFolderMakesTheFolder() throws {
        let folder = try TemporaryFolder("name-parent")
        defer { folder.remove() }
        for sub in ["x", "y"] {
            try FileManager.default.createDirectory(
                atPath: folder.path("lib/" + sub), withIntermediateDirectories: true)
            _ = try folder.copy(Run.media("orient-6.jpg"), as: "lib/\(sub)/a.jpg")
        }
        let out = folder.path("thumbs")
        let run = try Run.vidorient([
            "thumbnail", folder.path("lib"), "--out-dir", out, "--name", "{parent}/{stem}.{ext}", "--width", "32",
            "--no-progress",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        for sub in ["x", "y"] { #expect(FileManager.default.fileExists(atPath: out + "/\(sub)/a.png"), "\(sub)") }
        // A file where a folder is to be: refused at once, naming it, and nothing written.
        let blocked = folder.path("blocked")
        try FileManager.default.createDirectory(atPath: blocked, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocked + "/x"))
        let refused = try Run.vidorient([
            "thumbnail", folder.path("lib"), "--out-dir", blocked, "--name", "{parent}/{stem}.{ext}", "--no-progress",
        ])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("\(blocked)/x"), "\(refused.stderr)")
        #expect(refused.stderrLines.count == 1, "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: blocked) == ["x"])
    }
}
