import Foundation
import Testing
import VidorientCore
import VidorientFix
import VidorientIO
import VidorientISOBMFF
import VidorientTestSupport

enum Media {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("TestMedia")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent(name)))
    }

    static func folder(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vidorient-fixlib-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
}

@Suite struct EditChecksumsTests {
    /// The CRC-32 check value of "123456789" (ISO-HDLC), from the CRC catalogue: proves the
    /// polynomial and the bit order, independently of zlib.
    @Test func theStandardCheckValue() throws {
        let folder = try Media.folder("crc")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("check").path
        try Media.write(Array("123456789".utf8), to: path)
        #expect(try EditChecksums(path: path, edit: .none).current == 0xCBF4_3926)
    }

    /// The checksum predicted for the edited file equals the one of the file edited for real, for
    /// a replacement, an insertion, a removal and a splice at either end, on a file larger than
    /// the 1 MiB read buffer.
    @Test(arguments: [
        [ByteSplice(offset: 10, old: [0, 1, 2], new: [9, 9, 9])],
        [ByteSplice(offset: 0, old: [], new: [1, 2, 3, 4])],
        [ByteSplice(offset: 1_500_000, old: Array(repeating: 7, count: 20), new: [])],
        [ByteSplice(offset: 5, old: [5], new: [6, 6]), ByteSplice(offset: 2_999_999, old: [0x2A], new: [0x2B])],
        [ByteSplice(offset: 3_000_000, old: [], new: [0xFF])],
    ])
    func thePredictionMatchesTheEditedFile(splices: [ByteSplice]) throws {
        let folder = try Media.folder("crc-edit")
        defer { try? FileManager.default.removeItem(at: folder) }
        var original = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        // Make each splice's `old` bytes be there.
        for splice in splices {
            original.replaceSubrange(Int(splice.offset)..<Int(splice.offset) + splice.old.count, with: splice.old)
        }
        let edit = try FileEdit(splices)
        let path = folder.appendingPathComponent("file").path
        try Media.write(original, to: path)
        let predicted = try EditChecksums(path: path, edit: edit)
        #expect(predicted.holdsOldBytes)
        let editedPath = folder.appendingPathComponent("edited").path
        try Media.write(edit.applied(to: original), to: editedPath)
        #expect(try EditChecksums(path: editedPath, edit: .none).current == predicted.edited)
        // And back: the inverse on the edited file predicts the original's checksum.
        let back = try EditChecksums(path: editedPath, edit: edit.inverse)
        #expect(back.holdsOldBytes)
        #expect(back.edited == predicted.current)
    }

    @Test func aFileWithoutTheOldBytesIsSaidSo() throws {
        let folder = try Media.folder("crc-miss")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("f").path
        try Media.write([1, 2, 3, 4], to: path)
        #expect(
            try !EditChecksums(path: path, edit: try FileEdit([ByteSplice(offset: 1, old: [9], new: [8])]))
                .holdsOldBytes)
        #expect(
            try !EditChecksums(path: path, edit: try FileEdit([ByteSplice(offset: 3, old: [4, 5], new: [8])]))
                .holdsOldBytes)
    }
}

@Suite struct JournalTests {
    static func entry(path: String) throws -> JournalEntry {
        JournalEntry(
            status: .written, id: "1-2-3", path: path, format: "jpeg", mode: "replace", orientationBefore: 6,
            orientationAfter: nil,
            before: FileState(size: 10, mtimeNanoseconds: 1_700_000_000_123_456_789, crc32: 0x0000_ABCD),
            after: FileState(size: 12, mtimeNanoseconds: nil, crc32: 0xFFFF_FFFF),
            edit: try FileEdit([
                ByteSplice(offset: 2, old: [], new: [0xDE, 0xAD]), ByteSplice(offset: 5, old: [0x00], new: [0x0A]),
            ]))
    }

