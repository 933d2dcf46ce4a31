import Foundation
import Testing
import VidorientTestSupport

/// A file that kills the process must not kill the next run too (issue 28, item 2). The test
/// kills a real audit while it reads one file (`VIDORIENT_TEST_KILL_READING` makes the reader of
/// that file SIGKILL its own process), without depending on a real bug; the next run names the
/// file as `reader-crashed` in every output and skips it, until the file changes.
@Suite
struct ReaderCrashTests {
    @Test func aFileThatKilledTheAuditIsNamedAndSkippedUntilItChanges() throws {
        let folder = try scratchFolder("reader-crash")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = folder.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        for (name, media) in [("a.jpg", "orient-1.jpg"), ("b.png", "orient-3.png"), ("c.jpg", "orient-1.jpg")] {
            try FileManager.default.copyItem(
                atPath: Run.media(media), toPath: library.appendingPathComponent(name).path)
        }
        let cache = ["--cache-path", folder.appendingPathComponent("cache.sqlite").path, "--no-progress"]
        let killed = try Run.vidorient(
            ["audit", library.path, "--jsonl"] + cache, environment: ["VIDORIENT_TEST_KILL_READING": "b.png"])
        #expect(killed.status != 0 && killed.status != 1, "the audit was not killed: \(killed.stderr)")

        let crashed = folder.appendingPathComponent("lib/b.png").path
        for format in ["--jsonl", "--csv", "--json", ""] {
            let run = try Run.vidorient(["audit", library.path] + (format.isEmpty ? [] : [format]) + cache)
            #expect(run.status == 1, "\(format): \(run.stderr)")
            #expect(run.stdout.contains("reader-crashed"), "\(format): \(run.stdout)")
            if format == "--jsonl" {
                let records = run.stdout.split(separator: "\n").compactMap {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }
                #expect(records.count == 3)
                let record = try #require(records.first { $0["path"] as? String == crashed })
                let findings = try #require(record["findings"] as? [[String: Any]])
                #expect(findings.map { $0["code"] as? String } == ["reader-crashed"])
                #expect(findings.first?["severity"] as? String == "error")
                // The others are audited as usual.
                #expect(records.filter { ($0["findings"] as? [Any])?.isEmpty == true }.count == 2)
            }
        }
        let page = folder.appendingPathComponent("page.html").path
        let html = try Run.vidorient(["audit", library.path, "--html", page] + cache)
        #expect(html.status == 1, "\(html.stderr)")
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains("reader-crashed"))

        // Changed since (its modification time): read again.
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: crashed)
        let again = try Run.vidorient(["audit", library.path, "--jsonl"] + cache)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!again.stdout.contains("reader-crashed"), "\(again.stdout)")
        // Nothing of a run is left once it ends.
        #expect(
            try FileManager.default.contentsOfDirectory(
                atPath: folder.appendingPathComponent("cache.sqlite.reading").path)
                == [])
    }
}
