import Foundation
import Testing
import VidorientCore
import VidorientISOBMFF
import VidorientTestSupport

/// The command line as a hostile user tries it: absurd numbers, odd files, odd names, unwritable
/// output, concurrent runs. Each test here failed on the code before issue 14.
enum Hostile {
    static func folder(_ label: String) throws -> URL { try scratchFolder("hostile-\(label)") }

    /// Runs a shell command (ffmpeg, mkfifo), failing the test when it fails.
    static func shell(_ command: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "failed: \(command)")
    }

    /// Runs the binary with standard output going to `/dev/full`, where every write fails.
    static func toFullDevice(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = Run.binary
        process.arguments = arguments
        process.standardOutput = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let err = Pipe()
        process.standardError = err
        try process.run()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: errData, as: UTF8.self))
    }
}

@Suite struct NumericArgumentTests {
    /// Each of these trapped (SIGILL) or was misreported; each is now a usage error that names
    /// the range.
    @Test(arguments: [
        (["thumbnail", "--at", "1e18", "-o", "/tmp/x.png"], "--at must be 0 to 1000000 seconds"),
        (["thumbnail", "--at", "9223372036854775807", "-o", "/tmp/x.png"], "--at must be 0 to 1000000 seconds"),
        (["thumbnail", "--at", "-1", "-o", "/tmp/x.png"], "--at must be 0 to 1000000 seconds"),
        (["thumbnail", "--at", "99999999:00", "-o", "/tmp/x.png"], "--at must be 0 to 1000000 seconds"),
        (["thumbnail", "--jobs", "100000", "-o", "/tmp/x.png"], "--jobs must be 1-256"),
        (["audit", "--timeout", "inf"], "--timeout must be above 0 and at most 86400"),
        (["audit", "--timeout", "1e308"], "--timeout must be above 0 and at most 86400"),
        (["audit", "--timeout", "nan"], "--timeout must be above 0 and at most 86400"),
        (["audit", "--jobs", "100000"], "--jobs must be 1-256"),
        (["orientation", "--exif", "6", "--size", "9223372036854775807x9223372036854775807"], "each side 1-32767"),
        (["orientation", "--exif", "6", "--size", "32768x10"], "each side 1-32767"),
    ])
    func outOfRangeIsAUsageError(arguments: [String], message: String) throws {
        let input = arguments[0] == "orientation" ? [] : [Run.media("orient-6.mp4")]
        let run = try Run.vidorient(arguments + input)
        #expect(run.status == 64)
        #expect(run.stderr.contains(message))
        #expect(run.stdout.isEmpty)
    }

    @Test func theEdgesOfTheRangesAreAccepted() throws {
        let folder = try Hostile.folder("edges")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("late.png").path
        // Past the end of the clip: the last frame, not a trap.
        let late = try Run.vidorient(["thumbnail", "--at", "1000000", Run.media("orient-6.mp4"), "-o", output])
        #expect(late.status == 0)
        let size = try Run.vidorient(["orientation", "--exif", "6", "--size", "32767x32767", "--json"])
        #expect(size.status == 0)
        let audit = try Run.vidorient(["audit", "--timeout", "86400", "--json", Run.media("orient-1.mp4")])
        #expect(audit.status == 0)
    }
}

@Suite struct UnwritableOutputTests {
    /// The README promises exit status 2 when output cannot be written; each of these said 0 (or
    /// 1, for an audit with findings) while every byte was lost.
    @Test(arguments: [
        ["inspect", "--json", Run.media("orient-6.mp4")],
        ["inspect", Run.media("orient-6.mp4")],
        ["orientation"],
        ["orientation", "--exif", "6", "--json"],
        ["fix", "--dry-run", "--orientation", "1", Run.media("orient-6.mp4")],
        ["audit", "--jsonl", Run.media("orient-1.mp4")],
        ["audit", "--csv", Run.media("odd-angle-30.mp4")],
        ["audit", "--json", Run.media("odd-angle-30.mp4")],
        ["--help"],
    ])
    func stdoutOnAFullDeviceExitsTwo(arguments: [String]) throws {
        let run = try Hostile.toFullDevice(arguments)
        #expect(run.status == 2)
        #expect(run.stderr.contains("vidorient: could not write standard output: no space left on device"))
    }
}

