import Foundation
import Testing
import VidorientCore
import VidorientISOBMFF
import VidorientTestSupport

/// `vidorient fix`, run as a user runs it, on copies in a temporary folder.
enum FixFixture {
    /// Runs as nobody when we are root, since root may write anything.
    static let nobody = getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []

    static func folder(_ label: String, mode: Int = 0o755) throws -> URL {
        let url = try scratchFolder("fix-\(label)")
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        return url
    }

    static func copy(_ media: String, to folder: URL, as name: String? = nil) throws -> String {
        let destination = folder.appendingPathComponent(name ?? media).path
        try FileManager.default.copyItem(atPath: Run.media(media), toPath: destination)
        return destination
    }

    static func contents(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    static func videoMatrix(_ path: String) throws -> StoredMatrix {
        try #require(try MovieStructure(path: path).videoTracks.first).matrix
    }

    /// orient-1.mp4 with a movie header (mvhd) that turns 90°: `inspect` says 6.
    static func movieTurns90(_ folder: URL, as name: String = "mvhd-6.mp4") throws -> String {
        let path = try copy("orient-1.mp4", to: folder, as: name)
        var bytes = [UInt8](try contents(path))
        let offset = Int(try MovieStructure(path: path).movieHeader.matrix.offset)
        let rotate90 = apple(6, width: 160, height: 96)
        bytes.replaceSubrange(
            offset..<offset + 36, with: rotate90.flatMap { withUnsafeBytes(of: $0.bigEndian, Array.init) })
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func leftovers(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".partial") }
    }

