import Foundation
import Testing
import VidorientTestSupport

/// `fix --from-audit` acts on the file the audit read, not on whatever its path names at fix
/// time (issue 28, item 7): no link is followed, a file put there since is refused, and a record
/// whose keys repeat is refused whole.
@Suite
struct FromAuditIdentityTests {
    /// An audited library (`lib/a.jpg`, EXIF Orientation 0: the audit suggests 1), its audit's
    /// JSONL, and an identical copy outside the tree (`out/b.jpg`).
    struct Setup {
        let folder: URL
        let library: URL
        let outside: String
        let audit: String
        var file: String { library.appendingPathComponent("a.jpg").path }
    }

    static func setUp(_ label: String) throws -> Setup {
        let folder = try FixFixture.folder("identity-\(label)")
        let library = folder.appendingPathComponent("lib")
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try JournalFixture.invalidOrientationJPEG(at: library.appendingPathComponent("a.jpg").path)
        try JournalFixture.invalidOrientationJPEG(at: out.appendingPathComponent("b.jpg").path)
        let audit = try Run.vidorient(["audit", library.path, "--jsonl"])
        #expect(audit.stdout.contains("\"suggested_fix\":{\"orientation\":1"), "\(audit.stdout)")
        let auditPath = folder.appendingPathComponent("audit.jsonl").path
        try Data(audit.stdout.utf8).write(to: URL(fileURLWithPath: auditPath))
        return Setup(
            folder: folder, library: library, outside: out.appendingPathComponent("b.jpg").path, audit: auditPath)
    }

