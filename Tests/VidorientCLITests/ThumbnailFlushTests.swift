import Foundation
import Testing
import VidorientTestSupport

/// When thumbnails reach the disk (issue 32): a folder's batch writes every thumbnail through a
/// temporary file and a rename, and puts them all on the disk once at the end (one `syncfs`),
/// before it says any was written; one thumbnail (`-o`) is flushed with its folder before the
/// command returns. Two `fsync`s a thumbnail serialized a batch's workers on the journal.
@Suite struct ThumbnailFlushTests {
    /// The flushing calls of `vidorient ARGUMENTS`, traced with `strace -f`.
    static func flushes(_ arguments: [String], in folder: TemporaryFolder) throws -> (run: Run, calls: [String]) {
        let log = folder.path("trace")
        let run = try Run.vidorient(
            arguments, prefix: ["strace", "-f", "-o", log, "-e", "trace=fsync,fdatasync,syncfs,sync"])
        let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map {
            // "PID  call(…) = result": the call, after the process ID and its padding.
            String($0.drop { !$0.isWhitespace }.drop { $0.isWhitespace })
        }.filter { !$0.hasPrefix("+++") && !$0.hasPrefix("---") && !$0.hasPrefix("<...") }
        return (run, calls)
    }

    @Test func aFolderIsFlushedOnceAtTheEnd() throws {
        try #require(isInstalled("strace"), "strace is installed by .ci/setup")
        let folder = try TemporaryFolder("thumbnail-flush")
        defer { folder.remove() }
        let photos = folder.path("photos")
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        for index in 0..<12 {
            _ = try folder.copy(
                PackageFolder.root.appendingPathComponent("TestMedia/orient-6.jpg").path, as: "photos/\(index).jpg")
        }
        let out = folder.path("out")
        let (run, calls) = try Self.flushes(
            ["thumbnail", photos, "--out-dir", out, "--quiet", "--jobs", "2"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).count == 12)
        #expect(calls.filter { $0.hasPrefix("fsync(") || $0.hasPrefix("fdatasync(") }.isEmpty, "\(calls)")
        #expect(calls.filter { $0.hasPrefix("syncfs(") }.count == 1, "\(calls)")
    }

    @Test func oneThumbnailIsFlushedBeforeTheCommandReturns() throws {
        try #require(isInstalled("strace"), "strace is installed by .ci/setup")
        let folder = try TemporaryFolder("thumbnail-flush-one")
        defer { folder.remove() }
        let input = PackageFolder.root.appendingPathComponent("TestMedia/orient-6.jpg").path
        let (run, calls) = try Self.flushes(["thumbnail", input, "-o", folder.path("one.png")], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        // The file, then its folder.
        #expect(calls.filter { $0.hasPrefix("fsync(") }.count == 2, "\(calls)")
        #expect(calls.filter { $0.hasPrefix("syncfs(") }.isEmpty, "\(calls)")
    }
}