@Suite struct ThumbnailSizeRuleTests {
    /// Peak resident memory in kilobytes of one run, from GNU time's last stderr line.
    static func peakKilobytes(_ run: Run) -> Int? {
        run.stderrLines.last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// A one-frame clip whose pixels claim to be 100 times wider than high (pasp and VUI both).
    static func stretchedClip(_ folder: URL, width: Int, height: Int) throws -> String {
        let path = folder.appendingPathComponent("sar-\(width)x\(height).mp4").path
        try Hostile.shell(
            "ffmpeg -v error -f lavfi -i testsrc2=size=\(width)x\(height):rate=1 -frames:v 1 -vf setsar=100/1 "
                + "-c:v libx264 -pix_fmt yuv420p -y '\(path)'")
        return path
    }

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time"),
        arguments: [(1920, 1080), (3840, 2160)])
    func aClaimedAspectRatioGivesABoundedPictureAndMemory(width: Int, height: Int) throws {
        let folder = try Hostile.folder("sar")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try Self.stretchedClip(folder, width: width, height: height)
        let output = folder.appendingPathComponent("out.png").path
        let run = try Run.vidorient(
            ["thumbnail", "--json", "--full-size", clip, "-o", output], prefix: ["/usr/bin/time", "-f", "%M"])
        #expect(run.status == 0)
        let written = try #require((run.json as? [[String: Any]])?.first)
        #expect(written["width"] as? Int == width)
        #expect(written["height"] as? Int == (height + 50) / 100)
        // Before the rule: 1.9 GB at 1920x1080, and a crash at 3840x2160.
        let peak = try #require(Self.peakKilobytes(run))
        #expect(peak < 400_000)
    }

    @Test func anExplicitSizeBeyondTheBudgetIsRefusedWithExitTwo() throws {
        let folder = try Hostile.folder("sar-refused")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try Self.stretchedClip(folder, width: 640, height: 360)
        let output = folder.appendingPathComponent("out.png").path
        let run = try Run.vidorient(["thumbnail", "--height", "360", clip, "-o", output])
        #expect(run.status == 2)
        #expect(
            run.stderr == "vidorient: could not read '\(clip)': the picture would be 64000x360 pixels, "
                + "beyond the limit of 16384 a side and 134217728 pixels in all\n")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// The 30° matrix of odd-angle-30.mp4 with a 100:1 sample aspect ratio: was 13,904x8,083.
    @Test func anOddAngleWithAClaimedAspectRatioStaysSmall() throws {
        let folder = try Hostile.folder("sar-odd")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("odd.mp4").path
        try Hostile.shell(
            "ffmpeg -v error -f lavfi -i testsrc2=size=160x96:rate=1 -frames:v 1 -vf setsar=100/1 -c:v libx264 "
                + "-pix_fmt yuv420p -y '\(clip)' && python3 '\(Run.media("tkhd.py"))' set '\(clip)' "
                + "0.8660254037844386 0.5 0 -0.5 0.8660254037844386 0 0 0 1")
        let output = folder.appendingPathComponent("out.png").path
        let run = try Run.vidorient(["thumbnail", "--json", clip, "-o", output])
        #expect(run.status == 0)
        let written = try #require((run.json as? [[String: Any]])?.first)
        let (w, h) = (try #require(written["width"] as? Int), try #require(written["height"] as? Int))
        // 160x1 turned 30°: a bounding box of about 139x81.
        #expect(max(w, h) <= 160)
    }
}

@Suite struct NonRegularInputTests {
    /// A FIFO named as an input: `audit` blocked forever in `open`, beyond its own --timeout.
    /// Every command now refuses it at once as not a regular file.
    @Test(arguments: [
        ["audit", "--timeout", "1"], ["audit", "--deep"], ["inspect"], ["inspect", "--deep"],
        ["fix", "--orientation", "1"],
        ["thumbnail", "-o", "OUT"],
    ])
    func aFIFOIsRefusedWithoutBlocking(arguments: [String]) throws {
        let folder = try Hostile.folder("fifo")
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("pipe.mp4").path
        try #require(mkfifo(fifo, 0o644) == 0)
        let output = folder.appendingPathComponent("out.png").path
        let started = Date()
        // `timeout` ends a run that blocks, so that the failure is reported rather than hung.
        let run = try Run.vidorient(
            arguments.map { $0 == "OUT" ? output : $0 } + [fifo], prefix: ["timeout", "-s", "KILL", "10"])
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(run.status == 2)
        // `audit` reports it as an unreadable finding on stdout, the others on stderr.
        #expect((arguments[0] == "audit" ? run.stdout : run.stderr).contains("not a regular file"))
    }
}

/// `fix` must mean what `inspect` says: read back by `inspect`'s own decision, the file shows
/// what was asked, or the run fails.
@Suite struct FixMeansWhatInspectSaysTests {
    static func inspected(_ path: String) throws -> Int? {
        let run = try Run.vidorient(["inspect", "--json", path])
        let video = (run.json as? [String: Any])?["video"] as? [String: Any]
        return video?["exif_orientation"] as? Int
    }

