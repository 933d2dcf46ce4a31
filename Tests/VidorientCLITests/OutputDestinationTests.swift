import Foundation
import Testing
import VidorientTestSupport

/// Where an output named by `-o` (or `--html`) goes (issue 28, item 6), as ffmpeg, vips and
/// ImageMagick do: `-o -` and `/dev/stdout` stream to standard output with nothing else there; a
/// symbolic link is written through and stays a link; nothing that is not a regular file is
/// replaced. Before, `-o link.png` replaced the link, `-o -` wrote a file named `-`, and `-o` of a
/// link to `/proc/self/fd/1` (what `/dev/stdout` is) with stdout redirected to a file replaced
/// the link with a PNG (as root, the system's `/dev/stdout`).
@Suite
struct OutputDestinationTests {
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func isLink(_ path: String) -> Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// `script` run by sh in `folder`: `$0` the program, `$2` orient-6.jpg.
    static func shell(_ script: String, in folder: URL) throws -> ProcessOutput {
        try ProcessOutput.run(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "cd \"$1\" && " + script, Run.binary.path, folder.path, Run.media("orient-6.jpg")])
    }

    /// `thumbnail -o link.png`, the link to a file there or to none yet: the target gets the
    /// picture, the link stays a link; `fix -o` and `report -o` the same.
    @Test(arguments: ["thumbnail", "fix", "report"], [true, false])
    func aLinkIsWrittenThrough(command: String, targetExists: Bool) throws {
        let folder = try scratchFolder("output-link")
        defer { try? FileManager.default.removeItem(at: folder) }
        let ext = ["thumbnail": "png", "fix": "jpg", "report": "html"][command]!
        let target = folder.appendingPathComponent("target.\(ext)").path
        let link = folder.appendingPathComponent("link.\(ext)").path
        if targetExists { try Data("old".utf8).write(to: URL(fileURLWithPath: target)) }
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.\(ext)")
        let run: Run
        switch command {
        case "thumbnail": run = try Run.vidorient(["thumbnail", Run.media("orient-6.jpg"), "-o", link])
        case "fix": run = try Run.vidorient(["fix", Run.media("orient-6.jpg"), "--orientation", "1", "-o", link])
        default:
            let audit = folder.appendingPathComponent("audit.jsonl").path
            let records = try Run.vidorient(["audit", "--jsonl", Run.media("orient-6.jpg")])
            try Data(records.stdout.utf8).write(to: URL(fileURLWithPath: audit))
            run = try Run.vidorient(["report", audit, "-o", link])
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.isLink(link), "the link was replaced")
        let written = try Self.bytes(target)
        switch command {
        case "thumbnail": #expect(Array(written.prefix(8)) == Self.pngSignature)
        case "fix": #expect(Array(written.prefix(2)) == [0xFF, 0xD8])
        default: #expect(String(decoding: written.prefix(15), as: UTF8.self) == "<!doctype html>")
        }
        // Nothing else was left in the folder (no temporary file, no file beside the link).
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(names.subtracting(["audit.jsonl"]) == ["target.\(ext)", "link.\(ext)"])
    }

    /// `-o -`: the PNG alone on stdout, the status line on stderr, no file named `-`.
    @Test func dashStreamsThePictureToStandardOutput() throws {
        let folder = try scratchFolder("output-dash")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try Self.shell("\"$0\" thumbnail \"$2\" -o -", in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        let png = [UInt8](output.stdout)
        #expect(Array(png.prefix(8)) == Self.pngSignature)
        // The last chunk is IEND, and nothing follows it.
        #expect(Array(png.suffix(8)) == [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
        #expect(output.stderr.contains(" -> - ("), "\(output.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
        // The page too; `audit --html -` would mix it with the records: a usage error.
        let audit = try Run.vidorient(["audit", Run.media("orient-6.jpg"), "--html", "-"])
        #expect(audit.status == 64, "\(audit.stderr)")
    }

    /// A link to `/proc/self/fd/1` (what `/dev/stdout` is) with stdout redirected to a file: the
    /// picture goes into that file through the descriptor, and the link is left as it is.
    @Test(arguments: ["thumbnail", "report"])
    func aLinkToStandardOutputIsStreamedIntoNotReplaced(command: String) throws {
        let folder = try scratchFolder("output-stdout-link")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("out").path, withDestinationPath: "/proc/self/fd/1")
        let script: String
        if command == "thumbnail" {
            script = "\"$0\" thumbnail \"$2\" -o out --format png > redirected"
        } else {
            script = "\"$0\" audit --jsonl \"$2\" > audit.jsonl; \"$0\" report audit.jsonl -o out > redirected"
        }
        let output = try Self.shell(script, in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(Self.isLink(folder.appendingPathComponent("out").path), "the link was replaced")
        let written = try Self.bytes(folder.appendingPathComponent("redirected").path)
        if command == "thumbnail" {
            #expect(Array(written.prefix(8)) == Self.pngSignature)
        } else {
            #expect(String(decoding: written.prefix(15), as: UTF8.self) == "<!doctype html>")
        }
    }
}
