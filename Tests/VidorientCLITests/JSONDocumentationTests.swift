import Foundation
import Testing
import VidorientCore
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

    /// Every `"schema_version": N` a doc shows is the one the program writes now (issue 29:
    /// docs/audit.md showed 1 when records said 4).
    @Test func everySchemaVersionShownIsTheCurrentOne() throws {
        let run = try Run.vidorient(["audit", "--jsonl", "--no-progress", Run.media("orient-1.mp4")])
        let record = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let current = try #require(record["schema_version"] as? Int)
        let docs = PackageFolder.root.appendingPathComponent("docs")
        for name in try FileManager.default.contentsOfDirectory(atPath: docs.path) where name.hasSuffix(".md") {
            let text = try String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8)
            for match in text.matches(of: /"schema_version": ?(\d+)/) {
                #expect(Int(match.output.1) == current, "docs/\(name): \(match.output.0)")
            }
        }
    }
}

/// docs/findings.md against the code: every finding code the sources can emit (each `code:`
/// argument's string literals, ternaries included) has its row, and every row is a code the
/// sources emit (issue 29: five photo codes were missing).
@Suite struct FindingCodeDocumentationTests {
    /// The `FindingCode` cases the sources make findings of: every `Finding(` call's first
    /// argument (`Finding(.mirrored, …`, `Finding(timedOut ? .timeout : .unreadable, …`), by case
    /// name; and every call that still spells a code as a string.
    static func emitted() throws -> (cases: Set<String>, strings: [String]) {
        let sources = PackageFolder.root.appendingPathComponent("Sources")
        var cases: Set<String> = []
        var strings: [String] = []
        let walk = try #require(FileManager.default.enumerator(atPath: sources.path))
        for case let name as String in walk where name.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(name), encoding: .utf8)
            for argument in text.matches(of: /[^.]Finding\(\s*([^\n,]+)/) {
                let first = argument.output.1
                for literal in first.matches(of: /"([a-z0-9-]+)"/) { strings.append("\(name): \(literal.output.1)") }
                for member in first.matches(of: /\.([a-zA-Z0-9]+)/) { cases.insert(String(member.output.1)) }
            }
            // `findings.append(.code, .severity, message)`: [Finding]'s own append.
            for made in text.matches(of: /\.append\(\s*\.([a-zA-Z0-9]+),\s*\.(info|warning|error),/) {
                cases.insert(String(made.output.1))
            }
        }
        return (cases, strings)
    }

    @Test func everyCodeHasItsRowAndEveryRowItsCode() throws {
        let text = try String(
            contentsOf: PackageFolder.root.appendingPathComponent("docs/findings.md"), encoding: .utf8)
        let documented = Set(text.matches(of: /\n\| `([a-z0-9-]+)` \|/).map { String($0.output.1) })
        let codes = Set(FindingCode.allCases.map(\.rawValue))
        #expect(codes.count > 40)
        #expect(codes.subtracting(documented).sorted() == [], "codes without a row in docs/findings.md")
        #expect(documented.subtracting(codes).sorted() == [], "rows of docs/findings.md that are no FindingCode")
    }

    /// Every finding is made of a `FindingCode`, never a string, and every code is made somewhere.
    @Test func theSourcesMakeFindingsOfTheEnum() throws {
        let (cases, strings) = try Self.emitted()
        #expect(strings == [], "findings made of a string, not a FindingCode")
        let names = Set(FindingCode.allCases.map { String(describing: $0) })
        #expect(names.subtracting(cases).sorted() == [], "codes no source makes a finding of")
    }
}
