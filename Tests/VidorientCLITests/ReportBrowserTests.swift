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
        rows = dom.components(separatedBy: "<tr class=\"file\">").dropFirst().map { String($0.prefix { $0 != "\n" }) }
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

    /// 100,000 rows: the page's own rows from `vidorient report`, repeated under distinct paths.
    /// Only one page of them reaches the DOM.
    @Test func aHundredThousandRowsArePaged() throws {
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
        // Each row split once around its path, then put together 100,000 times.
        let halves = try rows.map { row -> (String, String) in
            let at = try #require(row.range(of: "\"p\":\""))
            return (String(row[..<at.upperBound]), String(row[at.upperBound...]))
        }
        var big: [String] = []
        big.reserveCapacity(100_000)
        for n in 0..<100_000 {
            let (head, tail) = halves[n % halves.count]
            big.append(head + "/library/\(n / 1000)/\(n)" + tail)
        }
        let summaryTail = html[end.lowerBound...].replacingOccurrences(
            of: "\"flagged\":\(rows.count)", with: "\"flagged\":100000")
        let page = folder.appendingPathComponent("big.html")
        try Data((html[..<start.upperBound] + big.joined(separator: ",\n") + summaryTail).utf8).write(to: page)

        let first = ShownPage(try Chromium.dom(page))
        #expect(first.rows.count == 100)
        #expect(first.count == "100000 of 100000 files with findings, page 1 of 1000")
        let searched = ShownPage(try Chromium.dom(page, hash: "q=/library/42/42017"))
        #expect(searched.rows.count == 1)
        #expect(searched.count == "1 of 100000 files with findings, page 1 of 1")
    }
}
