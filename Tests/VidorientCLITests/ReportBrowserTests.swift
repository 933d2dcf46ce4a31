import Foundation
import Testing
import VidorientTestSupport

/// Debian's chromium, headless: loads a page, runs its script, and prints the DOM or a screenshot.
enum Chromium {
    static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs chromium with `arguments` after the common ones; a fresh profile each time, so that
    /// runs in parallel do not share one. Bounded: killed after `seconds`.
    static func run(_ arguments: [String], seconds: Double = 120) throws -> String {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vidorient-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(path))
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-extensions",
                "--user-data-dir=\(profile.path)",
            ] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let timer = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: timer)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        timer.cancel()
        return String(decoding: data, as: UTF8.self)
    }

    /// The DOM once the page has loaded and its script has run.
    static func dom(_ page: URL, hash: String = "") throws -> String {
        try run(["--dump-dom", page.absoluteString + (hash.isEmpty ? "" : "#" + hash)])
    }
}

/// What a dumped page shows: its table rows and the count line.
struct ShownPage {
    let rows: [String]
    let count: String

    init(_ dom: String) {
        rows = dom.components(separatedBy: "<tr class=\"file\"").dropFirst().map { String($0.prefix { $0 != "\n" }) }
        count =
            dom.components(separatedBy: "id=\"count\">").dropFirst().first.map { String($0.prefix { $0 != "<" }) } ?? ""
    }
}

@Suite(
    .enabled(
        if: Chromium.path != nil,
        "chromium is not installed (apt-get install chromium; .ci/setup does): the report is not loaded in a browser"))
struct ReportBrowserTests {
    /// The TestMedia audit as JSONL and as a page, made by one run.
    static func testMediaPage(_ folder: URL) throws -> (page: URL, records: [[String: Any]]) {
        let page = folder.appendingPathComponent("report.html")
        let run = try Run.vidorient([
            "audit", Run.packageRoot.appendingPathComponent("TestMedia").path, "--jsonl", "--html", page.path,
            "--thumbnails",
        ])
        #expect(run.status == 1)
        let records = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return (page, records)
    }

    static func findings(_ record: [String: Any]) -> [[String: Any]] { record["findings"] as? [[String: Any]] ?? [] }

    @Test func filtersSortAndSearchInARealBrowser() throws {
        let folder = try scratchFolder("browser")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (page, records) = try Self.testMediaPage(folder)
        let flagged = records.filter { !Self.findings($0).isEmpty }
        #expect(flagged.count > 10)

        let all = ShownPage(try Chromium.dom(page))
        #expect(all.rows.count == flagged.count)
        #expect(all.count == "\(flagged.count) of \(flagged.count) files with findings, page 1 of 1")

        func expected(_ keep: ([String: Any]) -> Bool) -> Int { flagged.filter(keep).count }
        let cases: [(hash: String, count: Int)] = [
            ("rule=mirrored", expected { Self.findings($0).contains { $0["code"] as? String == "mirrored" } }),
            ("severity=error", expected { Self.findings($0).contains { $0["severity"] as? String == "error" } }),
            ("format=jpg", expected { ($0["path"] as? String)?.hasSuffix(".jpg") == true }),
            ("q=orient-2", expected { ($0["path"] as? String)?.contains("orient-2") == true }),
            (
                "rule=mirrored&format=mov",
                expected {
                    ($0["path"] as? String)?.hasSuffix(".mov") == true
                        && Self.findings($0).contains { $0["code"] as? String == "mirrored" }
                }
            ),
        ]
        for (hash, count) in cases {
            #expect(count > 0, "\(hash)")
            let shown = ShownPage(try Chromium.dom(page, hash: hash))
            #expect(shown.rows.count == count, "\(hash)")
            #expect(shown.count.hasPrefix("\(count) of \(flagged.count) "), "\(hash): \(shown.count)")
        }
        // Sorted by severity, most severe first: the unreadable files lead.
        let bySeverity = ShownPage(try Chromium.dom(page, hash: "sort=severity&desc=1"))
        #expect(bySeverity.rows.first?.contains("class=\"sev error\"") == true)
        #expect(bySeverity.rows.last?.contains("class=\"sev error\"") == false)
        // Every row of a mirrored file shows its fix command and both pictures.
        let mirrored = ShownPage(try Chromium.dom(page, hash: "rule=mirrored&format=mp4"))
        for row in mirrored.rows {
            #expect(row.contains("<code class=\"fix\">vidorient fix "), "\(row.prefix(200))")
            #expect(row.contains("report-thumbnails/") && row.contains("-s.jpg") && row.contains("-d.jpg"))
        }
    }