    /// Every key, a name that is not UTF-8 (by its bytes), and the splices' bytes survive a round trip.
    @Test func linesReadBackAsWritten() throws {
        let folder = try Media.folder("journal")
        defer { try? FileManager.default.removeItem(at: folder) }
        let journal = folder.appendingPathComponent("j.jsonl").path
        let odd = String(pathBytes: Array((folder.path + "/caf").utf8) + [0xE9] + Array(".jpg".utf8))
        let file = try JournalFile(path: journal)
        try file.append(try JournalTests.entry(path: odd))
        try file.append(try JournalTests.entry(path: "plain.jpg"))
        let read = try JournalFile.read(path: journal)
        #expect(read.warnings.isEmpty)
        #expect(read.entries == [try JournalTests.entry(path: odd), try JournalTests.entry(path: "plain.jpg")])
        #expect(read.entries[0].path.pathBytes.last(where: { $0 > 0x7F }) == 0xE9)
        let text = String(decoding: try Media.read(journal), as: UTF8.self)
        let first = try #require(
            try JSONSerialization.jsonObject(with: Data(text.split(separator: "\n")[0].utf8)) as? [String: Any])
        #expect(
            Set(first.keys) == [
                "schema_version", "status", "id", "path", "path_bytes", "target", "target_bytes", "format", "mode",
                "orientation_before", "orientation_after", "before", "after", "splices", "original", "original_bytes",
                "reason",
            ])
        #expect((first["before"] as? [String: Any])?["crc32"] as? String == "0000abcd")
        #expect((first["after"] as? [String: Any])?["mtime_ns"] is NSNull)
        #expect(((first["splices"] as? [[String: Any]])?.first)?["new"] as? String == "dead")
        #expect(first["path_bytes"] as? String == String(odd.pathBytesHex ?? ""))
        // A journal from before normalize kept originals has no `original`: it reads as nil.
        let older = journal + ".older"
        let line = text.split(separator: "\n")[1].replacing("\"original\":null,\"original_bytes\":null,", with: "")
        #expect(!line.contains("original"))
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: older))
        #expect(try JournalFile.read(path: older).entries == [try JournalTests.entry(path: "plain.jpg")])
    }

    /// A last line cut short (the process killed inside its write) is skipped with a warning;
    /// garbage anywhere else is an error, never guessed around.
    @Test func aCutLastLineIsSkippedAndGarbageElsewhereRefused() throws {
        let folder = try Media.folder("journal-cut")
        defer { try? FileManager.default.removeItem(at: folder) }
        let journal = folder.appendingPathComponent("j.jsonl").path
        let file = try JournalFile(path: journal)
        try file.append(try JournalTests.entry(path: "a.jpg"))
        let whole = try Media.read(journal)
        try Media.write(whole + whole.prefix(40), to: journal)
        let read = try JournalFile.read(path: journal)
        #expect(read.entries.count == 1)
        #expect(read.warnings.count == 1)
        try Media.write(Array("{\"nope\":1}\n".utf8) + whole, to: journal)
        #expect(throws: VidorientError.self) { try JournalFile.read(path: journal) }
    }

    @Test func aJournalPathThatIsNotARegularFileIsRefused() throws {
        let folder = try Media.folder("journal-dir")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: VidorientError.self) { try JournalFile(path: folder.path) }
        let fifo = folder.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(throws: VidorientError.self) { try JournalFile(path: fifo) }
    }
}

@Suite struct UndoTests {
    /// Fixes `name` with `edit` through the journal and the one writer, then undoes it.
    static func fixJournaled(_ path: String, edit: FileEdit, mode: FileWriteMode, journal: JournalFile) throws {
        let planned = PlannedWrite(
            path: path, format: "test", mode: mode.name, orientationBefore: .right, orientationAfter: .up, edit: edit)
        try journal.record(planned) { () throws(VidorientError) in
            _ = try EditWriter.write(edit, path: path, mode: mode) { _ in }
        }
    }

    static func undoWriter(_ path: String, _ change: EditWriter.Change, _ inPlace: Bool) throws(VidorientError) {
        _ = try EditWriter.write(change, path: path, mode: inPlace ? .inPlace : .replace) { _ in }
    }