    /// Was: `--orientation 1` "verified" and left 6; 8 gave 1; 3 gave 8.
    @Test(arguments: 1...8)
    func anOrientationIsShownThroughAMovieMatrix(exif: Int) throws {
        let folder = try Hostile.folder("mvhd")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.movieTurns90(folder)
        #expect(try Self.inspected(path) == 6)
        let run = try Run.vidorient(["fix", "--orientation", String(exif), path])
        #expect(run.status == 0)
        #expect(try Self.inspected(path) == exif)
        // Reset as well: the track alone then says it.
        let reset = try Run.vidorient(["fix", "--orientation", String(exif), "--reset-movie-matrix", path])
        #expect(reset.status == 0)
        #expect(try Self.inspected(path) == exif)
        #expect(try MovieStructure(path: path).movieHeader.matrix.fixedPoint == DisplayMatrix.identity.fixedPoint)
    }

    /// `--rotate` turns what `inspect` shows, through the same composition as `--orientation`.
    @Test(arguments: [("+90", 3), ("-90", 1), ("180", 3), ("+180", 8)])
    func aTurnStartsFromWhatInspectShows(rotate: String, expected: Int) throws {
        let folder = try Hostile.folder("mvhd-turn")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.movieTurns90(folder)
        let run = try Run.vidorient(["fix", "--rotate", rotate, path])
        #expect(run.status == 0)
        #expect(try Self.inspected(path) == expected)
    }

    /// sei-90.mp4: only the H.264 SEI turns it (inspect says 6). No container matrix makes it
    /// show 1, so that is refused, with nothing written.
    @Test func orientationOneOfAnSEIOrientedClipIsRefused() throws {
        let folder = try Hostile.folder("sei")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("sei-90.mp4", to: folder)
        let before = try FixFixture.contents(path)
        #expect(try Self.inspected(path) == 6)
        for options in [
            ["--orientation", "1"], ["--reset"], ["--rotate", "-90"], ["--orientation", "1", "--dry-run"],
        ] {
            let run = try Run.vidorient(["fix", path] + options)
            #expect(run.status == 2)
            #expect(run.stderr.contains("display-orientation SEI"))
            #expect(try FixFixture.contents(path) == before)
        }
    }

    @Test(arguments: [(["--orientation", "3"], 3), (["--rotate", "+90"], 3), (["--rotate", "+180"], 8)])
    func otherOrientationsOfAnSEIOrientedClipAreShown(options: [String], expected: Int) throws {
        let folder = try Hostile.folder("sei-ok")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("sei-90.mp4", to: folder)
        let run = try Run.vidorient(["fix", path] + options)
        #expect(run.status == 0)
        #expect(try Self.inspected(path) == expected)
    }
}

@Suite struct FileNameOutputTests {
    /// A file a spreadsheet would run as a formula: each such cell starts with `'` and is quoted.
    @Test(arguments: ["=1+1.mp4", "+1.mp4", "-1.mp4", "@SUM(A1).mp4"])
    func csvCellsAreNotFormulas(name: String) throws {
        let folder = try Hostile.folder("csv")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            atPath: Run.media("odd-angle-30.mp4"), toPath: folder.appendingPathComponent(name).path)
        let run = try Process.runIn(folder, ["audit", "--csv", "--", name])
        #expect(run.status == 1)
        let rows = run.stdout.split(separator: "\n").dropFirst()
        #expect(!rows.isEmpty)
        for row in rows { #expect(row.hasPrefix("\"'\(name)\",")) }
    }

    /// Was: ESC and newline copied to the terminal from the name.
    @Test func controlCharactersInNamesAreEscapedInHumanOutput() throws {
        let folder = try Hostile.folder("ctl")
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = "evil\u{1B}[2J\nfake line.mp4"
        let path = folder.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: Run.media("odd-angle-30.mp4"), toPath: path)
        let shown = "evil\\x1B[2J\\nfake line.mp4"
        for arguments in [["inspect", path], ["audit", path], ["fix", "--dry-run", "--orientation", "6", path]] {
            let run = try Run.vidorient(arguments)
            #expect(!run.stdout.contains("\u{1B}"))
            #expect(run.stdout.contains(shown))
            #expect(!run.stdout.contains("\nfake line"))
        }
        let bad = try Run.vidorient(["inspect", path + "-missing"])
        #expect(
            bad.stderr == "vidorient: could not read '\(folder.path)/\(shown)-missing': no such file or directory\n")
        // JSON keeps the name as it is, quoted by JSON's own rules.
        let json = try Run.vidorient(["inspect", "--json", path])
        #expect((json.json as? [String: Any])?["path"] as? String == path)
    }
}

