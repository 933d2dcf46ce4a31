import Foundation
import Testing
import VidorientTestSupport

/// A fix journal and an audit's output as crafted input (issue 23): `fix --undo` writes only to
/// the files it fixed, as it left them, and says why per file; `fix --from-audit` applies only
/// well-formed suggestions and says each refusal in one line.
@Suite struct CraftedListTests {
    static func lines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    static func write(_ objects: [[String: Any]], to path: String) throws {
        let text = try objects.map {
            String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self)
        }.joined(separator: "\n")
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Edited paths: to a copy of the fixed file outside the folder (the same bytes, another
    /// file), to an unrelated photo, to a path of another machine. Each is refused with its
    /// reason, nothing is written anywhere.
    @Test func undoOfAnEditedJournalTouchesNothingItDidNotFix() throws {
        let folder = try FixFixture.folder("crafted-journal")
        let elsewhere = try FixFixture.folder("crafted-journal-elsewhere")
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        let fixed = try FixFixture.copy("orient-6.jpg", to: folder)
        let journal = folder.appendingPathComponent("fixes.jsonl").path
        #expect(try Run.vidorient(["fix", "--orientation", "1", "--journal", journal, fixed]).status == 0)
        let copy = elsewhere.appendingPathComponent("copy.jpg").path
        try FileManager.default.copyItem(atPath: fixed, toPath: copy)
        let unrelated = try FixFixture.copy("orient-8.jpg", to: elsewhere)
        let entries = try Self.lines(journal)
        #expect(entries.count == 2)

        let cases: [(String, String)] = [
            (copy, "it changed since the fix"), (unrelated, "it changed since the fix"),
            ("/nonexistent-machine/home/orient-6.jpg", "no such file or directory"),
        ]
        for (path, reason) in cases {
            let edited = folder.appendingPathComponent("edited.jsonl").path
            try Self.write(
                entries.map {
                    var entry = $0
                    entry["path"] = path
                    entry["target"] = path
                    return entry
                }, to: edited)
            let before = try [copy, unrelated, fixed].map(FixFixture.contents)
            let undo = try Run.vidorient(["fix", "--undo", edited])
            #expect(undo.status == 2, "\(path): \(undo.stderr)")
            #expect(undo.stderrLines.count == 2, "\(path): \(undo.stderr)")
            #expect(
                undo.stderrLines.first?.hasPrefix("vidorient: could not undo '\(path)': \(reason)") == true,
                "\(undo.stderr)")
            #expect(try [copy, unrelated, fixed].map(FixFixture.contents) == before, "\(path): a file was written")
        }

        // Lines of one fix that name two files: an edited journal, refused whole (the older line
        // was dropped without a word).
        let mixed = folder.appendingPathComponent("mixed.jsonl").path
        var second = entries[1]
        second["path"] = unrelated
        second["target"] = unrelated
        try Self.write([entries[0], entries[1], second], to: mixed)
        let undo = try Run.vidorient(["fix", "--undo", mixed])
        #expect(undo.status == 2)
        #expect(undo.stderrLines.count == 1, "\(undo.stderr)")
        #expect(undo.stderr.contains("(an edited journal); nothing undone"), "\(undo.stderr)")
        #expect(try FixFixture.contents(unrelated) == (try FixFixture.contents(Run.media("orient-8.jpg"))))
    }

    /// `fix --from-audit` on crafted lines: suggested orientations out of range or of the wrong
    /// type, `path_bytes` that are not a path; and, applied, a name with a newline, a path through
    /// `..`, an absolute path into another folder.
    @Test func fromAuditAppliesOnlyWellFormedSuggestions() throws {
        let folder = try FixFixture.folder("crafted-audit")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try FixFixture.copy("scaled-2x.mp4", to: folder)
        let original = try FixFixture.contents(clip)
        let audit = try Run.vidorient(["audit", "--jsonl", clip])
        let record = try #require(try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [String: Any])
        func variant(path: String? = nil, pathBytes: Any? = nil, orientation: Any? = nil) -> [String: Any] {
            var copy = record
            // Another file than the one audited: what identified that one does not name it.
            if let path {
                copy["path"] = path
                copy["file"] = NSNull()
            }
            if let pathBytes { copy["path_bytes"] = pathBytes }
            if let orientation {
                copy["findings"] = (record["findings"] as! [[String: Any]]).map { finding in
                    var finding = finding
                    if var fix = finding["suggested_fix"] as? [String: Any] {
                        fix["orientation"] = orientation
                        finding["suggested_fix"] = fix
                    }
                    return finding
                }
            }
            return copy
        }
        let refused: [([String: Any], String)] = [
            (variant(orientation: 0), "the audit suggests orientation 0, which is not 1-8"),
            (variant(orientation: 9), "the audit suggests orientation 9, which is not 1-8"),
            (variant(orientation: -1), "the audit suggests orientation -1, which is not 1-8"),
            (variant(orientation: 4_294_967_302), "the audit suggests orientation 4294967302, which is not 1-8"),
            (variant(orientation: "6"), "'findings.0.suggested_fix.orientation' is not an integer"),
            (variant(orientation: NSNull()), "'findings.0.suggested_fix.orientation' is null, not an integer"),
            (variant(pathBytes: "zz"), "'path_bytes': not hex digits"),
            (variant(pathBytes: "abc"), "'path_bytes': not hex digits"),
            (variant(pathBytes: ""), "'path_bytes': empty"),
        ]
        let input = folder.appendingPathComponent("crafted.jsonl").path
        try Self.write(refused.map(\.0), to: input)
        let run = try Run.vidorient(["fix", "--from-audit", input])
        #expect(run.status == 2)
        #expect(run.stderrLines.count == refused.count + 1, "\(run.stderr)")
        for (index, (_, reason)) in refused.enumerated() {
            let line = run.stderrLines.count > index ? String(run.stderrLines[index]) : ""
            #expect(line.hasPrefix("vidorient: could not read the audit on '\(input)', line \(index + 1): "), "\(line)")
            #expect(line.hasSuffix(reason), "\(line)")
        }
        #expect(try FixFixture.contents(clip) == original, "a refused suggestion was applied")
        #expect(try FixFixture.leftovers(folder).isEmpty)

        // Well-formed ones are applied to the file they name, however it is named.
        let other = try FixFixture.folder("crafted-audit-other")
        defer { try? FileManager.default.removeItem(at: other) }
        let newline = folder.appendingPathComponent("two\nlines.mp4").path
        try FileManager.default.copyItem(atPath: clip, toPath: newline)
        let absolute = other.appendingPathComponent("abs.mp4").path
        try FileManager.default.copyItem(atPath: clip, toPath: absolute)
        try FileManager.default.createDirectory(atPath: folder.path + "/sub", withIntermediateDirectories: false)
        let good = folder.appendingPathComponent("crafted-good.jsonl").path
        try Self.write(
            [
                variant(path: newline), variant(path: other.path + "/../" + other.lastPathComponent + "/abs.mp4"),
                variant(path: folder.path + "/sub/../scaled-2x.mp4"),
            ], to: good)
        let applied = try Run.vidorient(["fix", "--from-audit", good])
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(
            applied.stderrLines == ["vidorient: fixed 3, already right 0, refused 0, failed 0"], "\(applied.stderr)")
        for path in [newline, absolute, clip] {
            #expect(try FixFixture.contents(path) != original, "\(path) was not fixed")
        }
    }
}