    /// A video's matrix (in place and replaced) and a JPEG insertion: the journal records the
    /// checksums of the real files, and undo gives back the original bytes and mtime.
    @Test(arguments: [("orient-6.mp4", "in_place"), ("orient-3-hevc.mov", "replace"), ("no-exif.jpg", "replace")])
    func undoGivesBackTheOriginal(name: String, modeName: String) throws {
        let folder = try Media.folder("undo")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        let original = try Media.bytes(name)
        try Media.write(original, to: path)
        let mode: FileWriteMode = modeName == "in_place" ? .inPlace : .replace
        // A video gets a new matrix planned by MatrixFix; the JPEG a new APP1 after its APP0.
        let edit: FileEdit
        if name.hasSuffix(".jpg") {
            edit = try FileEdit([ByteSplice(offset: 20, old: [], new: [0xFF, 0xE1, 0x00, 0x04, 0x41, 0x42])])
        } else {
            edit = try MatrixFix(try MovieStructure(path: path), change: .set(.left)).edit
        }
        #expect(!edit.isEmpty)
        let before = try #require(fileStatus(path))
        let journalPath = folder.appendingPathComponent("j.jsonl").path
        try UndoTests.fixJournaled(path, edit: edit, mode: mode, journal: try JournalFile(path: journalPath))
        let fixed = try Media.read(path)
        #expect(fixed == edit.applied(to: original))

        let entries = try JournalFile.read(path: journalPath).entries
        #expect(entries.map(\.status) == [.writing, .written])
        let written = try #require(entries.last)
        #expect(
            written.before
                == FileState(
                    size: Int64(original.count), mtimeNanoseconds: before.mtimeNanoseconds, crc32: written.before.crc32)
        )
        #expect(
            written.before.crc32
                == (try EditChecksums(path: Media.root.appendingPathComponent(name).path, edit: .none)).current)
        #expect(written.after.crc32 == (try EditChecksums(path: path, edit: .none)).current)
        #expect(written.after.size == Int64(fixed.count))
        #expect(written.after.mtimeNanoseconds == fileStatus(path)?.mtimeNanoseconds)
        #expect(written.edit == edit)

        let fixes = Undo.fixes(in: entries)
        #expect(fixes.count == 1)
        #expect(try Undo.undo(fixes[0], write: UndoTests.undoWriter) == .restored)
        #expect(try Media.read(path) == original)
        #expect(fileStatus(path)?.mtimeNanoseconds == before.mtimeNanoseconds)
    }

    /// Changed since the fix: one byte elsewhere (same size, mtime put back), the size, or only
    /// the mtime. Each is refused and the file left exactly as it was found.
    @Test(arguments: ["byte", "size", "mtime"])
    func aFileChangedSinceIsRefused(change: String) throws {
        let folder = try Media.folder("undo-changed")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("v.mp4").path
        try Media.write(try Media.bytes("orient-6.mp4"), to: path)
        let edit = try MatrixFix(try MovieStructure(path: path), change: .set(.up)).edit
        let journalPath = folder.appendingPathComponent("j.jsonl").path
        try UndoTests.fixJournaled(path, edit: edit, mode: .inPlace, journal: try JournalFile(path: journalPath))
        let entry = try #require(Undo.fixes(in: try JournalFile.read(path: journalPath).entries).first)
        var bytes = try Media.read(path)
        switch change {
        case "byte": bytes[bytes.count - 3] ^= 0x01
        case "size": bytes.append(0)
        default: break
        }
        try Media.write(bytes, to: path)
        if change != "mtime" {
            // Put the recorded mtime back: only the bytes (or the size) tell.
            let mtime = try #require(entry.after.mtimeNanoseconds)
            var times = [
                timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),
                timespec(tv_sec: Int(mtime / 1_000_000_000), tv_nsec: Int(mtime % 1_000_000_000)),
            ]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        }
        let found = try Media.read(path)
        #expect(throws: VidorientError.self) { try Undo.undo(entry, write: UndoTests.undoWriter) }
        #expect(try Media.read(path) == found)
    }

    /// Killed between `writing` and `written`: a file still the original needs nothing.
    @Test func aFixNeverWrittenIsNothingToUndo() throws {
        let folder = try Media.folder("undo-never")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("v.mp4").path
        let original = try Media.bytes("orient-6.mp4")
        try Media.write(original, to: path)
        let edit = try MatrixFix(try MovieStructure(path: path), change: .set(.up)).edit
        let sums = try EditChecksums(path: path, edit: edit)
        let entry = JournalEntry(
            status: .writing, id: "x", path: path, format: "movie", mode: "in_place", orientationBefore: 6,
            orientationAfter: 1,
            before: FileState(
                size: sums.size, mtimeNanoseconds: fileStatus(path)?.mtimeNanoseconds, crc32: sums.current),
            after: FileState(size: sums.size, mtimeNanoseconds: nil, crc32: sums.edited), edit: edit)
        #expect(try Undo.undo(entry, write: UndoTests.undoWriter) == .neverWritten)
        #expect(try Media.read(path) == original)
    }

    /// The last line of each fix counts; `not_written` fixes are left out; newest first.
    @Test func fixesAreTakenNewestFirst() throws {
        var a = try JournalTests.entry(path: "a")
        a.id = "1"
        a.status = .writing
        var aDone = a
        aDone.status = .written
        var b = a
        b.id = "2"
        var bFailed = b
        bFailed.status = .notWritten
        var c = a
        c.id = "3"
        #expect(Undo.fixes(in: [a, b, aDone, bFailed, c]).map(\.id) == ["3", "1"])
        #expect(Undo.fixes(in: [a, b, aDone, bFailed, c]).map(\.status) == [.writing, .written])
    }
}