    @Test func aScreenshot() throws {
        let folder = try scratchFolder("browser-shot")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (page, _) = try Self.testMediaPage(folder)
        let shot = folder.appendingPathComponent("report.png")
        _ = try Chromium.run([
            "--hide-scrollbars", "--window-size=1280,900", "--screenshot=\(shot.path)",
            page.absoluteString + "#rule=mirrored",
        ])
        let png = try Data(contentsOf: shot)
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(png.count > 20_000, "a page with pictures, not a blank one")
    }

    /// 100,000 rows (5,000 in the test run; `.ci/run`'s large rounds take 100,000): the page's own
    /// rows from `vidorient report`, repeated under distinct paths. Only one page of them reaches
    /// the DOM.
    @Test func aHundredThousandRowsArePaged() throws {
        let total = LargeRounds.enabled ? 100_000 : 5_000
        let folder = try scratchFolder("browser-big")
        defer { try? FileManager.default.removeItem(at: folder) }
        let jsonl = folder.appendingPathComponent("audit.jsonl")
        let audit = try Run.vidorient(["audit", Run.packageRoot.appendingPathComponent("TestMedia").path, "--jsonl"])
        try Data(audit.stdout.utf8).write(to: jsonl)
        let small = folder.appendingPathComponent("small.html")
        #expect(try Run.vidorient(["report", jsonl.path, "-o", small.path]).status == 0)
        let html = try String(contentsOf: small, encoding: .utf8)
        let open = "<script id=\"rows\" type=\"application/json\">[\n"
        let start = try #require(html.range(of: open))
        let end = try #require(html.range(of: "\n]</script>", range: start.upperBound..<html.endIndex))
        let rows = html[start.upperBound..<end.lowerBound].components(separatedBy: ",\n")
        // Each row split once around its path, then put together `total` times.
        let halves = try rows.map { row -> (String, String) in
            let at = try #require(row.range(of: "\"p\":\""))
            return (String(row[..<at.upperBound]), String(row[at.upperBound...]))
        }
        var big: [String] = []
        big.reserveCapacity(total)
        for n in 0..<total {
            let (head, tail) = halves[n % halves.count]
            big.append(head + "/library/\(n / 1000)/\(n)" + tail)
        }
        let summaryTail = html[end.lowerBound...].replacingOccurrences(
            of: "\"flagged\":\(rows.count)", with: "\"flagged\":\(total)")
        let page = folder.appendingPathComponent("big.html")
        try Data((html[..<start.upperBound] + big.joined(separator: ",\n") + summaryTail).utf8).write(to: page)

        let first = ShownPage(try Chromium.dom(page))
        #expect(first.rows.count == 100)
        #expect(first.count == "\(total) of \(total) files with findings, page 1 of \(total / 100)")
        // One row far down the list, found by its path: the only path holding that text.
        let wanted = total * 17 / 20 + 17
        let searched = ShownPage(try Chromium.dom(page, hash: "q=/library/\(wanted / 1000)/\(wanted)"))
        #expect(searched.rows.count == 1)
        #expect(searched.count == "1 of \(total) files with findings, page 1 of 1")
    }