extension Process {
    /// Runs the binary with `folder` as the working directory (for relative names).
    static func runIn(_ folder: URL, _ arguments: [String]) throws -> Run {
        try Run.vidorient(arguments, prefix: ["-C", folder.path])
    }
}

@Suite struct NonRegularOutputTests {
    static func isRegularOrMissing(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) != 0 || status.st_mode & S_IFMT == S_IFREG
    }

    static func type(_ path: String) -> mode_t {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & S_IFMT : 0
    }

    /// `fix -o` renamed a regular file over a FIFO or a device node and said success. A copy
    /// that cannot be read back is refused; the node stays.
    @Test func fixRefusesANonRegularOutputAndLeavesIt() throws {
        let folder = try Hostile.folder("fix-o")
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("out.mp4").path
        try #require(mkfifo(fifo, 0o644) == 0)
        var outputs = [(fifo, S_IFIFO)]
        if getuid() == 0 {
            // A private copy of /dev/full (char 1,7): the real one is never at risk.
            let device = folder.appendingPathComponent("full").path
            try #require(mknod(device, S_IFCHR | 0o666, dev_t((1 << 8) | 7)) == 0)
            outputs.append((device, S_IFCHR))
        }
        for (output, type) in outputs {
            let run = try Run.vidorient(["fix", "--orientation", "6", Run.media("orient-1.mp4"), "-o", output])
            #expect(run.status == 2)
            #expect(run.stderr.contains("is not a regular file"))
            #expect(Self.type(output) == type)
        }
    }

    /// `thumbnail -o` writes into an existing FIFO or device as a stream, and never replaces it.
    @Test func thumbnailStreamsIntoAFIFO() throws {
        let folder = try Hostile.folder("thumb-o")
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("out.png").path
        let received = folder.appendingPathComponent("received.png").path
        try #require(mkfifo(fifo, 0o644) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat '\(fifo)' > '\(received)'"]
        try reader.run()
        let run = try Run.vidorient(["thumbnail", Run.media("orient-6.mp4"), "-o", fifo])
        reader.waitUntilExit()
        #expect(run.status == 0)
        #expect(Self.type(fifo) == S_IFIFO)
        let png = try Data(contentsOf: URL(fileURLWithPath: received))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test(.enabled(if: getuid() == 0, "needs root to make a device node"))
    func thumbnailIntoAFullDeviceFailsAndKeepsTheDevice() throws {
        let folder = try Hostile.folder("thumb-full")
        defer { try? FileManager.default.removeItem(at: folder) }
        let device = folder.appendingPathComponent("full.png").path
        try #require(mknod(device, S_IFCHR | 0o666, dev_t((1 << 8) | 7)) == 0)
        let run = try Run.vidorient(["thumbnail", Run.media("orient-6.mp4"), "-o", device])
        #expect(run.status == 2)
        #expect(run.stderr.contains("no space left on device"))
        #expect(Self.type(device) == S_IFCHR)
    }
}

@Suite struct ConcurrentFixTests {
    /// Eight `fix` runs on one file at once, each asking for a different orientation. Was: a run
    /// said "verified" while another rolled the file back under it (12 of 30 rounds). Now the runs
    /// take turns under a lock: every one succeeds, and the file shows what one of them wrote.
    @Test(arguments: [["--in-place"], []])
    func concurrentRunsTakeTurns(mode: [String]) throws {
        let folder = try Hostile.folder("concurrent")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("orient-1.mp4", to: folder)
        for _ in 0..<6 {
            var runs: [(Process, Pipe, Pipe, Int)] = []
            for exif in 1...8 {
                let process = Process()
                process.executableURL = Run.binary
                process.arguments = ["fix", "--json", "--orientation", String(exif), path] + mode
                let (out, err) = (Pipe(), Pipe())
                process.standardOutput = out
                process.standardError = err
                try process.run()
                runs.append((process, out, err, exif))
            }
            var succeeded: Set<Int> = []
            for (process, out, err, exif) in runs {
                let data = out.fileHandleForReading.readDataToEndOfFile()
                let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "\(errors)")
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                if process.terminationStatus == 0,
                    object?["verified"] as? Bool == true || object?["written_path"] is NSNull
                {
                    succeeded.insert(exif)
                }
            }
            #expect(succeeded.count == 8)
            let shown = try FixMeansWhatInspectSaysTests.inspected(path)
            #expect(shown.map(succeeded.contains) == true)
            // Nothing left behind by a replacement.
            #expect(try FixFixture.leftovers(folder).isEmpty)
        }
    }
}

