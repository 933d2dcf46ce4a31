import Foundation
import Testing
import VidorientTestSupport

/// docs/json.md against `inspect --json`: every key the doc lists is in the output at its level,
/// and every key of the output is in the doc. The doc is parsed here, so a key added to one and
/// not the other fails.
@Suite struct JSONDocumentationTests {
    /// The keys docs/json.md documents, by section: the backquoted names in the first column of
    /// each table row, or, for a section without a table (`streams[]`), the backquoted names of
    /// its first paragraph outside parentheses (which hold example values).
    static let documented: [String: Set<String>] = {
        let url = PackageFolder.root.appendingPathComponent("docs/json.md")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [:] }
        var sections: [String: [Substring]] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                current = line.dropFirst(3).replacing("`", with: "").trimmingCharacters(in: .whitespaces)
                sections[current ?? ""] = []
            } else if let current {
                sections[current, default: []].append(line)
            }
        }
        return sections.mapValues(keys)
    }()

    static func keys(_ lines: [Substring]) -> Set<String> {
        let rows = lines.filter { $0.hasPrefix("| `") }
        if !rows.isEmpty {
            return Set(rows.flatMap { row in quoted(row.split(separator: "|", omittingEmptySubsequences: true)[0]) })
        }
        let paragraph = lines.drop { $0.trimmingCharacters(in: .whitespaces).isEmpty }
            .prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.joined(separator: " ")
        return Set(quoted(paragraph.replacing(/\([^)]*\)/, with: "")))
    }

    static func quoted(_ text: some StringProtocol) -> [String] {
        String(text).matches(of: /`([^`]+)`/).map { String($0.output.1) }
    }

    static func inspect(_ name: String) throws -> [String: Any] {
        let run = try Run.vidorient(["inspect", "--json", Run.media(name)])
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(run.json as? [String: Any])
    }

    /// The doc's keys for `section` against the object's, both ways.
    func check(_ section: String, _ object: Any?, _ file: String) throws {
        let keys = try #require(Self.documented[section], "docs/json.md has no section \(section)")
        let object = try #require(object as? [String: Any], "\(file): no \(section) object")
        let present = Set(object.keys)
        #expect(keys.subtracting(present).isEmpty, "\(file): \(section) keys in docs/json.md, not in the output")
        #expect(present.subtracting(keys).isEmpty, "\(file): \(section) keys in the output, not in docs/json.md")
    }

    @Test func theDocIsParsed() {
        // Guards the parser itself: a change of the doc's layout must not leave nothing to compare.
        let documented = Self.documented
        #expect(documented["Top level"]?.isSuperset(of: ["schema_version", "path", "path_bytes", "findings"]) == true)
        #expect(documented["format"]?.isSuperset(of: ["name", "long_name", "ffmpeg_demuxer", "tags"]) == true)
        #expect(documented["streams[]"]?.isSuperset(of: ["index", "codec_tag", "pix_fmt", "tags"]) == true)
        #expect(documented["streams[]"]?.contains("avc1") == false)
        #expect(documented["video"]?.isSuperset(of: ["codec", "coded_width", "matrix", "timed_metadata_keys"]) == true)
        #expect(documented["photo"]?.isSuperset(of: ["format", "format_detail", "exif_pixel_height"]) == true)
    }

    @Test func aVideoHasEveryDocumentedKey() throws {
        let file = "orient-6.mp4"
        let report = try Self.inspect(file)
        try check("Top level", report, file)
        try check("format", report["format"], file)
        let streams = try #require(report["streams"] as? [Any])
        #expect(!streams.isEmpty)
        for stream in streams { try check("streams[]", stream, file) }
        try check("video", report["video"], file)
        #expect(report["photo"] is NSNull)
    }

    @Test func aPhotoHasEveryDocumentedKey() throws {
        let file = "orient-6.jpg"
        let report = try Self.inspect(file)
        try check("Top level", report, file)
        try check("format", report["format"], file)
        #expect((report["streams"] as? [Any])?.isEmpty == true)
        #expect(report["video"] is NSNull)
        try check("photo", report["photo"], file)
    }
}
