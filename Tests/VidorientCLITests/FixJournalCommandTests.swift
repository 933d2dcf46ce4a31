import Foundation
import Testing
import VidorientCore
import VidorientISOBMFF
import VidorientTestSupport

/// `fix --journal`, `fix --undo` and `fix --from-audit`, run as a user runs them.
enum JournalFixture {
    /// `fix` (of `problemLibrary`'s audit) fixed the three files whose fix is safe and no other.
    static func expectTheSafeThreeFixed(by fix: Run, in library: URL, was original: [String: Data]) throws {
        #expect(fix.status == 0, "\(fix.stderr)")
        #expect(fix.stderr == "vidorient: fixed 3, already right 0, refused 0, failed 0\n")
        let fixed = try snapshot(library)
        #expect(
            Set(fixed.keys.filter { fixed[$0] != original[$0] }) == [
                "scaled-2x.mp4", "movie-matrix.mp4", "invalid.jpg",
            ])
    }

    /// A fresh folder holding a copy of orient-6.mp4 and one of orient-6.jpg, and the path its
    /// journal takes.
    static func clipAndPhoto(_ name: String) throws -> (folder: URL, clip: String, photo: String, journal: String) {
        let folder = try FixFixture.folder(name)
        return (
            folder, try FixFixture.copy("orient-6.mp4", to: folder), try FixFixture.copy("orient-6.jpg", to: folder),
            folder.appendingPathComponent("fixes.jsonl").path
        )
    }

    /// orient-1.mp4 with a movie matrix (mvhd) that turns it 90°: the audit's `movie-matrix`.
    static func rotatedMovieMatrix(at path: String) throws {
        try FileManager.default.copyItem(atPath: Run.media("orient-1.mp4"), toPath: path)
        var bytes = [UInt8](try FixFixture.contents(path))
        let offset = Int(try MovieStructure(path: path).movieHeader.matrix.offset)
        let rotate90 = FixFixture.apple(6, width: 160, height: 96)
        bytes.replaceSubrange(
            offset..<offset + 36, with: rotate90.flatMap { withUnsafeBytes(of: $0.bigEndian, Array.init) })
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// orient-6.jpg with its EXIF Orientation set to 0 (big-endian IFD0 entry 0112, SHORT, 1):
    /// the audit's `exif-invalid`.
    static func invalidOrientationJPEG(at path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.media("orient-6.jpg"))))
        let entry: [UInt8] = [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06]
        let index = try #require(
            (0...bytes.count - entry.count).first { bytes[$0..<$0 + entry.count].elementsEqual(entry) })
        bytes[index + 9] = 0
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// A library with known problems, in `folder`/library: three files whose fix is safe (a scaled
    /// matrix, a movie matrix, an EXIF orientation of 0), two whose findings need a person (a
    /// mirror) or none at all.
    static func problemLibrary(in folder: URL) throws -> URL {
        let library = folder.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        _ = try FixFixture.copy("scaled-2x.mp4", to: library)
        _ = try FixFixture.copy("orient-2.mp4", to: library)
        _ = try FixFixture.copy("orient-6.jpg", to: library)
        try rotatedMovieMatrix(at: library.appendingPathComponent("movie-matrix.mp4").path)
        try invalidOrientationJPEG(at: library.appendingPathComponent("invalid.jpg").path)
        return library
    }

    static func snapshot(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasSuffix(".jsonl") {
            files[name] = try FixFixture.contents(folder.appendingPathComponent(name).path)
        }
        return files
    }

    static func lines(_ path: String) throws -> [[String: Any]] {
        let text = String(decoding: try FixFixture.contents(path), as: UTF8.self)
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The suggested fixes of an audit's JSONL: (path, code) pairs.
    static func suggestions(_ jsonl: String) -> [String] {
        jsonl.split(separator: "\n").flatMap { line -> [String] in
            guard let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let findings = record["findings"] as? [[String: Any]]
            else { return [] }
            let name = (record["path"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } ?? "?"
            return findings.filter { !($0["suggested_fix"] is NSNull) && $0["suggested_fix"] != nil }.map {
                "\(name) \($0["code"]!)"
            }
        }.sorted()
    }

    /// Runs a shell pipeline (for `audit … | fix --from-audit -`).
    static func shell(_ script: String) throws -> Run {
        try Run.vidorient([], prefix: ["sh", "-c", script, Run.binary.path])
    }
}

@Suite
struct FixJournalCommandTests {
    /// Videos (matrix) and photos (a tag changed in place, a new APP1 inserted), replaced and in
    /// place: the journal holds one `writing` and one `written` line a file, and `--undo` gives
    /// back every file byte for byte.
    @Test(arguments: [[String](), ["--in-place"]])
    func journalThenUndoGivesBackEveryByte(options: [String]) throws {
        let folder = try FixFixture.folder("journal")
        defer { try? FileManager.default.removeItem(at: folder) }
        var names = ["orient-6.mp4", "orient-3-hevc.mov", "orient-6.jpg", "orient-5.png"]
        if options.isEmpty { names.append("no-exif.jpg") }  // an insertion cannot be written in place
        let paths = try names.map { try FixFixture.copy($0, to: folder) }
        let original = try JournalFixture.snapshot(folder)
        let journal = folder.appendingPathComponent("fixes.jsonl").path

        let fix = try Run.vidorient(["fix", "--orientation", "8", "--journal", journal] + options + paths)
        #expect(fix.status == 0, "\(fix.stderr)")
        #expect(fix.stderrLines.last == "vidorient: fixed \(names.count), already right 0, refused 0, failed 0")
        let changed = try JournalFixture.snapshot(folder)
        #expect(names.allSatisfy { changed[$0] != original[$0] })
        let lines = try JournalFixture.lines(journal)
        #expect(lines.count == 2 * names.count)
        #expect(lines.filter { $0["status"] as? String == "written" }.count == names.count)
        for line in lines where line["status"] as? String == "written" {
            #expect(line["schema_version"] as? Int == 1)
            #expect(line["orientation_after"] as? Int == 8)
            #expect(line["mode"] as? String == (options.isEmpty ? "replace" : "in_place"))
            let after = try #require(line["after"] as? [String: Any])
            let name = URL(fileURLWithPath: try #require(line["path"] as? String)).lastPathComponent
            #expect(after["size"] as? Int == changed[name]?.count)
            #expect((line["splices"] as? [[String: Any]])?.isEmpty == false)
        }

        let undo = try Run.vidorient(["fix", "--undo", journal])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(undo.stdout.split(separator: "\n").count == names.count)
        #expect(undo.stderr == "vidorient: restored \(names.count), nothing to undo 0, refused 0\n")
        #expect(try JournalFixture.snapshot(folder) == original)
    }

    /// `--undo --dry-run` checks every file and writes none; `--undo` run twice says "already
    /// undone" for a file that is the original again (issue 24: it said "changed since the fix"
    /// and exited 2), also for a file fixed twice, whose newest fix alone cannot tell.
    @Test func undoDryRunThenUndoTwice() throws {
        let (folder, once, twice, journal) = try JournalFixture.clipAndPhoto("undo-twice")
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = try JournalFixture.snapshot(folder)
        #expect(try Run.vidorient(["fix", "--orientation", "8", "--journal", journal, once, twice]).status == 0)
        #expect(try Run.vidorient(["fix", "--orientation", "3", "--journal", journal, twice]).status == 0)
        let fixed = try JournalFixture.snapshot(folder)

        let dry = try Run.vidorient(["fix", "--undo", journal, "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stderr == "vidorient: would restore 3, nothing to undo 0, refused 0\n")
        #expect(
            dry.stdout.split(separator: "\n").filter { $0.contains(": would restore (") }.count == 3, "\(dry.stdout)")
        #expect(try JournalFixture.snapshot(folder) == fixed, "a dry run writes nothing")

        let undo = try Run.vidorient(["fix", "--undo", journal])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(undo.stderr == "vidorient: restored 3, nothing to undo 0, refused 0\n")
        #expect(try JournalFixture.snapshot(folder) == original)

        let again = try Run.vidorient(["fix", "--undo", journal])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr == "vidorient: restored 0, nothing to undo 3, refused 0\n")
        #expect(
            again.stdout.split(separator: "\n").filter { $0.contains(": already undone (it is the original") }.count
                == 3)
        #expect(try JournalFixture.snapshot(folder) == original)
    }

    /// The journal as input (issue 23): a symbolic link put in a fixed file's place, leading to a
    /// copy of the fixed file, is refused (undo wrote through it before); a file fixed through a
    /// link from the start is undone through it.
    @Test func undoNeverWritesThroughALinkTheFixDidNotGoThrough() throws {
        let folder = try FixFixture.folder("undo-link")
        defer { try? FileManager.default.removeItem(at: folder) }
        let manager = FileManager.default
        let swapped = try FixFixture.copy("orient-6.jpg", to: folder)
        let elsewhere = folder.appendingPathComponent("elsewhere")
        try manager.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let real = elsewhere.appendingPathComponent("real.jpg").path
        try manager.copyItem(atPath: Run.media("orient-5.jpg"), toPath: real)
        let linked = folder.appendingPathComponent("linked.jpg").path
        try manager.createSymbolicLink(atPath: linked, withDestinationPath: real)
        let journal = folder.appendingPathComponent("fixes.jsonl").path
        #expect(try Run.vidorient(["fix", "--orientation", "1", "--journal", journal, swapped, linked]).status == 0)
        let fixedReal = try FixFixture.contents(real)

        // The fixed file moved away, a link to it left in its place: the same bytes, another file.
        let moved = elsewhere.appendingPathComponent("moved.jpg").path
        try manager.moveItem(atPath: swapped, toPath: moved)
        try manager.createSymbolicLink(atPath: swapped, withDestinationPath: moved)
        let fixedMoved = try FixFixture.contents(moved)

        let undo = try Run.vidorient(["fix", "--undo", journal])
        #expect(undo.status == 2)
        #expect(
            undo.stderrLines.first?.hasPrefix(
                "vidorient: could not undo '\(swapped)': it is not the file the fix wrote: it leads to '\(moved)' now")
                == true, "\(undo.stderr)")
        #expect(undo.stderrLines.last == "vidorient: restored 1, nothing to undo 0, refused 1")
        #expect(try FixFixture.contents(moved) == fixedMoved, "nothing written through the new link")
        #expect(try manager.destinationOfSymbolicLink(atPath: swapped) == moved)
        // Fixed through its link, undone through it: the file behind it is the original again.
        #expect(try FixFixture.contents(real) != fixedReal)
        #expect(try FixFixture.contents(real) == FixFixture.contents(Run.media("orient-5.jpg")))
        #expect(try manager.destinationOfSymbolicLink(atPath: linked) == real)
    }

    /// A file changed after its fix is refused with one line, the others are restored, exit 2.
    @Test func undoRefusesAFileChangedSinceAndGoesOn() throws {
        let (folder, kept, touched, journal) = try JournalFixture.clipAndPhoto("undo-changed")
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = try FixFixture.contents(kept)
        #expect(try Run.vidorient(["fix", "--reset", "--journal", journal, kept, touched]).status == 0)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: touched))
        try handle.seekToEnd()
        handle.write(Data([0]))
        try handle.close()
        let edited = try FixFixture.contents(touched)

        let undo = try Run.vidorient(["fix", "--undo", journal])
        #expect(undo.status == 2)
        #expect(undo.stderrLines.count == 2, "\(undo.stderr)")
        #expect(
            undo.stderrLines.first?.hasPrefix("vidorient: could not undo '\(touched)': it changed since the fix")
                == true)
        #expect(undo.stderrLines.last == "vidorient: restored 1, nothing to undo 0, refused 1")
        #expect(try FixFixture.contents(kept) == original)
        #expect(try FixFixture.contents(touched) == edited)
    }

    /// The loop of issue 10 on a library with known problems: three files whose fix is safe (a
    /// scaled matrix, a movie matrix, an EXIF orientation of 0), two whose findings need a
    /// person (a mirror) or none at all. `audit | fix --from-audit -` fixes exactly the three;
    /// the next audit suggests nothing; `--undo` gives back every byte.
    @Test func auditFixAuditThenUndo() throws {
        let folder = try FixFixture.folder("cycle")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try JournalFixture.problemLibrary(in: folder)
        let original = try JournalFixture.snapshot(library)
        let journal = folder.appendingPathComponent("fixes.jsonl").path

        let audit = try Run.vidorient(["audit", library.path, "--jsonl"])
        #expect(
            JournalFixture.suggestions(audit.stdout) == [
                "invalid.jpg exif-invalid", "movie-matrix.mp4 movie-matrix", "scaled-2x.mp4 matrix-scale",
            ])
        #expect(audit.stdout.contains("\"code\":\"mirrored\""))

        let dry = try JournalFixture.shell(
            "\"$0\" audit '\(library.path)' --jsonl | \"$0\" fix --from-audit - --dry-run")
        #expect(dry.status == 0, "\(dry.stderr)")
        let dryLines = dry.stdout.split(separator: "\n").sorted()
        #expect(dryLines.count == 3)
        #expect(
            dryLines.first?.hasSuffix(
                "invalid.jpg: no orientation of the eight -> EXIF 1; 1 byte would change (APP1 EXIF IFD0 Orientation: 0 -> 1)"
            ) == true, "\(dryLines)")
        #expect(
            dryLines.contains {
                $0.hasSuffix("movie-matrix.mp4: EXIF 6 -> EXIF 6; 12 bytes would change (track 1 matrix; movie matrix)")
            })
        #expect(dry.stderr == "vidorient: would fix 3, already right 0, refused 0, failed 0\n")
        #expect(try JournalFixture.snapshot(library) == original)

        let fix = try JournalFixture.shell(
            "\"$0\" audit '\(library.path)' --jsonl | \"$0\" fix --from-audit - --journal '\(journal)'")
        try JournalFixture.expectTheSafeThreeFixed(by: fix, in: library, was: original)

        let again = try Run.vidorient(["audit", library.path, "--jsonl"])
        #expect(JournalFixture.suggestions(again.stdout).isEmpty, "\(again.stdout)")
        // What the files show is what they showed: a safe fix changes no picture.
        for name in ["scaled-2x.mp4", "movie-matrix.mp4"] {
            let inspect = try Run.vidorient(["inspect", "--json", library.appendingPathComponent(name).path])
            #expect(((inspect.json as? [String: Any])?["video"] as? [String: Any])?["exif_orientation"] as? Int == 6)
        }

        let undo = try Run.vidorient(["fix", "--undo", journal])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try JournalFixture.snapshot(library) == original)
    }

    /// `audit --json > l.json; fix --from-audit l.json` (issue 24): the one document is read whole,
    /// compact as the audit writes it or pretty as `jq` prints it, and fixes what the JSONL fixes.
    /// Before, each line of the document was read as a JSONL record: all but the last (no comma
    /// after it) were refused, and the last was fixed ("fix 1, failed 2", exit 2). A document cut
    /// short is refused as a whole, with one line, before anything is written; so is `report`'s.
    @Test(arguments: ["compact", "pretty", "truncated"])
    func theAuditsJSONDocumentIsReadWholeOrNotAtAll(form: String) throws {
        let folder = try FixFixture.folder("from-json-\(form)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try JournalFixture.problemLibrary(in: folder)
        let original = try JournalFixture.snapshot(library)

        let audit = try Run.vidorient(["audit", library.path, "--json"])
        #expect(audit.status == 1, "\(audit.stderr)")
        var document = audit.stdout
        #expect(document.split(separator: "\n").count > 3, "the audit's document spans lines")
        switch form {
        case "pretty":
            let object = try JSONSerialization.jsonObject(with: Data(document.utf8))
            document = String(
                decoding: try JSONSerialization.data(withJSONObject: object, options: .prettyPrinted), as: UTF8.self)
        case "truncated": document = String(document.dropLast(40))
        default: break
        }
        let auditPath = folder.appendingPathComponent("audit.json").path
        try Data(document.utf8).write(to: URL(fileURLWithPath: auditPath))

        let fix = try Run.vidorient(["fix", "--from-audit", auditPath])
        let report = try Run.vidorient(["report", auditPath, "-o", folder.appendingPathComponent("page.html").path])
        if form == "truncated" {
            #expect(fix.status == 2)
            #expect(fix.stderrLines.count == 1, "\(fix.stderr)")
            #expect(fix.stderrLines.first?.contains("nor one audit --json document") == true, "\(fix.stderr)")
            #expect(fix.stderrLines.first?.hasSuffix("nothing was done") == true, "\(fix.stderr)")
            #expect(try JournalFixture.snapshot(library) == original)
            #expect(report.status == 2)
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("page.html").path))
            return
        }
        try JournalFixture.expectTheSafeThreeFixed(by: fix, in: library, was: original)
        #expect(report.status == 0, "\(report.stderr)")
        let page = String(
            decoding: try FixFixture.contents(folder.appendingPathComponent("page.html").path), as: UTF8.self)
        #expect(page.contains("movie-matrix.mp4") && page.contains("orient-2.mp4"))
    }

    /// A file changed between the audit and the fix is refused: the audit's view is stale.
    @Test func aFileChangedSinceTheAuditIsRefused() throws {
        let folder = try FixFixture.folder("stale")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("scaled-2x.mp4", to: folder)
        let auditPath = folder.appendingPathComponent("audit.jsonl").path
        let audit = try Run.vidorient(["audit", path, "--jsonl"])
        try Data(audit.stdout.utf8).write(to: URL(fileURLWithPath: auditPath))
        #expect(try Run.vidorient(["fix", path, "--orientation", "3"]).status == 0)
        let turned = try FixFixture.contents(path)
        let fix = try Run.vidorient(["fix", "--from-audit", auditPath])
        #expect(fix.status == 2)
        // Another inode (the fix replaced it), another time and other bytes: the record's `file` differs.
        #expect(
            fix.stderrLines.first?.hasPrefix("vidorient: could not fix '\(path)': it changed since the audit: inode ")
                == true, "\(fix.stderr)")
        #expect(try FixFixture.contents(path) == turned)
    }

    /// A name that is not UTF-8 goes through `audit --jsonl` (as `path_bytes`) into
    /// `fix --from-audit` and the journal, and back through `--undo`.
    @Test func aNameThatIsNotUTF8GoesThroughTheWholeLoop() throws {
        let folder = try FixFixture.folder("non-utf8")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try NonUTF8NameTests.place("scaled-2x.mp4", in: folder, named: NonUTF8NameTests.latin1)
        let original = try NonUTF8NameTests.contents(path)
        let journal = folder.appendingPathComponent("fixes.jsonl").path
        let fix = try JournalFixture.shell(
            "\"$0\" audit '\(folder.path)' --jsonl | \"$0\" fix --from-audit - --journal '\(journal)'")
        #expect(fix.status == 0, "\(fix.stderr)")
        #expect(fix.stdout.contains("caf\\xE9.mp4"))
        #expect(try NonUTF8NameTests.contents(path) != original)
        let written = try #require(try JournalFixture.lines(journal).last)
        #expect(written["path_bytes"] as? String == NonUTF8NameTests.hex(path))
        let undo = try Run.vidorient(["fix", "--undo", journal])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(try NonUTF8NameTests.contents(path) == original)
    }

    @Test(arguments: [
        ["--undo", "j.jsonl", "x.mp4"], ["--undo", "j.jsonl", "--reset"], ["--from-audit", "-", "--orientation", "1"],
        ["--from-audit", "-", "--undo", "j.jsonl"], ["--undo", "j.jsonl", "--in-place"],
        ["x.mp4", "--reset", "-o", "y.mp4", "--journal", "j"],
        ["--from-audit", "-", "--jobs", "0"],
    ])
    func usageErrorsExit64(arguments: [String]) throws {
        let run = try Run.vidorient(["fix"] + arguments)
        #expect(run.status == 64, "\(run.stderr)")
    }

    /// SIGKILL part-way through a parallel batch with a journal: every file is whole, either the
    /// original or the fixed bytes, and the journal describes exactly the files that are new (a
    /// `written` line, or a `writing` line for a kill between the write and its record); `--undo`
    /// then gives back every original.
    @Test func killedBatchLeavesWholeFilesAndAnExactJournal() throws {
        let folder = try FixFixture.folder("kill-batch")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sources = ["orient-6.mp4", "orient-6.jpg", "no-exif.jpg", "orient-3.png"]
        // What each source becomes, fixed on its own.
        var fixedBytes: [String: Data] = [:]
        for source in sources {
            let reference = try FixFixture.copy(source, to: folder, as: "reference-" + source)
            #expect(try Run.vidorient(["fix", "--orientation", "7", reference]).status == 0)
            fixedBytes[source] = try FixFixture.contents(reference)
            try FileManager.default.removeItem(atPath: reference)
        }
        var partlyDone = 0
        for (round, delay) in [0, 3, 10, 30].enumerated() {
            let library = folder.appendingPathComponent("round-\(round)")
            try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
            var paths: [String: String] = [:]
            for index in 0..<60 {
                let source = sources[index % sources.count]
                paths[try FixFixture.copy(source, to: library, as: "\(index)-" + source)] = source
            }
            let journal = folder.appendingPathComponent("round-\(round).jsonl").path
            let process = Process()
            process.executableURL = Run.binary
            process.arguments =
                ["fix", "--orientation", "7", "--journal", journal, "--jobs", "2"] + paths.keys.sorted()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning, Date() < deadline,
                ((try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) ?? 0) == 0
            {
                usleep(200)
            }
            usleep(useconds_t(delay * 1000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            var new: Set<String> = []
            for (path, source) in paths {
                let bytes = try FixFixture.contents(path)
                let original = try FixFixture.contents(Run.media(source))
                #expect(bytes == original || bytes == fixedBytes[source], "round \(round): \(path) is neither")
                if bytes != original { new.insert(path) }
            }
            var last: [String: [String: Any]] = [:]
            for line in try JournalFixture.lines(journal) { last[line["id"] as! String] = line }
            let written = Set(last.values.filter { $0["status"] as? String == "written" }.map { $0["path"] as! String })
            let writing = Set(last.values.filter { $0["status"] as? String == "writing" }.map { $0["path"] as! String })
            #expect(last.values.allSatisfy { $0["status"] as? String != "not_written" })
            #expect(written.isSubset(of: new), "round \(round): a `written` line for a file that is not new")
            #expect(new.isSubset(of: written.union(writing)), "round \(round): a new file without a line")
            #expect(writing.count <= 2, "round \(round): at most one fix per worker is under way")
            if !new.isEmpty && new.count < paths.count { partlyDone += 1 }

            let undo = try Run.vidorient(["fix", "--undo", journal])
            #expect(undo.status == 0, "round \(round): \(undo.stderr)")
            for (path, source) in paths {
                #expect(
                    try FixFixture.contents(path) == FixFixture.contents(Run.media(source)), "round \(round): \(path)")
            }
            #expect(try FixFixture.leftovers(library).allSatisfy { $0.hasPrefix(".") })
        }
        #expect(partlyDone > 0, "no kill landed part-way through a batch")
    }
}