@Suite struct AuditedFixTests {
    static func line(_ findings: String, path: String = "/x/a.mp4", pathBytes: String = "null", shown: Int = 6)
        -> String
    {
        "{\"findings\":[\(findings)],\"path\":\"\(path)\",\"path_bytes\":\(pathBytes),\"schema_version\":2,"
            + "\"video\":{\"exif_orientation\":\(shown)},\"photo\":null}"
    }

    static func finding(_ code: String, _ fix: String) -> String {
        "{\"code\":\"\(code)\",\"severity\":\"warning\",\"message\":\"m\",\"action\":null,\"suggested_fix\":\(fix)}"
    }

    @Test func takesTheSuggestedFixAndNothingElse() throws {
        let none = AuditedFixTests.line(AuditedFixTests.finding("mirrored", "null"))
        #expect(try AuditedFix.parse(line: none) == nil)
        let both = AuditedFixTests.line(
            AuditedFixTests.finding("matrix-scale", "{\"orientation\":6,\"reset_movie_matrix\":false}") + ","
                + AuditedFixTests.finding("movie-matrix", "{\"orientation\":6,\"reset_movie_matrix\":true}"))
        let fix = try #require(try AuditedFix.parse(line: both))
        #expect(
            fix
                == AuditedFix(
                    path: "/x/a.mp4", orientation: .right, resetMovieMatrix: true,
                    codes: ["matrix-scale", "movie-matrix"], shownAtAudit: .right))
    }

    @Test func disagreeingFixesAndOtherLinesAreRefused() throws {
        let clash = AuditedFixTests.line(
            AuditedFixTests.finding("matrix-scale", "{\"orientation\":6,\"reset_movie_matrix\":false}") + ","
                + AuditedFixTests.finding("movie-matrix", "{\"orientation\":3,\"reset_movie_matrix\":true}"))
        #expect(throws: VidorientError.self) { try AuditedFix.parse(line: clash) }
        #expect(throws: VidorientError.self) { try AuditedFix.parse(line: "{\"files\":[]}") }
        #expect(throws: VidorientError.self) { try AuditedFix.parse(line: "not json") }
    }

    /// A record with a content judgment (`content-sideways`, confidence 0.8) and, when given, the
    /// review page's `approved` mark.
    static func judged(approved: String? = nil, also: String = "") -> String {
        let line = AuditedFixTests.line(
            AuditedFixTests.finding("content-sideways", "{\"orientation\":8,\"reset_movie_matrix\":false}") + also,
            shown: 1)
        return String(line.dropLast()) + ",\"content\":{\"confidence\":0.8,\"verdict\":\"sideways\"}"
            + (approved.map { ",\"approved\":\($0)" } ?? "") + "}"
    }

    /// A judgment is applied only when the list marks it approved or `--only` names its code;
    /// a tag finding needs neither (issue 29).
    @Test func aJudgmentNeedsApprovalOrItsCodeNamed() throws {
        #expect(try AuditedFix.parse(line: Self.judged()) == nil)
        #expect(try AuditedFix.parse(line: Self.judged(approved: "false")) == nil)
        #expect(try AuditedFix.parse(line: Self.judged(approved: "true"))?.orientation == .left)
        let named = AuditSelection(only: ["content-sideways"])
        #expect(try AuditedFix.parse(line: Self.judged(), selection: named)?.codes == ["content-sideways"])
        // A tag finding beside it stands alone when the judgment is held back.
        let both = Self.judged(
            also: "," + AuditedFixTests.finding("exif-invalid", "{\"orientation\":1,\"reset_movie_matrix\":false}"))
        #expect(try AuditedFix.parse(line: both)?.codes == ["exif-invalid"])
        #expect(throws: VidorientError.self) {
            try AuditedFix.parse(line: both, selection: AuditSelection(only: ["content-sideways", "exif-invalid"]))
        }
        let why = AuditSelection().choose(code: "content-sideways", confidence: 0.8, approved: false)
        #expect(
            why
                == .hold(
                    because:
                        "a judgment, confidence 0.8, not approved: approve it on the review page (audit --html) or name content-sideways in --only"
                ))
        #expect(
            AuditSelection().choose(code: "content-sideways", confidence: 0.8, approved: true)
                == .apply(because: "approved in the list, confidence 0.8"))
    }

    @Test func onlySkipAndTheConfidenceFloorChoose() throws {
        let tag = AuditedFixTests.line(
            AuditedFixTests.finding("matrix-scale", "{\"orientation\":6,\"reset_movie_matrix\":false}"))
        #expect(try AuditedFix.parse(line: tag, selection: AuditSelection(skip: ["matrix-scale"])) == nil)
        #expect(try AuditedFix.parse(line: tag, selection: AuditSelection(only: ["mirrored"])) == nil)
        #expect(try AuditedFix.parse(line: tag, selection: AuditSelection(only: ["matrix-scale"])) != nil)
        // The floor holds judgments only: a tag finding has no confidence and is not held to it.
        #expect(try AuditedFix.parse(line: tag, selection: AuditSelection(minimumConfidence: 0.99)) != nil)
        let approved = Self.judged(approved: "true")
        #expect(try AuditedFix.parse(line: approved, selection: AuditSelection(minimumConfidence: 0.8)) != nil)
        #expect(try AuditedFix.parse(line: approved, selection: AuditSelection(minimumConfidence: 0.9)) == nil)
        #expect(
            AuditSelection(minimumConfidence: 0.9).choose(code: "content-sideways", confidence: 0.8, approved: true)
                == .hold(because: "confidence 0.8 is below --min-confidence 0.9"))
        #expect(
            try AuditedFix.parse(line: approved, selection: AuditSelection(skip: ["content-sideways"])) == nil)
    }

    /// `path_bytes` names the file when its name is not UTF-8.
    @Test func pathBytesNameTheFile() throws {
        let line = AuditedFixTests.line(
            AuditedFixTests.finding("matrix-scale", "{\"orientation\":6,\"reset_movie_matrix\":false}"),
            path: "caf\\\\xE9.mp4",
            pathBytes: "\"636166e92e6d7034\"")
        let fix = try #require(try AuditedFix.parse(line: line))
        #expect(fix.path.pathBytes == Array("caf".utf8) + [0xE9] + Array(".mp4".utf8))
    }
}
