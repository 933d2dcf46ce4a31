import Foundation
import Testing
import VidorientCore
import VidorientTestSupport

/// Failures that used to pass in silence (issue 22): each one now says what happened. Every test
/// here fails on the code before its fix.
@Suite struct HiddenFailureTests {
    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// `report`'s refusal of a line that is JSON but not an audit record names what is wrong with
    /// it; it used to drop the decoder's reason. (Since issue 24 a first line that is not a record
    /// may begin one `audit --json` document: the refusal says why it is neither.)
    @Test func aLineThatIsNotARecordSaysWhy() throws {
        let folder = try TemporaryFolder("hidden")
        defer { folder.remove() }
        let jsonl = folder.path("audit.jsonl")
        try Self.write(Array("{\"schema_version\":3}\n".utf8), to: jsonl)
        let run = try Run.vidorient(["report", jsonl, "-o", folder.path("page.html")])
        #expect(run.status == 2)
        #expect(
            run.stderr
                == "vidorient: '\(jsonl)' is neither audit --jsonl lines (line 1 is not an audit record: key 'path' "
                + "is missing) nor one audit --json document (key 'files' is missing); nothing was done\n")
    }

    /// `normalize -o` of an upright photo it will not read (over 1 GiB: a sparse file here) used to
    /// report success and write nothing.
    @Test func aCopyThatCannotBeMadeIsAnError() throws {
        let folder = try TemporaryFolder("hidden")
        defer { folder.remove() }
        let path = folder.path("big.jpg")
        try Self.write(try Self.bytes(TestMedia.path("orient-1.jpg")), to: path)
        #expect(truncate(path, (1 << 30) + 1) == 0)
        let out = folder.path("out.jpg")
        let run = try Run.vidorient(["normalize", "-o", out, path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("normalize reads a photo whole, up to 1073741824 bytes"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// `normalize --preserve-mtime` keeps the access time its help promises: the times are set again
    /// after the last read-back. It used to keep the modification time only.
    @Test func normalizeKeepsTheAccessTime() throws {
        let folder = try TemporaryFolder("hidden")
        defer { folder.remove() }
        let path = try folder.copy(TestMedia.path("orient-6.jpg"), as: "turned.jpg")
        var old = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_100, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &old, 0) == 0)
        let run = try Run.vidorient(["normalize", "--preserve-mtime", path])
        #expect(run.status == 0, "\(run.stderr)")
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mtim.tv_sec == 1_000_000_100)
        #expect(status.st_atim.tv_sec == 1_000_000_000)
    }
}

/// `--jobs`, `--json` and `--no-progress` are one option each, with one rule, in every command
/// that takes them.
@Suite struct SharedOptionTests {
    static let commands: [[String]] = [
        ["fix", "--orientation", "1", TestMedia.path("orient-1.jpg")],
        ["report", "x.jsonl", "-o", "/dev/null"],
        ["audit", TestMedia.path("orient-1.jpg")],
        ["thumbnail", TestMedia.path("orient-1.jpg"), "--out-dir", "/nonexistent"],
    ]

    @Test(arguments: commands, ["0", "257", "100000"])
    func jobsOutOfRangeIsUsage(command: [String], jobs: String) throws {
        let run = try Run.vidorient(command + ["--jobs", jobs])
        #expect(run.status == 64, "\(command[0]) --jobs \(jobs): \(run.stderr)")
        #expect(run.stderr.contains("--jobs must be 1-256"), "\(run.stderr)")
    }

    @Test(arguments: ["fix", "report", "audit", "thumbnail"])
    func helpSaysTheSameJobsRule(command: String) throws {
        let help = try Run.vidorient([command, "--help"]).stdout
        #expect(help.contains("Files worked on at once, 1-256 (default: the cores"), "\(command)")
    }
}

