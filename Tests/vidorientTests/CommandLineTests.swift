import Foundation
import Testing

/// The built binary, run as a user runs it: stdout, stderr and the exit status.
struct Run {
    let status: Int32
    let stdout: String
    let stderr: String

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var binary: URL {
        if let override = ProcessInfo.processInfo.environment["VIDORIENT_BIN"] { return URL(fileURLWithPath: override) }
        // The test bundle sits beside the products it was built with.
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vidorient")
    }

    static func media(_ name: String) -> String { packageRoot.appendingPathComponent("TestMedia/\(name)").path }

    static func vidorient(_ arguments: [String], environment: [String: String] = [:], prefix: [String] = []) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: prefix.isEmpty ? binary.path : "/usr/bin/env")
        process.arguments = prefix.isEmpty ? arguments : prefix + [binary.path] + arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both before waiting: a full pipe would block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    var json: Any? { try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
    var stderrLines: [Substring] { stderr.split(separator: "\n") }
}

@Suite struct InspectCommandTests {
    @Test func jsonForOneFileIsAnObject() throws {
        let run = try Run.vidorient(["inspect", "--json", Run.media("orient-6.mp4")])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let object = try #require(run.json as? [String: Any])
        #expect(object["schema_version"] as? Int == 1)
        let video = try #require(object["video"] as? [String: Any])
        #expect(video["exif_orientation"] as? Int == 6)
        #expect(video["rotation"] as? Int == 90)
        #expect(video["mirrored"] as? Bool == false)
        #expect(video["ffprobe_rotation"] as? Int == -90)
    }

    @Test func jsonForSeveralFilesIsAnArray() throws {
        let run = try Run.vidorient(["inspect", "--json", Run.media("orient-6.mp4"), Run.media("orient-5.jpg")])
        #expect(run.status == 0)
        let array = try #require(run.json as? [[String: Any]])
        #expect(array.count == 2)
        #expect(array.compactMap { ($0["video"] as? [String: Any])?["exif_orientation"] as? Int } == [6, 5])
    }

    @Test(arguments: ["bad-empty.mp4", "bad-truncated.mp4", "bad-random.mp4", "bad-text.mp4", "", "missing.mp4"])
    func badInputIsOneLineExitTwoAndTheOthersStillReported(name: String) throws {
        // "" is the TestMedia folder itself: a directory.
        let bad = Run.media(name)
        let run = try Run.vidorient(["inspect", "--json", bad, Run.media("orient-3.mp4")])
        #expect(run.status == 2)
        #expect(run.stderrLines.count == 1)
        #expect(run.stderr.contains("'\(bad)'"))
        let array = try #require(run.json as? [[String: Any]])
        #expect(array.map { $0["path"] as? String } == [Run.media("orient-3.mp4")])
    }

    @Test func reasonsAreSpecific() throws {
        #expect(try Run.vidorient(["inspect", Run.media("bad-empty.mp4")]).stderr.contains("file is empty"))
        #expect(try Run.vidorient(["inspect", Run.media("")]).stderr.contains("is a directory"))
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
        #expect(run.stdout.contains("EXIF 7: mirror, then rotate 90° clockwise"))
        #expect(run.stdout.contains("mirrored"))
    }

    @Test func usageErrorsExit64() throws {
        #expect(try Run.vidorient(["inspect"]).status == 64)
        #expect(try Run.vidorient(["inspect", "--no-such-flag", Run.media("orient-1.mp4")]).status == 64)
        #expect(try Run.vidorient(["no-such-command"]).status == 64)
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

    @Test func allEightWithoutAnOption() throws {
        let run = try Run.vidorient(["orientation", "--json"])
        let array = try #require(run.json as? [[String: Any]])
        #expect(array.compactMap { $0["exif_orientation"] as? Int } == Array(1...8))
    }

    @Test(arguments: [
        ["orientation", "--exif", "9"], ["orientation", "--exif", "6", "--uiimage", "3"],
        ["orientation", "--mirrored"], ["orientation", "--rotation", "45"], ["orientation", "--size", "big"],
    ])
    func badOrientationUsageExits64(arguments: [String]) throws {
        let run = try Run.vidorient(arguments)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
    }
}
