import Foundation
import Testing
import VidorientTestSupport

/// `normalize --journal` and `--undo` (issue 29): a normalize rewrites the whole file, and `--trim`
/// drops pixels, so the journal keeps each original, and undo gives back every byte and the mtime.
@Suite struct NormalizeJournalTests {
    private typealias F = NormalizeFixture

    /// A JPEG (100x60, not a multiple of its 16x16 MCU: only `--trim` turns it), a PNG and a
    /// lossless WebP, each at orientation 6, their mtimes set in 2001.
    private static func photos(in folder: URL) throws -> [String] {
        let jpeg = folder.appendingPathComponent("odd.jpg").path
        try F.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=100x60", "-frames:v", "1", jpeg])
        try F.tool("exiftool", ["-q", "-overwrite_original", "-Orientation#=6", jpeg])
        let paths = [
            jpeg, try F.copy(Run.media("orient-6.png"), to: folder, as: "b.png"),
            try F.copy(Run.media("orient-6.webp"), to: folder, as: "c.webp"),
        ]
        for path in paths { try F.shell("touch -d '2001-02-03 04:05:06.123456789' '\(path)'") }
        return paths
    }

    private static func modificationTime(_ path: String) throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
    }

    @Test func undoGivesBackEveryByteAndTheModificationTimeEvenAfterTrim() throws {
        let folder = try F.folder("journal")
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = try Self.photos(in: folder)
        let originals = try paths.map(F.bytes)
        let times = try paths.map(Self.modificationTime)
        let journal = folder.appendingPathComponent("j.jsonl").path

        // The journal named relative to the folder; undo runs from another one below.
        let run = try Run.vidorient(
            ["normalize", "--trim", "--journal", "j.jsonl"] + paths, prefix: ["--chdir=\(folder.path)"])
        #expect(run.status == 0, "\(run.stderr)")
        for (path, original) in zip(paths, originals) { #expect(try F.bytes(path) != original) }
        #expect(try F.exifOrientation(paths[0]) == "1")
        // Each original is kept whole beside the journal, and the journal names it.
        let lines = try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n")
        let entries = try lines.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(
            entries.map { $0["status"] as? String } == [
                "writing", "written", "writing", "written", "writing", "written",
            ])
        for (index, original) in originals.enumerated() {
            let entry = entries[2 * index + 1]
            #expect(entry["mode"] as? String == "replace")
            #expect((entry["splices"] as? [Any])?.isEmpty == true)
            let copy = try #require(entry["original"] as? String)
            #expect(copy.hasPrefix(folder.path + "/j.jsonl.originals/"), "\(copy)")
            #expect(try F.bytes(copy) == original)
        }

        // A dry run checks and writes nothing.
        let dry = try Run.vidorient(["normalize", "--undo", journal, "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stderr.contains("would restore 3, nothing to undo 0, refused 0"), "\(dry.stderr)")
        for (path, original) in zip(paths, originals) { #expect(try F.bytes(path) != original) }

        // From another folder: the copies' paths are absolute.
        let undo = try Run.vidorient(["normalize", "--undo", journal], prefix: ["--chdir=/"])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(undo.stderr.contains("restored 3, nothing to undo 0, refused 0"), "\(undo.stderr)")
        #expect(undo.stdout.contains("odd.jpg: restored (EXIF 1 -> EXIF 6"), "\(undo.stdout)")
        for (path, original) in zip(paths, originals) { #expect(try F.bytes(path) == original) }
        #expect(try paths.map(Self.modificationTime) == times)

        // Twice is nothing to do; `fix --undo` reads the same journal.
        let again = try Run.vidorient(["fix", "--undo", journal])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("restored 0, nothing to undo 3, refused 0"), "\(again.stderr)")
    }

    @Test func aChangedFileOrADamagedCopyIsRefusedAndLeftAlone() throws {
        let folder = try F.folder("journal-refused")
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = Array(try Self.photos(in: folder).dropFirst())
        let journal = folder.appendingPathComponent("j.jsonl").path
        let run = try Run.vidorient(["normalize", "--journal", journal] + paths)
        #expect(run.status == 0, "\(run.stderr)")
        // The PNG changed since; the WebP's kept copy lost a byte.
        try F.shell("printf x >> '\(paths[0])'")
        let changed = try F.bytes(paths[0])
        let normalized = try F.bytes(paths[1])
        let copies = try FileManager.default.contentsOfDirectory(atPath: journal + ".originals").sorted()
        #expect(copies.count == 2 && copies[1].hasSuffix(".webp"), "\(copies)")
        try F.shell("truncate -s -1 '\(journal).originals/\(copies[1])'")

        let undo = try Run.vidorient(["normalize", "--undo", journal])
        #expect(undo.status == 2)
        #expect(undo.stderr.contains("could not undo '\(paths[0])': it changed since the fix"), "\(undo.stderr)")
        #expect(
            undo.stderr.contains("could not undo '\(paths[1])': the copy of the original")
                && undo.stderr.contains("is not the original"), "\(undo.stderr)")
        #expect(undo.stderr.contains("restored 0, nothing to undo 0, refused 2"), "\(undo.stderr)")
        #expect(try F.bytes(paths[0]) == changed)
        #expect(try F.bytes(paths[1]) == normalized)
    }

    /// A replacement refused (a file with two hard links) is `not_written`, and its copy is gone.
    @Test func aRefusedWriteKeepsNoCopy() throws {
        let folder = try F.folder("journal-not-written")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try F.copy(Run.media("orient-6.png"), to: folder, as: "linked.png")
        try FileManager.default.linkItem(atPath: path, toPath: folder.appendingPathComponent("other.png").path)
        let journal = folder.appendingPathComponent("j.jsonl").path
        let run = try Run.vidorient(["normalize", "--journal", journal, path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("hard links"), "\(run.stderr)")
        let lines = try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2 && lines[1].contains("\"status\":\"not_written\""), "\(lines)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: journal + ".originals").isEmpty)
    }

    /// Where the originals would go is not a folder: nothing is written, the photo is left alone.
    @Test func anOriginalsPathThatIsNotAFolderRefusesTheNormalize() throws {
        let folder = try F.folder("journal-no-folder")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try F.copy(Run.media("orient-6.png"), to: folder, as: "b.png")
        let original = try F.bytes(path)
        let journal = folder.appendingPathComponent("j.jsonl").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: journal + ".originals"))
        let run = try Run.vidorient(["normalize", "--journal", journal, path])
        #expect(run.status == 2)
        #expect(
            run.stderr.contains("could not keep the original") && run.stderr.contains("not a folder"), "\(run.stderr)")
        #expect(try F.bytes(path) == original)
        // The journal is opened first; no line is written.
        let lines = try String(contentsOfFile: journal, encoding: .utf8)
        #expect(lines.isEmpty, "\(lines)")
    }

    @Test(arguments: [
        ["normalize", "--undo", "j.jsonl", "a.jpg"], ["normalize", "--undo", "j.jsonl", "--trim"],
        ["normalize", "a.jpg", "-o", "b.jpg", "--journal", "j.jsonl"],
    ])
    func undoAndJournalRefuseWhatTheyCannotMean(arguments: [String]) throws {
        #expect(try Run.vidorient(arguments).status == 64)
    }
}