    /// Copies `pristine` to `path` (in `folder`), starts `fix path --orientation 3`, waits for its
    /// temporary copy to appear, lets it write for `delay` ms, and kills it with SIGKILL. True when
    /// the signal killed it (false when the fix had already finished).
    static func killFixWhileWriting(_ pristine: String, at path: String, in folder: URL, delay: Int) throws -> Bool {
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: pristine, toPath: path)
        let process = Process()
        process.executableURL = Run.binary
        process.arguments = ["fix", path, "--orientation", "3"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while try leftovers(folder).isEmpty, process.isRunning, Date() < deadline { usleep(200) }
        usleep(useconds_t(delay * 1000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal
    }

    /// The nine int32 of EXIF orientation `n` for a picture stored `width`×`height`, written out
    /// independently of the code under test (as TestMedia/tkhd.py does).
    static func apple(_ n: Int, width: Int32, height: Int32) -> [Int32] {
        let linear: [Int: (Int32, Int32, Int32, Int32)] = [
            1: (1, 0, 0, 1), 2: (-1, 0, 0, 1), 3: (-1, 0, 0, -1), 4: (1, 0, 0, -1),
            5: (0, 1, 1, 0), 6: (0, 1, -1, 0), 7: (0, -1, -1, 0), 8: (0, -1, 1, 0),
        ]
        let (a, b, c, d) = linear[n]!
        let tx = (a < 0 ? width : 0) + (c < 0 ? height : 0)
        let ty = (b < 0 ? width : 0) + (d < 0 ? height : 0)
        return [a << 16, b << 16, 0, c << 16, d << 16, 0, tx << 16, ty << 16, 1 << 30]
    }
}

@Suite
struct FixCommandTests {
    @Test func setsTheOrientationAndSaysWhatChanged() throws {
        let folder = try FixFixture.folder("set")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("orient-6.mp4", to: folder)
        let run = try Run.vidorient(["fix", path, "--orientation", "1"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        // The stream numbered as inspect numbers it, the track's own ID beside it (issue 24).
        #expect(run.stdout.contains("  stream 0 (track 1)  EXIF 6: rotate 90° clockwise -> EXIF 1: no rotation"))
        #expect(run.stdout.contains("  written             \(path) ("))
        #expect(run.stdout.contains("verified"))
        #expect(try FixFixture.videoMatrix(path).fixedPoint == FixFixture.apple(1, width: 96, height: 160))
        #expect(try FixFixture.leftovers(folder).isEmpty)
    }

    /// `+90` turns the picture as shown a further quarter clockwise (table worked out by hand);
    /// `-90` turns it back, to the very same bytes.
    @Test(arguments: [(1, 6), (2, 7), (3, 8), (4, 5), (5, 2), (6, 3), (7, 4), (8, 1)])
    func relativeRotationComposesWithTheCurrentOrientation(from: Int, expected: Int) throws {
        let folder = try FixFixture.folder("relative")
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = "orient-\(from)-hevc.mov"
        let path = try FixFixture.copy(name, to: folder)
        let plus = try Run.vidorient(["fix", path, "--rotation", "+90", "--json"])
        #expect(plus.status == 0, "\(plus.stderr)")
        let object = try #require(plus.json as? [String: Any])
        #expect((object["before"] as? [String: Any])?["exif_orientation"] as? Int == from)
        #expect((object["after"] as? [String: Any])?["exif_orientation"] as? Int == expected)
        let stored: (Int32, Int32) = from >= 5 ? (96, 160) : (160, 96)
        #expect(
            try FixFixture.videoMatrix(path).fixedPoint == FixFixture.apple(expected, width: stored.0, height: stored.1)
        )
        let minus = try Run.vidorient(["fix", path, "--rotate", "-90"])
        #expect(minus.status == 0, "\(minus.stderr)")
        #expect(try FixFixture.contents(path) == FixFixture.contents(Run.media(name)))
    }

    @Test func dryRunWritesNothing() throws {
        let folder = try FixFixture.folder("dry")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("orient-7.mp4", to: folder)
        let before = try FixFixture.contents(path)
        let run = try Run.vidorient(["fix", path, "--rotation", "180", "--mirrored", "--dry-run"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("EXIF 7: mirror, then rotate 90° clockwise (transverse) -> EXIF 4"))
        #expect(run.stdout.contains("would change; nothing written"))
        let json = try #require(
            try Run.vidorient(["fix", path, "--reset", "--dry-run", "--json"]).json as? [String: Any])
        #expect(json["dry_run"] as? Bool == true)
        #expect(json["written_path"] is NSNull)
        #expect(json["bytes_written"] as? Int == 0)
        #expect((json["bytes_changed"] as? Int ?? 0) > 0)
        #expect(try FixFixture.contents(path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["orient-7.mp4"])
    }

    @Test func outputCopyLeavesTheInputAlone() throws {
        let folder = try FixFixture.folder("copy")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try FixFixture.copy("orient-3-hevc.mov", to: folder)
        let output = folder.appendingPathComponent("upright.mov").path
        let run = try Run.vidorient(["fix", input, "--reset", "-o", output, "--json"])
        #expect(run.status == 0)
        let object = try #require(run.json as? [String: Any])
        #expect(object["written_path"] as? String == output)
        #expect(object["mode"] as? String == "copy")
        #expect(try FixFixture.contents(input) == FixFixture.contents(Run.media("orient-3-hevc.mov")))
        #expect(try FixFixture.videoMatrix(output).fixedPoint == DisplayMatrix.identity.fixedPoint)
        let original = [UInt8](try FixFixture.contents(input)), fixed = [UInt8](try FixFixture.contents(output))
        let matrix = try FixFixture.videoMatrix(input)
        let changed = zip(original, fixed).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(original.count == fixed.count)
        #expect(!changed.isEmpty && changed.allSatisfy { Int64($0) >= matrix.offset && Int64($0) < matrix.offset + 36 })
    }

    @Test func inPlaceWritesOnlyTheMatrixIntoTheSameFile() throws {
        let folder = try FixFixture.folder("in-place")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("orient-8.mp4", to: folder)
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        let run = try Run.vidorient(["fix", path, "--orientation", "6", "--in-place", "--json"])
        #expect(run.status == 0)
        let object = try #require(run.json as? [String: Any])
        #expect(object["mode"] as? String == "in_place")
        #expect(object["bytes_written"] as? Int == 36)
        #expect(object["verified"] as? Bool == true)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode)
        #expect(try FixFixture.videoMatrix(path).fixedPoint == FixFixture.apple(6, width: 96, height: 160))
    }

    @Test func jsonHasEveryKey() throws {
        let folder = try FixFixture.folder("json")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("orient-2.mp4", to: folder)
        let run = try Run.vidorient(["fix", path, "--orientation", "5", "--json"])
        let object = try #require(run.json as? [String: Any])
        #expect(
            Set(object.keys) == [
                "schema_version", "path", "path_bytes", "dry_run", "mode", "written_path", "written_path_bytes",
                "verified", "bytes_changed", "bytes_written",
                "before", "after", "movie_matrix_before", "movie_matrix_after", "changes", "warnings",
            ])
        #expect(object["schema_version"] as? Int == 1)
        let state: Set<String> = ["exif_orientation", "rotation", "mirrored", "matrix"]
        #expect(Set((object["before"] as? [String: Any] ?? [:]).keys) == state)
        #expect((object["after"] as? [String: Any])?["rotation"] as? Int == 270)
        #expect((object["after"] as? [String: Any])?["mirrored"] as? Bool == true)
        let change = try #require((object["changes"] as? [[String: Any]])?.first)
        #expect(Set(change.keys) == ["track_id", "stream_index", "matrix_offset", "before", "after", "bytes_changed"])
        #expect(change["track_id"] as? Int == 1)
        #expect(change["stream_index"] as? Int == 0)
        #expect(change["matrix_offset"] as? Int == Int(try FixFixture.videoMatrix(path).offset))
    }

    @Test func severalFilesGiveAnArrayAndEachFailureOneLine() throws {
        let folder = try FixFixture.folder("several")
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = try FixFixture.copy("orient-4.mp4", to: folder)
        let other = try FixFixture.copy("audio-first.mov", to: folder)
        let bad = try FixFixture.copy("audio-only.m4a", to: folder)
        let run = try Run.vidorient(["fix", good, bad, other, "--reset", "--json"])
        #expect(run.status == 2)
        // One line for the bad file, then the batch's summary.
        #expect(
            run.stderrLines.map(String.init) == [
                "vidorient: could not fix '\(bad)': no video track",
                "vidorient: fixed 2, already right 0, refused 1, failed 0",
            ])
        let array = try #require(run.json as? [[String: Any]])
        #expect(array.compactMap { $0["path"] as? String } == [good, other])
        // audio-first.mov: the video is track 2, after the audio.
        #expect((array[1]["changes"] as? [[String: Any]])?.first?["track_id"] as? Int == 2)
    }

    /// Inputs that must be refused: exit 2, one line naming the file and the reason, the file
    /// unchanged and no temporary file left. Each is made on the spot (by ffmpeg where needed);
    /// the names lie about the content on purpose.
    @Test(arguments: [
        ("fragmented", "fragmented mp4 (moof) is not supported"),
        ("matroska", "not a photo, MP4 or QuickTime file (matroska/webm): fix changes JPEG, PNG, WebP"),
        ("avi", "not a photo, MP4 or QuickTime file (avi)"),
        // A JPEG is a photo now (its tag is fixed: PhotoFixCommandTests); GIF has no orientation to fix.
        ("gif", "not a photo, MP4 or QuickTime file (gif)"),
        ("audio-only", "no video track"),
        ("empty", "file is empty"),
        // `fix note.txt` once said "not an mp4 or quicktime file", though fix takes photos (issue 24).
        ("text", "a text file, not a photo or a video"),
        ("truncated", "has only"),
        // A folder is walked now, as audit walks it (issue 29): WordingTests.fixAndNormalizeWalkFolders.
        ("missing", "no such file or directory"),
    ])
    func refusedInputsAreLeftUnchanged(kind: String, reason: String) throws {
        let folder = try FixFixture.folder("refuse-\(kind)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("input.mp4").path
        func ffmpeg(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        switch kind {
        case "fragmented":
            try ffmpeg([
                "-i", Run.media("orient-6.mp4"), "-c", "copy", "-movflags", "frag_keyframe+empty_moov", "-f", "mp4",
                path,
            ])
        case "matroska": try ffmpeg(["-i", Run.media("orient-6.mp4"), "-c", "copy", "-f", "matroska", path])
        case "avi": try ffmpeg(["-i", Run.media("orient-6.jpg"), "-c", "copy", "-f", "avi", path])
        case "gif": try ffmpeg(["-i", Run.media("orient-6.jpg"), "-f", "gif", path])
        case "audio-only": _ = try FixFixture.copy("audio-only.m4a", to: folder, as: "input.mp4")
        case "empty": _ = try FixFixture.copy("bad-empty.mp4", to: folder, as: "input.mp4")
        case "text": _ = try FixFixture.copy("bad-text.mp4", to: folder, as: "input.mp4")
        case "truncated": _ = try FixFixture.copy("bad-truncated.mp4", to: folder, as: "input.mp4")
        default: break
        }
        let before = try? FixFixture.contents(path)
        let run = try Run.vidorient(["fix", path, "--orientation", "3"])
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderrLines.count == 1)
        #expect(run.stderr.hasPrefix("vidorient: could not fix '\(path)': "))
        #expect(run.stderr.contains(reason), "\(run.stderr)")
        #expect((try? FixFixture.contents(path)) == before)
        #expect(try FixFixture.leftovers(folder).isEmpty)
    }

    @Test func readOnlyFileIsRefusedForNobodyAndForRoot() throws {
        let folder = try FixFixture.folder("read-only", mode: 0o777)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("orient-6.mp4", to: folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let before = try FixFixture.contents(path)
        if !FixFixture.nobody.isEmpty {
            // Owned by root, 644: nobody may read it but not write it.
            for mode in [[], ["--in-place"]] {
                let run = try Run.vidorient(["fix", path, "--reset"] + mode, prefix: FixFixture.nobody)
                #expect(run.status == 2)
                #expect(
                    run.stderr.contains("could not fix '\(path)': file is read-only (permission denied)"),
                    "\(run.stderr)")
            }
        }
        // 444: read-only even for the owner, and refused even by root, who could write it.
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        let run = try Run.vidorient(["fix", path, "--reset"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("could not fix '\(path)': file is read-only"))
        #expect(try FixFixture.contents(path) == before)
        #expect(try FixFixture.leftovers(folder).isEmpty)
    }

    @Test(.enabled(if: getuid() == 0, "needs root to make a file that only its folder protects"))
    func unwritableFolderRefusesTheCopyButNotInPlace() throws {
        let folder = try FixFixture.folder("folder", mode: 0o755)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("orient-6.mp4", to: folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: path)
        let before = try FixFixture.contents(path)
        let refused = try Run.vidorient(["fix", path, "--reset"], prefix: FixFixture.nobody)
        #expect(refused.status == 2)
        #expect(
            refused.stderr.contains(
                "could not fix '\(path)': cannot create a temporary file in '\(folder.path)': permission denied"))
        #expect(try FixFixture.contents(path) == before)
        // The file itself is writable: in place needs nothing from the folder.
        let inPlace = try Run.vidorient(["fix", path, "--reset", "--in-place"], prefix: FixFixture.nobody)
        #expect(inPlace.status == 0, "\(inPlace.stderr)")
        #expect(try FixFixture.videoMatrix(path).fixedPoint == DisplayMatrix.identity.fixedPoint)
    }

    @Test func aRotatingMovieMatrixIsWarnedAboutAndResetOnRequest() throws {
        let folder = try FixFixture.folder("mvhd")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.movieTurns90(folder, as: "orient-1.mp4")

        let warned = try Run.vidorient(["fix", path, "--orientation", "6"])
        #expect(warned.status == 0)
        #expect(warned.stderrLines.count == 1)
        #expect(warned.stderr.hasPrefix("vidorient: warning: '\(path)': the movie matrix (mvhd) is not the identity"))
        let reset = try Run.vidorient(["fix", path, "--orientation", "6", "--reset-movie-matrix"])
        #expect(reset.status == 0)
        #expect(reset.stderr.isEmpty)
        #expect(reset.stdout.contains("movie"))
        #expect(try MovieStructure(path: path).movieHeader.matrix.fixedPoint == DisplayMatrix.identity.fixedPoint)
    }

    @Test(arguments: [
        [String](), ["--orientation", "2", "--reset"], ["--mirror", "--reset"], ["--mirrored", "--reset"],
        ["--rotation", "45"], ["--rotate", "45"],
        ["--orientation", "9"],
        ["--orientation", "0"], ["--rotate", "+90", "-o", "a.mp4", "--in-place"],
    ])
    func usageErrorsExit64(options: [String]) throws {
        let run = try Run.vidorient(["fix", Run.media("orient-1.mp4")] + options)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
    }

    @Test func usageErrorsAboutFiles() throws {
        #expect(try Run.vidorient(["fix", "--reset"]).status == 64)
        let two = try Run.vidorient([
            "fix", Run.media("orient-1.mp4"), Run.media("orient-2.mp4"), "--reset", "-o", "/tmp/x.mp4",
        ])
        #expect(two.status == 64)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/x.mp4"))
    }

    /// SIGKILL while the fixed copy is being written: the path must still hold the whole
    /// original (or, if the kill came after the rename, the whole fixed file), and the only
    /// thing left beside it is a hidden `.partial` that a later run removes.
    @Test func killedMidWriteLeavesAWholeFile() throws {
        let folder = try FixFixture.folder("kill")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A valid MP4 of 256 MiB: orient-6.mp4 followed by a large top-level `free` box.
        let pristine = folder.appendingPathComponent("pristine.mp4").path
        let free = 256 << 20
        #expect(
            FileManager.default.createFile(
                atPath: pristine, contents: try FixFixture.contents(Run.media("orient-6.mp4"))))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: pristine))
        try handle.seekToEnd()
        handle.write(Data(withUnsafeBytes(of: UInt32(free).bigEndian, Array.init) + Array("free".utf8)))
        let block = Data(repeating: 0x5A, count: 8 << 20)
        for _ in 0..<(free - 8) / block.count { handle.write(block) }
        handle.write(Data(repeating: 0x5A, count: (free - 8) % block.count))
        try handle.close()
        let old = try FixFixture.videoMatrix(pristine)
        let new = FixFixture.apple(3, width: 96, height: 160)