    /// The review page as a person uses it (issue 29), in a real browser driven through the
    /// DevTools protocol (Tests/Browser/review-page.py): filter to the suggested fixes, approve
    /// two rows (a click, then the keys j, a), reject one (j, r), reload, export; the exported
    /// list goes to `fix --from-audit` unchanged, which applies the two approved judgments and
    /// not the rejected one. One of the names is markup, and stays text.
    @Test(.enabled(if: ContentPhotos.isPresent, "scikit-image's sample photos are absent (.ci/setup extracts them)"))
    func approveRejectReloadExportAndFix() throws {
        let folder = try TemporaryFolder("review")
        defer { folder.remove() }
        let library = folder.path("library")
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        // An upright portrait tagged to show on its side: the content verdict suggests tag 1.
        let sideways = try folder.copy(ContentPhotos.path(ContentPhotos.face), as: "face.png")
        let tagged = try Run.vidorient(["fix", "--orientation", "6", sideways])
        try #require(tagged.status == 0, "\(tagged.stderr)")
        let names = ["a-face.png", "b-<img src=x onerror=window.__vidorient_injected=true>.png", "c-face.png"]
        for name in names { _ = try folder.copy(sideways, as: "library/" + name) }
        _ = try folder.copy(
            Run.packageRoot.appendingPathComponent("TestMedia/orient-2.jpg").path, as: "library/mirrored.jpg")
        let page = folder.path("review.html")
        let audit = try Run.vidorient([
            "audit", "--content", "--no-progress", "--jsonl", "--html", page, "--thumbnails", library,
        ])
        #expect(audit.status == 1, "\(audit.stderr)")
        #expect(audit.stdout.components(separatedBy: "\"code\":\"content-sideways\"").count == 4, "\(audit.stdout)")

        let downloads = folder.path("downloads")
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        let started = Date()
        let (status, stdout, stderr) = try run(
            "python3",
            [
                Run.packageRoot.appendingPathComponent("Tests/Browser/review-page.py").path,
                try #require(Chromium.path),
                page, downloads,
            ])
        #expect(Date().timeIntervalSince(started) < 20)
        try #require(status == 0, "\(String(decoding: stdout, as: UTF8.self)) \(stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any])
        #expect(seen["count"] as? String == "4 of 4 files with findings, page 1 of 1")
        #expect(seen["injected_first"] as? Bool == false)
        #expect(seen["injected"] as? Bool == false)
        // The filter leaves the three suggested fixes, by path; the mirrored file has none.
        let filtered = try #require(seen["filtered"] as? [[String: Any]])
        #expect(filtered.compactMap { $0["path"] as? String } == names.map { library + "/" + $0 })
        #expect(seen["filtered_count"] as? String == "3 of 4 files with findings, page 1 of 1")
        let decisions = ["approved", "approved", "rejected"]
        #expect((seen["decided"] as? [[String: Any]])?.compactMap { $0["decision"] as? String } == decisions)
        // After a reload: the same filter (kept in the address) and the same decisions (localStorage).
        #expect((seen["after_reload"] as? [[String: Any]])?.compactMap { $0["decision"] as? String } == decisions)
        #expect(seen["decided_line"] as? String == "2 approved, 1 rejected, 0 undecided of 3 suggested fixes")
        #expect((seen["hash"] as? String)?.contains("fixable=1") == true)
        #expect(seen["downloads"] as? [String] == ["vidorient-approved.jsonl", "vidorient-rejected.jsonl"])

        // The approved list, unchanged, is what fix --from-audit applies: both approved judgments.
        let approved = downloads + "/vidorient-approved.jsonl"
        let dry = try Run.vidorient(["fix", "--from-audit", approved, "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(
            dry.stdout.components(separatedBy: "content-sideways would be applied: approved in the list").count == 3)
        let fix = try Run.vidorient(["fix", "--from-audit", approved])
        #expect(fix.status == 0, "\(fix.stderr)")
        #expect(fix.stderr.contains("fixed 2, already right 0, refused 0, failed 0"), "\(fix.stderr)")
        func shown(_ name: String) throws -> Int? {
            let run = try Run.vidorient(["inspect", "--json", library + "/" + name])
            let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            return (report?["photo"] as? [String: Any])?["exif_orientation"] as? Int
        }
        #expect(try shown(names[0]) == 1)
        #expect(try shown(names[1]) == 1)
        #expect(try shown(names[2]) == 6, "the rejected one is left alone")
        // The rejected one is in the decisions file, marked so, and never applied from it.
        let rejected = try String(contentsOfFile: downloads + "/vidorient-rejected.jsonl", encoding: .utf8)
        #expect(rejected.split(separator: "\n").count == 1)
        #expect(rejected.contains("\"approved\":false") && rejected.contains("c-face.png"))
        // With the file as the audit read it, byte for byte, for audit --decisions (DecisionsCommandTests).
        #expect(rejected.contains("\"file\":{") && rejected.contains("\"head_checksum\":\""), "\(rejected)")
        let again = try Run.vidorient(["fix", "--from-audit", downloads + "/vidorient-rejected.jsonl", "--dry-run"])
        #expect(again.stdout.contains("c-face.png: content-sideways held back"), "\(again.stdout)")
    }
}