/// Names that are not UTF-8 (`café.mp4` in Latin-1, bytes FF FE): the walk once skipped them
/// silently, then reported them as unsupported; `inspect`, `thumbnail` and `fix` said "no such
/// file or directory". Now they are carried as bytes end to end (PathBytes.swift).
@Suite struct NonUTF8NameTests {
    static let latin1: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".mp4".utf8)
    static let broken: [UInt8] = [0xFF, 0xFE] + Array(".jpg".utf8)

    /// A copy of a TestMedia file named with exactly these bytes, made with Glibc calls.
    static func place(_ media: String, in folder: URL, named name: [UInt8]) throws -> [UInt8] {
        let contents = try Array(Data(contentsOf: URL(fileURLWithPath: Run.media(media))))
        let path = Array(folder.path.utf8) + [UInt8(ascii: "/")] + name
        let descriptor = withCPath(path) { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == contents.count)
        return path
    }

    static func withCPath<Result>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        (bytes + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
    }

    static func exists(_ bytes: [UInt8]) -> Bool {
        var status = stat()
        return withCPath(bytes) { stat($0, &status) } == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    static func contents(_ bytes: [UInt8]) throws -> [UInt8] {
        let descriptor = withCPath(bytes) { open($0, O_RDONLY) }
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while case let count = chunk.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }), count > 0 {
            result += chunk.prefix(count)
        }
        return result
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func unhex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)!
        }
    }

    /// Runs vidorient with arguments that are raw bytes, through `sh` and `printf`: Foundation's
    /// Process would pass a String's UTF-8.
    static func run(_ arguments: [[UInt8]]) throws -> Run {
        let words = arguments.map { bytes in
            "\"$(printf '" + bytes.map { "\\" + String($0, radix: 8) }.joined() + "')\""
        }
        return try Run.vidorient([], prefix: ["sh", "-c", "exec \"$0\" " + words.joined(separator: " ")])
    }

    /// Records by path bytes (or path), for comparing runs over differently named copies.
    static func records(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func auditListsThemAndTheirBytesFindTheFileAgain() throws {
        let folder = try Hostile.folder("bytes")
        let plain = try Hostile.folder("plain")
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: plain)
        }
        let video = try NonUTF8NameTests.place("orient-6.mp4", in: folder, named: NonUTF8NameTests.latin1)
        let photo = try NonUTF8NameTests.place("orient-6.jpg", in: folder, named: NonUTF8NameTests.broken)
        _ = try NonUTF8NameTests.place("orient-6.mp4", in: plain, named: Array("cafe.mp4".utf8))
        _ = try NonUTF8NameTests.place("orient-6.jpg", in: plain, named: Array("ff.jpg".utf8))

        let run = try Run.vidorient(["audit", "--jsonl", folder.path])
        let reference = try Run.vidorient(["audit", "--jsonl", plain.path])
        #expect(run.status == reference.status)
        #expect(run.stderr.isEmpty)
        let records = NonUTF8NameTests.records(run.stdout)
        #expect(records.count == 2)
        var found: Set<[UInt8]> = []
        for record in records {
            let hex = try #require(record["path_bytes"] as? String)
            let bytes = NonUTF8NameTests.unhex(hex)
            // The bytes name the file itself: it opens, and it is the copy that was made.
            #expect(NonUTF8NameTests.exists(bytes))
            found.insert(bytes)
            let path = try #require(record["path"] as? String)
            #expect(path.hasSuffix(bytes == video ? "caf\\xE9.mp4" : "\\xFF\\xFE.jpg"))
        }
        #expect(found == [video, photo])
        // The same orientation and findings as the same files under plain names.
        func facts(_ record: [String: Any]) -> String {
            let detail = (record["video"] as? [String: Any]) ?? (record["photo"] as? [String: Any]) ?? [:]
            let codes = (record["findings"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
            return "\(detail["exif_orientation"] ?? "nil") \(codes.sorted())"
        }
        #expect(Set(records.map(facts)) == Set(NonUTF8NameTests.records(reference.stdout).map(facts)))
        #expect(Set(records.map(facts)).allSatisfy { $0.hasPrefix("6 ") })

        // Human output shows the bytes as \xHH, and the action is a shell word that names the file.
        let conflict = try Hostile.folder("human")
        defer { try? FileManager.default.removeItem(at: conflict) }
        _ = try NonUTF8NameTests.place("jpeg-xmp-conflict.jpg", in: conflict, named: NonUTF8NameTests.broken)
        let human = try Run.vidorient(["audit", conflict.path])
        #expect(human.status == 1)
        #expect(human.stdout.contains("\(conflict.path)/\\xFF\\xFE.jpg"))
        #expect(human.stdout.contains("vidorient thumbnail $'\(conflict.path)/\\xFF\\xFE.jpg' --compare"))
        #expect(human.stdout.contains("1 file"))
        // A list of paths read as bytes finds them too.
        let list = folder.appendingPathComponent("list").path
        try Data((video + [0] + photo + [0])).write(to: URL(fileURLWithPath: list))
        let listed = try Run.vidorient(["audit", "--jsonl", "-0", "--files-from", list])
        #expect(
            Set(NonUTF8NameTests.records(listed.stdout).compactMap { $0["path_bytes"] as? String })
                == [NonUTF8NameTests.hex(video), NonUTF8NameTests.hex(photo)])
    }

    @Test func inspectReadsThemByTheirBytes() throws {
        let folder = try Hostile.folder("inspect-bytes")
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = try NonUTF8NameTests.place("orient-6.mp4", in: folder, named: NonUTF8NameTests.latin1)
        let photo = try NonUTF8NameTests.place("orient-6.jpg", in: folder, named: NonUTF8NameTests.broken)
        for path in [video, photo] {
            let run = try NonUTF8NameTests.run([Array("inspect".utf8), Array("--json".utf8), path])
            #expect(run.status == 0, "\(run.stderr)")
            let object = try #require(run.json as? [String: Any])
            #expect(object["path_bytes"] as? String == NonUTF8NameTests.hex(path))
            let detail = (object["video"] as? [String: Any]) ?? (object["photo"] as? [String: Any])
            #expect(detail?["exif_orientation"] as? Int == 6)
        }
        // Human output and an error both show the bytes as \xHH.
        let human = try NonUTF8NameTests.run([Array("inspect".utf8), video])
        #expect(human.stdout.contains("caf\\xE9.mp4"))
        let missing = try NonUTF8NameTests.run([Array("inspect".utf8), video + Array(".gone".utf8)])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("caf\\xE9.mp4.gone"))
    }

    @Test func thumbnailWritesOutputsForThem() throws {
        let folder = try Hostile.folder("thumb-bytes")
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = try NonUTF8NameTests.place("orient-6.mp4", in: folder, named: NonUTF8NameTests.latin1)
        _ = try NonUTF8NameTests.place("orient-6.jpg", in: folder, named: NonUTF8NameTests.broken)
        let out = folder.appendingPathComponent("out")
        let run = try Run.vidorient(["thumbnail", "--json", "--out-dir", out.path, folder.path])
        #expect(run.status == 0, "\(run.stderr)")
        let written = try #require(run.json as? [[String: Any]])
        #expect(written.count == 2)
        let outputs = written.compactMap { $0["output_bytes"] as? String }.map(NonUTF8NameTests.unhex)
        #expect(
            Set(outputs) == [
                Array(out.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".png".utf8),
                Array(out.path.utf8) + [UInt8(ascii: "/"), 0xFF, 0xFE] + Array(".png".utf8),
            ])
        for output in outputs { #expect(try NonUTF8NameTests.contents(output).starts(with: [0x89, 0x50, 0x4E, 0x47])) }
        // One input named by its bytes, one output named by bytes.
        let single = Array(folder.path.utf8) + Array("/single-".utf8) + [0xE9] + Array(".png".utf8)
        let one = try NonUTF8NameTests.run([Array("thumbnail".utf8), video, Array("-o".utf8), single])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(NonUTF8NameTests.exists(single))
    }

    /// The progress bar (shown only on a terminal: `script` gives it one) names each file as
    /// the rest of the output does: it used to write a name's ESC and raw bytes as they were.
    @Test func theProgressBarEscapesNames() throws {
        let folder = try Hostile.folder("progress-bytes")
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["a", "b"] {
            _ = try NonUTF8NameTests.place(
                "orient-6.jpg", in: folder, named: Array(name.utf8) + [0xE9, 0x1B] + Array(".jpg".utf8))
        }
        // sh gets the binary as $0 and the folders as $1 and $2; script runs the command on a pty.
        let command = "exec script -qec \"'$0' thumbnail --out-dir '$1' '$2'\" /dev/null"
        let run = try Run.vidorient(
            [folder.path + "/out", folder.path], environment: ["TERM": "xterm", "NO_COLOR": ""],
            prefix: ["sh", "-c", command])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("] 2/2 "))
        #expect(run.stdout.contains("\\xE9\\x1B.jpg"))
        #expect(!run.stdout.contains("\u{1B}.jpg"))
    }

    @Test func fixFindsAndRewritesThem() throws {
        let folder = try Hostile.folder("fix-bytes")
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = try NonUTF8NameTests.place("orient-6.mp4", in: folder, named: NonUTF8NameTests.latin1)
        let before = try NonUTF8NameTests.contents(video)
        let dry = try NonUTF8NameTests.run(
            [
                Array("fix".utf8), video, Array("--orientation".utf8), Array("1".utf8), Array("--dry-run".utf8),
                Array("--json".utf8),
            ])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect((dry.json as? [String: Any])?["path_bytes"] as? String == NonUTF8NameTests.hex(video))
        #expect(try NonUTF8NameTests.contents(video) == before)
        let fixed = try NonUTF8NameTests.run(
            [Array("fix".utf8), video, Array("--orientation".utf8), Array("1".utf8), Array("--json".utf8)])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        let object = try #require(fixed.json as? [String: Any])
        #expect(object["verified"] as? Bool == true)
        #expect(object["written_path_bytes"] as? String == NonUTF8NameTests.hex(video))
        #expect(try NonUTF8NameTests.contents(video) != before)
        let inspected = try NonUTF8NameTests.run([Array("inspect".utf8), Array("--json".utf8), video])
        #expect(((inspected.json as? [String: Any])?["video"] as? [String: Any])?["exif_orientation"] as? Int == 1)
        // Nothing else left in the folder: the temporary copy was renamed over the original.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
        // --in-place too.
        let inPlace = try NonUTF8NameTests.run(
            [Array("fix".utf8), video, Array("--orientation".utf8), Array("8".utf8), Array("--in-place".utf8)])
        #expect(inPlace.status == 0, "\(inPlace.stderr)")
    }
}