        let path = folder.appendingPathComponent("big.mp4").path
        var killedMidWrite = 0
        for delay in [0, 2, 10, 40] {
            // Killed at some point of writing the temporary copy.
            let killed = try FixFixture.killFixWhileWriting(pristine, at: path, in: folder, delay: delay)

            let matrix = try FixFixture.videoMatrix(path)
            #expect(matrix.fixedPoint == old.fixedPoint || matrix.fixedPoint == new, "delay \(delay)")
            let cmp = Process()
            cmp.executableURL = URL(fileURLWithPath: "/usr/bin/cmp")
            cmp.arguments = ["-l", pristine, path]
            let out = Pipe()
            cmp.standardOutput = out
            cmp.standardError = FileHandle.nullDevice
            try cmp.run()
            let listing = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            cmp.waitUntilExit()
            // `cmp -l` lists 1-based offsets of differing bytes; only matrix bytes may differ.
            let offsets = listing.split(separator: "\n").compactMap {
                $0.split(separator: " ").first.flatMap { Int64($0) }
            }
            #expect(offsets.allSatisfy { $0 - 1 >= old.offset && $0 - 1 < old.offset + 36 }, "delay \(delay)")
            #expect(cmp.terminationStatus == (offsets.isEmpty ? 0 : 1), "a size change shows as EOF")

            let partials = try FixFixture.leftovers(folder)
            let others = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                !["big.mp4", "pristine.mp4"].contains($0) && !$0.hasSuffix(".partial")
            }
            #expect(others.isEmpty, "\(others)")
            #expect(partials.allSatisfy { $0.hasPrefix(".big.mp4.vidorient-") }, "\(partials)")
            if killed && !partials.isEmpty && matrix.fixedPoint == old.fixedPoint { killedMidWrite += 1 }
        }
        #expect(killedMidWrite > 0, "no kill landed while the copy was being written")
        // A later run finishes the job and removes what the killed ones left.
        let finish = try Run.vidorient(["fix", path, "--orientation", "3"])
        #expect(finish.status == 0, "\(finish.stderr)")
        #expect(try FixFixture.videoMatrix(path).fixedPoint == new)
        #expect(try FixFixture.leftovers(folder).isEmpty)
    }
}
