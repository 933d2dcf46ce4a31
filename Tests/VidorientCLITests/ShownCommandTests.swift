import Foundation
import Testing
import VidorientTestSupport

/// Every command vidorient shows (the JSONL's and CSV's `action`, the HTML page's copyable command)
/// names the file it is about, quoted once, and runs nothing a file name says (issue 23). The HTML
/// page quoted Core's already quoted path a second time, which *un*-quoted it: pasting
/// `vidorient thumbnail ''./x$(touch PWNED).mp4'' ...` ran `touch`. And `--exec` handed a name that
/// is not UTF-8 over in its display form, so the hook could not find the file.
@Suite struct ShownCommandTests {
    /// orient-2.mp4 is mirrored: its finding's action is `vidorient fix FILE --orientation 1`.
    static let names: [[UInt8]] = [
        Array("x$(touch PWNED).mp4".utf8), Array("b`touch PWNED`.mp4".utf8), Array("it's \"q\" \\ here.mp4".utf8),
        Array("semi;colon & amp.mp4".utf8), Array("new\nline.mp4".utf8), [0xFF, 0xFE] + Array(" $(x).mp4".utf8),
        Array("-lead.mp4".utf8),
    ]

    /// The words a shown command hands to `vidorient`, as bash parses it: a `vidorient` function
    /// prints its arguments NUL-separated, run in `folder`.
    static func words(of command: String, in folder: URL) throws -> [[UInt8]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "vidorient() { printf '%s\\0' \"$@\"; }\n" + command]
        process.currentDirectoryURL = folder
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data.split(separator: 0, omittingEmptySubsequences: false).dropLast().map(Array.init)
    }

    @Test func everyShownCommandNamesItsFileAndRunsNothingElse() throws {
        let folder = try scratchFolder("shown-commands")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = folder.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        for name in Self.names { _ = try NonUTF8NameTests.place("orient-2.mp4", in: library, named: name) }
        let page = folder.appendingPathComponent("page.html").path
        // From inside the library, naming the files (`--` before them), so that `-lead.mp4` is a
        // path that starts with `-`.
        let script = "cd \"$1\" && \"$0\" audit --jsonl --html \"$2\" -- *; \"$0\" audit --csv -- * > \"$3\""
        let csvPath = folder.appendingPathComponent("audit.csv").path
        let audit = try Run.vidorient([], prefix: ["sh", "-c", script, Run.binary.path, library.path, page, csvPath])
        #expect(audit.status == 1, "\(audit.stderr)")

        // (path bytes, a shown command) from each place a command is shown.
        var shown: [(path: [UInt8], command: String, from: String)] = []
        for line in audit.stdout.split(separator: "\n") {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let text = try #require(record["path"] as? String)
            let path = (record["path_bytes"] as? String).map(NonUTF8NameTests.unhex) ?? Array(text.utf8)
            for finding in try #require(record["findings"] as? [[String: Any]]) {
                if let action = finding["action"] as? String, let start = action.range(of: "vidorient ") {
                    shown.append((path, String(action[start.lowerBound...]), "jsonl"))
                }
            }
        }
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let rowsText = try #require(
            html.components(separatedBy: "<script id=\"rows\" type=\"application/json\">").last?.components(
                separatedBy: "</script>"
            ).first)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(rowsText.utf8)) as? [[String: Any]])
        #expect(rows.count == Self.names.count)
        let commands = rows.flatMap { ($0["x"] as? [[String: Any]] ?? []).compactMap { $0["a"] as? String } }
        #expect(commands.count == Self.names.count)
        // The page shows the same command as the JSONL, so each one names a file of the library.
        let fromJSONL = Set(shown.map(\.command))
        for command in commands {
            #expect(fromJSONL.contains(command), "the page's \(command) is the audit's")
            shown.append(([], command, "html"))
        }
        let csv = try String(contentsOfFile: csvPath, encoding: .utf8)
        for command in fromJSONL {
            #expect(csv.contains(command.replacing("\"", with: "\"\"")), "\(command) in the CSV")
        }

        #expect(shown.count == 2 * Self.names.count)
        for (path, command, from) in shown {
            let words = try Self.words(of: command, in: library)
            #expect(words.count == 4, "\(from): \(command) → \(words.map { String(decoding: $0, as: UTF8.self) })")
            #expect(words.first == Array("fix".utf8) && words.last == Array("1".utf8))
            guard words.count == 4 else { continue }
            let named = words[1]
            #expect(Self.names.contains { named == $0 || named == Array("./".utf8) + $0 }, "\(from): \(command)")
            if !path.isEmpty { #expect(named == path || named == Array("./".utf8) + path, "\(from): \(command)") }
            #expect(named.first != UInt8(ascii: "-"), "a name is never taken for an option")
        }
        #expect(!FileManager.default.fileExists(atPath: library.appendingPathComponent("PWNED").path))
    }

    /// `audit --watch --exec 'mv "$1" quarantine/'` moves a file whose name is not UTF-8: the hook
    /// gets the name's bytes, not its display form.
    @Test func execGetsTheBytesOfTheName() throws {
        let folder = try scratchFolder("watch-exec-bytes")
        defer { try? FileManager.default.removeItem(at: folder) }
        let inbox = folder.appendingPathComponent("inbox")
        let quarantine = folder.appendingPathComponent("quarantine")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: quarantine, withIntermediateDirectories: true)
        let watch = try WatchProcess([
            "audit", "--watch", inbox.path, "--settle", "0.1", "--exec", "mv \"$1\" '\(quarantine.path)/'",
        ])
        #expect(watch.wait { watch.errors.withLock { $0.contains("watching") } })
        let name = NonUTF8NameTests.latin1
        let placed = try NonUTF8NameTests.place("orient-2.mp4", in: inbox, named: name)
        let moved = Array(quarantine.path.utf8) + [UInt8(ascii: "/")] + name
        #expect(watch.wait { NonUTF8NameTests.exists(moved) }, "\(watch.errors.withLock { $0 })")
        #expect(watch.stop(SIGTERM) == 0)
        #expect(!NonUTF8NameTests.exists(placed))
        #expect(!watch.errors.withLock { $0 }.contains("cannot stat"), "\(watch.errors.withLock { $0 })")
    }
}