/// Smaller defects found in the read (issue 22), each with a test that fails on the code before.
@Suite struct SmallerDefectTests {
    /// A movie of a microsecond that is two terabytes long (sparse): FFmpeg's path derived a bit
    /// rate that does not fit an Int, and the conversion trapped (exit status 132).
    @Test func aBitRateThatDoesNotFitIsNull() throws {
        let folder = try TemporaryFolder("defect")
        defer { folder.remove() }
        var movie = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestMedia.path("orient-1.mp4"))))
        let mvhd = try #require(movie.indices.first { movie[$0..<min($0 + 4, movie.count)].elementsEqual("mvhd".utf8) })
        // Version 0: type, version and flags, creation, modification, then timescale and duration.
        movie.replaceSubrange(mvhd + 16..<mvhd + 24, with: [0x00, 0x0F, 0x42, 0x40, 0, 0, 0, 1])
        let path = folder.path("long.mp4")
        try Data(movie).write(to: URL(fileURLWithPath: path))
        try #require(truncate(path, 2 << 40) == 0, "a sparse file of 2 TiB: \(String(cString: strerror(errno)))")
        let run = try Run.vidorient(["inspect", "--deep", "--json", path])
        #expect(run.status == 0, "\(run.stderr)")
        let format = (run.json as? [String: Any])?["format"] as? [String: Any]
        #expect(format?["duration"] as? Double == 0.000001)
        #expect(format?["bit_rate"] is NSNull)
    }

    /// Thumbnails and pages are flushed to the disk before they take their name, as every writer's
    /// output is (the thumbnail writer did not flush).
    @Test func aThumbnailIsFlushedBeforeItsRename() throws {
        try #require(isInstalled("strace"), "strace is installed by .ci/setup")
        let folder = try TemporaryFolder("defect")
        defer { folder.remove() }
        let log = folder.path("trace")
        let run = try Run.vidorient(
            ["thumbnail", TestMedia.path("orient-6.jpg"), "-o", folder.path("t.png")],
            prefix: ["strace", "-f", "-e", "trace=fsync,rename", "-o", log])
        #expect(run.status == 0, "\(run.stderr)")
        let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map {
            // "PID  call(…) = result": the call, after the process ID and its padding.
            $0.drop { !$0.isWhitespace }.drop { $0.isWhitespace }
        }.filter { $0.hasPrefix("fsync") || $0.hasPrefix("rename") }
        // The file, then its name, then its folder.
        #expect(calls.map { String($0.prefix(6)) } == ["fsync(", "rename", "fsync("], "\(calls)")
    }
}

/// Issue 30's hidden failures: each passed in silence before its fix, and each test fails on the
/// code before it.
@Suite struct SilentEndTests {
    /// The test harness reads a child's stdout and stderr at once: a child that fills the stderr
    /// pipe (64 KiB) before closing stdout used to block it, and the test with it.
    @Test(.timeLimit(.minutes(1))) func aChildThatSaysMuchOnStderrDoesNotBlockTheHarness() throws {
        let output = try ProcessOutput.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "head -c 300000 /dev/zero | tr '\\0' x >&2; echo done"])
        #expect(output.status == 0)
        #expect(String(decoding: output.stdout, as: UTF8.self) == "done\n")
        #expect(output.stderr.count == 300_000)
    }

    /// `audit --files-from` of a list that cannot be read to its end is not a success: the read
    /// error used to end the list in silence, a shorter audit with exit 0. (`/proc/self/mem` opens,
    /// and its first read fails: the extreme case of a list cut by an I/O error.)
    @Test func aListThatCannotBeReadToItsEndIsSaid() throws {
        let run = try Run.vidorient(["audit", "--jsonl", "--no-progress", "--files-from", "/proc/self/mem"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(
            run.stderrLines.first
                == "vidorient: could not read the list '/proc/self/mem' to its end: reading stopped: input/output error",
            "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// A watch whose wait for events fails ends with a line and exit 2; it used to end as if stopped:
    /// exit 0, nothing said. The failure is made real with a preloaded `poll` that fails once a
    /// marker file exists (clang from the Swift toolchain builds it).
    @Test(.timeLimit(.minutes(1))) func aWatchWhoseWaitFailsSaysSo() throws {
        let folder = try TemporaryFolder("watch-poll")
        defer { folder.remove() }
        let source = folder.path("failpoll.c")
        let library = folder.path("failpoll.so")
        let marker = folder.path("fail-now")
        try Data(
            """
            #define _GNU_SOURCE
            #include <dlfcn.h>
            #include <errno.h>
            #include <poll.h>
            #include <unistd.h>
            int poll(struct pollfd *fds, nfds_t count, int timeout) {
                static int (*real)(struct pollfd *, nfds_t, int);
                if (!real) real = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
                if (access("\(marker)", F_OK) == 0) { errno = ENOMEM; return -1; }
                return real(fds, count, timeout);
            }
            """.utf8
        ).write(to: URL(fileURLWithPath: source))
        let compiled = try run("clang", ["-shared", "-fPIC", "-o", library, source, "-ldl"])
        try #require(compiled.status == 0, "\(compiled.stderr)")
        let watched = folder.path("library")
        try FileManager.default.createDirectory(atPath: watched, withIntermediateDirectories: true)

        let process = Process()
        process.executableURL = Run.binary
        process.arguments = ["audit", "--watch", "--jsonl", "--no-progress", watched]
        process.environment = ProcessInfo.processInfo.environment.merging(["LD_PRELOAD": library]) { $1 }
        let (out, err) = (Pipe(), Pipe())
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errors = PipeDrain(err.fileHandleForReading)
        // Make every wait fail from now on (the first one too, should the watch not be waiting
        // yet), and wake it with a change.
        Thread.sleep(forTimeInterval: 0.5)
        FileManager.default.createFile(atPath: marker, contents: nil)
        Thread.sleep(forTimeInterval: 0.3)
        FileManager.default.createFile(atPath: watched + "/new.txt", contents: Data("x".utf8))
        let stopper = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: stopper)
        _ = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        stopper.cancel()
        let stderr = String(decoding: errors.wait(), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 2, "\(stderr)")
        #expect(
            stderr.hasSuffix("vidorient: the watch stopped: waiting for changes: cannot allocate memory\n"), "\(stderr)"
        )
    }
}