/// Sample tables whose claims overflow 64-bit arithmetic. Each trapped (SIGILL) in the box layer's
/// description before; each is now read as FFmpeg reads it, the box layer's reason a finding.
@Suite struct OverflowingSampleTableTests {
    /// Where the four bytes of `type` start (the box's payload follows them).
    static func find(_ type: String, in bytes: [UInt8]) throws -> Int {
        let needle = Array(type.utf8)
        let at = (0...(bytes.count - 4)).first { bytes[$0..<$0 + 4].elementsEqual(needle) }
        return try #require(at, "no '\(type)' box")
    }

    static func put(_ value: UInt64, width: Int, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<width { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - index))) }
    }

    enum Mutation: String, CaseIterable, Sendable {
        /// stts: one entry of 2^32 - 1 samples of 2^32 - 1 ticks.
        case sttsMaximum
        /// stsz: a uniform size of 2^32 - 1 bytes for 2^32 - 1 samples.
        case stszMaximum
        /// stco rewritten as co64 with one chunk at offset 2^63 - 1.
        case co64Maximum
        /// The movie header's matrix `d` made 1.44 (0x00017100): its rational reduction overflowed.
        case movieMatrixScale
        /// The movie header's timescale 2^32 - 1 and duration 1: under a microsecond, which made an
        /// infinite bit rate that was converted to Int.
        case movieDurationUnderAMicrosecond
    }

    @Test(arguments: Mutation.allCases)
    func neitherInspectNorAuditTraps(_ mutation: Mutation) throws {
        let folder = try scratchFolder("overflow")
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = mutation == .movieMatrixScale ? "sei-90.mp4" : "orient-6.mp4"
        // These two are well-formed files with odd values: described, with no box-layer error.
        let describable: Set<Mutation> = [.movieMatrixScale, .movieDurationUnderAMicrosecond]
        let path = try TestMedia.mutated(name, in: folder) { bytes in
            switch mutation {
            case .sttsMaximum:
                let stts = try Self.find("stts", in: bytes)
                Self.put(0xFFFF_FFFF, width: 4, at: stts + 12, in: &bytes)
                Self.put(0xFFFF_FFFF, width: 4, at: stts + 16, in: &bytes)
            case .stszMaximum:
                let stsz = try Self.find("stsz", in: bytes)
                Self.put(0xFFFF_FFFF, width: 4, at: stsz + 8, in: &bytes)
                Self.put(0xFFFF_FFFF, width: 4, at: stsz + 12, in: &bytes)
            case .co64Maximum:
                // stco with one 4-byte entry (20 bytes) becomes co64 with one 8-byte entry (24).
                let stco = try Self.find("stco", in: bytes)
                try #require(bytes[stco - 4..<stco].elementsEqual([0, 0, 0, 20]))
                bytes.replaceSubrange(stco..<stco + 4, with: Array("co64".utf8))
                Self.put(24, width: 4, at: stco - 4, in: &bytes)
                bytes.replaceSubrange(stco + 12..<stco + 16, with: [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
                // Every enclosing box (stbl, minf, mdia, trak, moov) grows by the 4 bytes.
                for parent in ["stbl", "minf", "mdia", "trak", "moov"] {
                    let at = try Self.find(parent, in: bytes)
                    let size = bytes[at - 4..<at].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                    Self.put(size + 4, width: 4, at: at - 4, in: &bytes)
                }
            case .movieDurationUnderAMicrosecond:
                let mvhd = try Self.find("mvhd", in: bytes)
                try #require(bytes[mvhd + 4] == 0, "a version 0 mvhd")
                Self.put(0xFFFF_FFFF, width: 4, at: mvhd + 16, in: &bytes)  // timescale
                Self.put(1, width: 4, at: mvhd + 20, in: &bytes)  // duration
            case .movieMatrixScale:
                let mvhd = try Self.find("mvhd", in: bytes)
                bytes[mvhd + 58] = 0x71  // `d`'s third byte (version 0: the matrix at payload + 36, `d` its fifth)
            }
        }
        let inspect = try Run.vidorient(["inspect", "--json", path])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let audit = try Run.vidorient(["audit", path, "--jsonl"])
        #expect(audit.status == 0 || audit.status == 1, "\(audit.stderr)")
        #expect(audit.stdout.contains("\"path\""), "one record")
        if !describable.contains(mutation) {
            // The box layer's reason is said, by inspect (FFmpeg's reading) and by the audit (the headers').
            #expect(inspect.stdout.contains("box-layer-unreadable"), "\(inspect.stdout)")
            #expect(audit.stdout.contains("box-layer-unreadable"), "\(audit.stdout)")
        }
    }
}

/// Lists of paths and audit output as hostile input (issue 23): a folder given as the list was
/// read as an empty one (exit 0, nothing said); a line of gigabytes was held whole, and its end
/// searched for again with every 64 KiB read.
@Suite struct HostileListTests {
    @Test(arguments: [
        ["fix", "--from-audit"], ["report", "-o", "/tmp/vidorient-never.html"], ["audit", "--files-from"],
    ])
    func aFolderIsNotAListOfLines(command: [String]) throws {
        let folder = try scratchFolder("list-folder")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Run.vidorient(command + [folder.path])
        #expect(run.status == 2)
        #expect(run.stderrLines == ["vidorient: could not read '\(folder.path)': is a directory, not a file of lines"])
        #expect(!FileManager.default.fileExists(atPath: "/tmp/vidorient-never.html"))
    }

    @Test func anOverlongLineIsSkippedAndSaidAndTheRestStands() throws {
        let folder = try scratchFolder("list-overlong")
        defer { try? FileManager.default.removeItem(at: folder) }
        let record = try Run.vidorient(["audit", "--jsonl", Run.media("scaled-2x.mp4")]).stdout
        let path = folder.appendingPathComponent("audit.jsonl").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.write(Data("{\"path\":\"".utf8))
        let block = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0...(PathListLimit.mebibytes) { handle.write(block) }
        handle.write(Data("\"}\n".utf8) + Data(record.utf8))
        try handle.close()
        let run = try Run.vidorient(["fix", "--from-audit", path, "--dry-run"])
        #expect(run.status == 2)
        #expect(
            run.stdout.hasSuffix("scaled-2x.mp4: EXIF 6 -> EXIF 6; 4 bytes would change (track 1 matrix)\n"),
            "\(run.stdout)")
        #expect(
            run.stderrLines.first
                == "vidorient: could not read the audit on '\(path)': 1 line(s) longer than 64 MiB skipped")
    }
}

/// `PathList.longestLine` in MiB, as the CLI tests see it (they do not import VidorientIO).
enum PathListLimit {
    static let mebibytes = 64
}