    /// The fix is refused, in one line naming the file, and nothing is written.
    static func expectRefused(_ setup: Setup, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let outsideBefore = try FixFixture.contents(setup.outside)
        let fileBefore = try? FixFixture.contents(setup.file)
        let fix = try Run.vidorient(["fix", "--from-audit", setup.audit])
        #expect(fix.status == 2, "\(fix.stderr)", sourceLocation: sourceLocation)
        #expect(
            fix.stderrLines.first?.hasPrefix("vidorient: could not fix '\(setup.file)': it changed since the audit: ")
                == true, "\(fix.stderr)", sourceLocation: sourceLocation)
        #expect(fix.stderr.contains(reason), "\(fix.stderr)", sourceLocation: sourceLocation)
        #expect(try FixFixture.contents(setup.outside) == outsideBefore, sourceLocation: sourceLocation)
        #expect((try? FixFixture.contents(setup.file)) == fileBefore, sourceLocation: sourceLocation)
    }

    /// (a) `a.jpg` replaced by a link to a file outside the tree showing the same orientation:
    /// before, the file outside was rewritten ("fixed 1").
    @Test func aFileReplacedByALinkIsNotFollowed() throws {
        let setup = try Self.setUp("link")
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        try FileManager.default.removeItem(atPath: setup.file)
        try FileManager.default.createSymbolicLink(atPath: setup.file, withDestinationPath: setup.outside)
        try Self.expectRefused(setup, "symbolic link")
    }

    /// (a) The folder above it replaced by a link to a folder outside holding the same bytes:
    /// another inode, so not the file audited.
    @Test func aFolderReplacedByALinkIsNotFollowed() throws {
        let setup = try Self.setUp("folder-link")
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        let outsideFolder = setup.folder.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: outsideFolder, withIntermediateDirectories: true)
        // A copy with the same bytes and the same modification time: only the inode tells.
        try FileManager.default.copyItem(atPath: setup.file, toPath: outsideFolder.appendingPathComponent("a.jpg").path)
        let time = try FileManager.default.attributesOfItem(atPath: setup.file)[.modificationDate]
        try FileManager.default.setAttributes(
            [.modificationDate: time!], ofItemAtPath: outsideFolder.appendingPathComponent("a.jpg").path)
        try FileManager.default.removeItem(at: setup.library)
        try FileManager.default.createSymbolicLink(atPath: setup.library.path, withDestinationPath: outsideFolder.path)
        let before = try FixFixture.contents(setup.file)
        let fix = try Run.vidorient(["fix", "--from-audit", setup.audit])
        #expect(fix.status == 2, "\(fix.stderr)")
        #expect(fix.stderr.contains("it changed since the audit: inode"), "\(fix.stderr)")
        #expect(try FixFixture.contents(setup.file) == before)
    }

    /// (b) Another photo with the same tag put at the path: other size; or the same size and
    /// time, rewritten in place (same inode), differing in its first 4 KiB.
    @Test(arguments: ["other size", "same size and time"])
    func aDifferentPhotoWithTheSameTagIsRefused(how: String) throws {
        let setup = try Self.setUp(how == "other size" ? "other" : "same")
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        var bytes = [UInt8](try FixFixture.contents(setup.file))
        let time = try FileManager.default.attributesOfItem(atPath: setup.file)[.modificationDate]
        if how == "other size" {
            bytes += [UInt8](repeating: 0, count: 100)
            try FileManager.default.removeItem(atPath: setup.file)
            try Data(bytes).write(to: URL(fileURLWithPath: setup.file))
            try Self.expectRefused(setup, "size \(bytes.count) (was \(bytes.count - 100))")
        } else {
            // A byte of the first scan's data changed, in place, the time set back.
            bytes[bytes.count - 200] ^= 0xFF
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: setup.file))
            try handle.write(contentsOf: bytes)
            try handle.close()
            try FileManager.default.setAttributes([.modificationDate: time!], ofItemAtPath: setup.file)
            // The file is small: its first 4 KiB is all of it.
            #expect(bytes.count < 4096)
            try Self.expectRefused(setup, "its first 4 KiB differ")
        }
    }

    /// The untouched file is still fixed, and a second run finds nothing to refuse wrongly.
    @Test func theFileAuditedIsFixed() throws {
        let setup = try Self.setUp("same-file")
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        let fix = try Run.vidorient(["fix", "--from-audit", setup.audit])
        #expect(fix.status == 0, "\(fix.stderr)")
        #expect(fix.stderr == "vidorient: fixed 1, already right 0, refused 0, failed 0\n")
    }

    /// (c) A record whose keys repeat (jq reads the last `path`, Foundation's decoder the first):
    /// the whole input is refused in one line, before anything is written; JSONL and a document.
    @Test(arguments: ["jsonl", "document"])
    func aRecordWithARepeatedKeyIsRefused(form: String) throws {
        let setup = try Self.setUp("repeated-\(form)")
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        let line = try String(contentsOfFile: setup.audit, encoding: .utf8).split(separator: "\n")[0]
        // The same record naming the file outside as a second, escaped `path`.
        let doubled = "{\"p\\u0061th\":\"\(setup.outside)\"," + line.dropFirst()
        let text = form == "jsonl" ? doubled + "\n" : "{\"files\":[\(doubled)],\"schema_version\":7}\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: setup.audit))
        let outsideBefore = try FixFixture.contents(setup.outside)
        let fileBefore = try FixFixture.contents(setup.file)
        let fix = try Run.vidorient(["fix", "--from-audit", setup.audit])
        #expect(fix.status == 2, "\(fix.stderr)")
        #expect(fix.stderrLines.count == 1, "\(fix.stderr)")
        #expect(fix.stderr.contains("the key \"path\" appears twice in one object"), "\(fix.stderr)")
        #expect(try FixFixture.contents(setup.outside) == outsideBefore)
        #expect(try FixFixture.contents(setup.file) == fileBefore)
    }

    /// A record listed twice (issue 28, item 12): it was refused the second time as "changed since
    /// the audit", exit 2; the file is fixed once and the repeat said. Two records asking
    /// different fixes for one file: neither is applied.
    @Test(arguments: [true, false])
    func aRecordListedTwiceIsAppliedOnce(sameFix: Bool) throws {
        let setup = try Self.setUp("twice-\(sameFix)")
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        let line = try String(contentsOfFile: setup.audit, encoding: .utf8).split(separator: "\n")[0]
        let second = sameFix ? String(line) : String(line.replacing("\"orientation\":1", with: "\"orientation\":3"))
        try Data((line + "\n" + second + "\n").utf8).write(to: URL(fileURLWithPath: setup.audit))
        let before = try FixFixture.contents(setup.file)
        let fix = try Run.vidorient(["fix", "--from-audit", setup.audit])
        if sameFix {
            #expect(fix.status == 0, "\(fix.stderr)")
            #expect(
                fix.stderrLines == [
                    "vidorient: '\(setup.file)' is listed again in the audit on '\(setup.audit)', line 2: fixed once "
                        + "(line 1)",
                    "vidorient: fixed 1, already right 0, refused 0, failed 0",
                ], "\(fix.stderr)")
            #expect(try FixFixture.contents(setup.file) != before)
        } else {
            #expect(fix.status == 2, "\(fix.stderr)")
            #expect(fix.stderr.contains("it asks another fix for '\(setup.file)' than line 1"), "\(fix.stderr)")
            #expect(try FixFixture.contents(setup.file) == before)
        }
    }

    /// Valid JSON nested deeper than the decoder goes was "not valid json": said as too deep.
    @Test func aRecordNestedTooDeepIsSaidSo() throws {
        let setup = try Self.setUp("deep")
        defer { try? FileManager.default.removeItem(at: setup.folder) }
        let line = try String(contentsOfFile: setup.audit, encoding: .utf8).split(separator: "\n")[0]
        let deep = "{\"extra\":" + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + ","
        try Data((deep + line.dropFirst() + "\n").utf8).write(to: URL(fileURLWithPath: setup.audit))
        let fix = try Run.vidorient(["fix", "--from-audit", setup.audit])
        #expect(fix.status == 2)
        #expect(
            fix.stderrLines == [
                "vidorient: could not read the audit on '\(setup.audit)', line 1: nested too deep (more than 512 "
                    + "levels of arrays and objects); nothing was done"
            ], "\(fix.stderr)")
    }
}
