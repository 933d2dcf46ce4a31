import Foundation
import Testing
import VidorientTestSupport

/// `audit --decisions FILE` (issue 29): a suggestion rejected on the review page is not raised
/// again while the file's bytes are the same, and the audit says how many it held back.
@Suite struct DecisionsCommandTests {
    static func object(_ text: some StringProtocol) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The page's rows, from its data element.
    static func rows(_ page: String) throws -> [[String: Any]] {
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let start = try #require(html.range(of: "<script id=\"rows\" type=\"application/json\">"))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        return try #require(
            try JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8))
                as? [[String: Any]])
    }

    @Test func aRejectedSuggestionIsHeldBackWhileTheFileIsTheSame() throws {
        let folder = try TemporaryFolder("decisions")
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path("library"), withIntermediateDirectories: true)
        let file = try folder.copy(
            Run.packageRoot.appendingPathComponent("TestMedia/scaled-2x.mp4").path, as: "library/scaled.mp4")
        let page = folder.path("review.html")
        let audit = try Run.vidorient(["audit", "--jsonl", "--no-progress", "--html", page, folder.path("library")])
        #expect(audit.status == 1, "\(audit.stderr)")
        #expect(audit.stdout.contains("\"code\":\"matrix-scale\""))

        // What the page's Export writes for a rejected row: the record's line, approved false (its
        // `file` says which bytes the audit read).
        let row = try #require(try Self.rows(page).first)
        let line = try #require(row["j"] as? String)
        var record = try Self.object(line)
        record["approved"] = false
        #expect(record["file"] is [String: Any])
        let decisions = folder.path("rejected.jsonl")
        try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: decisions))

        let again = try Run.vidorient([
            "audit", "--jsonl", "--no-progress", "--decisions", decisions, folder.path("library"),
        ])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!again.stdout.contains("\"code\":\"matrix-scale\""), "\(again.stdout)")
        #expect(again.stderr.contains("held back 1 rejected suggestion (--decisions: 1 rejected"), "\(again.stderr)")

        // Another modification time: the file may have changed since it was reviewed, and the
        // suggestion is raised again.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: file)
        let changed = try Run.vidorient([
            "audit", "--jsonl", "--no-progress", "--decisions", decisions, folder.path("library"),
        ])
        #expect(changed.status == 1, "\(changed.stderr)")
        #expect(changed.stdout.contains("\"code\":\"matrix-scale\""))
        #expect(changed.stderr.contains("held back 0 rejected suggestions"), "\(changed.stderr)")

        // A rejection that does not say which bytes it was about is not used, and said so.
        record["file"] = nil
        try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: decisions))
        let unnamed = try Run.vidorient(["audit", "--jsonl", "--decisions", decisions, folder.path("library")])
        #expect(unnamed.status == 1)
        #expect(
            unnamed.stderr.contains("1 rejection(s) in '\(decisions)' say nothing of the file"), "\(unnamed.stderr)")

        // A decisions file that is not one is refused before anything is audited.
        try Data("not a record\n".utf8).write(to: URL(fileURLWithPath: decisions))
        let refused = try Run.vidorient(["audit", "--jsonl", "--decisions", decisions, folder.path("library")])
        #expect(refused.status == 2)
        #expect(refused.stdout.isEmpty)
    }
}
