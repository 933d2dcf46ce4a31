import Foundation
import Synchronization
import Testing
import VidorientAudit
import VidorientCore
import VidorientTestSupport

/// The rows a page carries, parsed back from its data element.
func pageRows(_ html: String) throws -> [[String: Any]] {
    let start = try #require(html.range(of: "<script id=\"rows\" type=\"application/json\">"))
    let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
    let json = Data(html[start.upperBound..<end.lowerBound].utf8)
    return try #require(try JSONSerialization.jsonObject(with: json) as? [[String: Any]])
}

@Suite struct HTMLReportTests {
    @Test func aPageOfTheFilesWithFindings() throws {
        let library = try Library()
        defer { library.remove() }
        // Names a shell and an HTML parser both have to be careful with.
        let awkward = library.root.appendingPathComponent("odd a<")
        try FileManager.default.createDirectory(at: awkward, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Library.testMedia.appendingPathComponent("orient-2.mp4"),
            to: awkward.appendingPathComponent("script>it's.mp4"))
        let awkwardPath = awkward.appendingPathComponent("script>it's.mp4").path
        #expect(awkwardPath.contains("</script>"))

        let pagePath = library.root.appendingPathComponent("report.html").path
        let page = try HTMLReport(path: pagePath)
        let run = audit(.walk([library.root.path]))
        for record in run.records { page.add(record) }
        try page.finish()
        let html = try String(contentsOfFile: pagePath, encoding: .utf8)

        let rows = try pageRows(html)
        let flagged = run.records.filter { !$0.findings.isEmpty }
        #expect(rows.count == flagged.count)
        #expect(Set(rows.compactMap { $0["p"] as? String }) == Set(flagged.map(\.path)))
        #expect(!html.contains("://"), "nothing is fetched from anywhere: the page works offline")

        let row = try #require(rows.first { $0["p"] as? String == awkwardPath })
        #expect(row["f"] as? String == "mp4")
        #expect(row["s"] as? String == "160×96 landscape")
        #expect(row["d"] as? String == "160×96 landscape, EXIF 2: mirror")
        let finding = try #require((row["x"] as? [[String: Any]])?.first)
        #expect(finding["r"] as? String == "mirrored")
        #expect(finding["v"] as? String == "warning")
        #expect(finding["n"] as? String == "if the mirror is unintended")
        // The fix command runs as shown: the shell hands the path back unchanged.
        let command = try #require(finding["a"] as? String)
        #expect(command.hasPrefix("vidorient fix '"))
        let echo = Process()
        echo.executableURL = URL(fileURLWithPath: "/bin/sh")
        echo.arguments = ["-c", "set -- " + command.dropFirst("vidorient fix ".count) + "; printf %s \"$1\""]
        let out = Pipe()
        echo.standardOutput = out
        try echo.run()
        let echoed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        echo.waitUntilExit()
        #expect(echoed == awkwardPath)

        let summaryStart = try #require(html.range(of: "<script id=\"summary\" type=\"application/json\">"))
        let summaryEnd = try #require(html.range(of: "</script>", range: summaryStart.upperBound..<html.endIndex))
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(html[summaryStart.upperBound..<summaryEnd.lowerBound].utf8))
                as? [String: Any])
        #expect(summary["files"] as? Int == run.records.count)
        #expect(summary["flagged"] as? Int == flagged.count)
        #expect((summary["by_code"] as? [String: Int])?["mirrored"] == run.summary.findingsByCode["mirrored"])
    }

    /// A photo's row says how it is stored and displayed too (issue 24: the page had
    /// `"s":null,"d":null` for every photo, though inspect has the sizes).
    @Test func aPhotosRowSaysItsShape() throws {
        let library = try Library()
        defer { library.remove() }
        let pagePath = library.root.appendingPathComponent("photo.html").path
        let page = try HTMLReport(path: pagePath)
        let run = audit(.walk([Library.testMedia.appendingPathComponent("jpeg-xmp-conflict.jpg").path]))
        for record in run.records { page.add(record) }
        try page.finish()
        let row = try #require(try pageRows(try String(contentsOfFile: pagePath, encoding: .utf8)).first)
        #expect(row["f"] as? String == "jpg")
        #expect(row["c"] as? String == "jpeg")
        #expect(row["s"] as? String == "96×160 portrait")
        #expect(row["d"] as? String == "160×96 landscape, EXIF 6: rotate 90° clockwise")
    }

    @Test func thumbnailsAsStoredAndAsDisplayed() throws {
        let folder = try scratchFolder("page")
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = try HTMLReport(path: folder.appendingPathComponent("page.html").path, thumbnails: true)
        let files = ["orient-6.mp4", "orient-5.jpg", "bad-empty.mp4"].map {
            Library.testMedia.appendingPathComponent($0).path
        }
        let run = audit(.list(files.makeIterator())) { $0.jobs = 1 }
        for record in run.records.sorted(by: { $0.path < $1.path }) { page.add(record) }
        #expect(
            page.thumbnailPaths.count == 1,
            "orient-5.jpg is mirrored; orient-6 has no finding; the empty file has no picture")
        let failed = page.makeThumbnails(jobs: 2)
        try page.finish()
        #expect(failed == 0)
        let thumbnails = folder.appendingPathComponent("page-thumbnails")
        // Orientation 5 turns a 96×160 stored picture into 160×96 on screen.
        for (suffix, width, height) in [("s", 96, 160), ("d", 160, 96)] {
            let bytes = try Data(contentsOf: thumbnails.appendingPathComponent("0-\(suffix).jpg"))
            #expect(bytes.prefix(2) == Data([0xFF, 0xD8]))
            #expect(jpegSize(bytes).map { [$0.width, $0.height] } == [width, height], "\(suffix)")
        }
    }

    /// Width and height from a JPEG's SOF marker.
    func jpegSize(_ bytes: Data) -> (width: Int, height: Int)? {
        let b = [UInt8](bytes)
        var i = 2
        while i + 9 < b.count, b[i] == 0xFF {
            let marker = b[i + 1]
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xC3).contains(marker) {
                return (Int(b[i + 7]) << 8 | Int(b[i + 8]), Int(b[i + 5]) << 8 | Int(b[i + 6]))
            }
            i += 2 + length
        }
        return nil
    }

    /// The page is written as every output is (issue 23): it was opened with O_TRUNC, through a
    /// symbolic link in its place, and emptied the page already there before the audit ran. A
    /// link in its place is written through (issue 28): the new page goes beside the link's
    /// target and is renamed onto it once whole; the link stays a link.
    @Test func thePageWritesThroughALinkAndKeepsTheOldPageUntilItIsWhole() throws {
        let scratch = try scratchFolder("page-link")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let root = scratch.path
        let elsewhere = root + "/elsewhere.txt"
        try Data("not yours".utf8).write(to: URL(fileURLWithPath: elsewhere))
        let pagePath = root + "/linked.html"
        try FileManager.default.createSymbolicLink(atPath: pagePath, withDestinationPath: elsewhere)
        let record = try #require(
            audit(.list([Library.testMedia.appendingPathComponent("orient-2.mp4").path].makeIterator())).records.first)

        let page = try HTMLReport(path: pagePath)
        page.add(record)
        // Until the page is whole, what was there is untouched.
        #expect(try String(contentsOfFile: elsewhere, encoding: .utf8) == "not yours")
        try page.finish()
        let attributes = try FileManager.default.attributesOfItem(atPath: pagePath)
        #expect(attributes[.type] as? FileAttributeType == .typeSymbolicLink, "the link was replaced")
        #expect(try pageRows(String(contentsOfFile: elsewhere, encoding: .utf8)).count == 1)

        // A page never finished (a failed or interrupted run) leaves the old page whole and no
        // temporary file beside it.
        let before = try Data(contentsOf: URL(fileURLWithPath: pagePath))
        do {
            let unfinished = try HTMLReport(path: pagePath)
            unfinished.add(record)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: pagePath)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).sorted() == ["elsewhere.txt", "linked.html"])
    }

    /// Something in the page's place that is not a regular file is never replaced: a folder is
    /// refused, a FIFO gets the page as a stream and stays a FIFO.
    @Test func aPageIntoSomethingNotARegularFile() throws {
        let scratch = try scratchFolder("page-fifo")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folder = scratch.path + "/folder.html"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(throws: InputError(path: folder, reason: "is a directory")) { try HTMLReport(path: folder) }

        let fifo = scratch.path + "/fifo.html"
        #expect(mkfifo(fifo, 0o644) == 0)
        // A reader at the other end, as `audit --html fifo` would have one; it reads to the end.
        let received = Mutex([UInt8]())
        let reader = Thread {
            let descriptor = open(fifo, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while case let count = read(descriptor, &buffer, buffer.count), count > 0 {
                received.withLock { $0 += buffer[..<count] }
            }
            close(descriptor)
        }
        reader.start()
        do {
            let page = try HTMLReport(path: fifo)
            try page.finish()
        }
        while !reader.isFinished { usleep(10_000) }
        #expect(received.withLock { String(decoding: $0, as: UTF8.self) }.hasSuffix("</html>\n"))
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["fifo.html", "folder.html"])
    }

    @Test func aPageInAMissingFolderIsRefusedAtOnce() throws {
        #expect(
            throws: InputError(
                path: "/nonexistent-folder/report.html", reason: "its folder '/nonexistent-folder' does not exist")
        ) {
            try HTMLReport(path: "/nonexistent-folder/report.html")
        }
    }

    /// 20,000 rows here (the browser test loads 100,000): the bytes per row bound the page.
    /// A row that does not encode (a confidence JSON cannot hold) fails the page with the reason;
    /// it was written as `null` (a `try?`), and the page said nothing.
    @Test func aRowThatDoesNotEncodeFailsThePage() throws {
        let folder = try scratchFolder("html-nan")
        defer { try? FileManager.default.removeItem(at: folder) }
        let pagePath = folder.appendingPathComponent("page.html").path
        var verdict = ContentVerdict(
            evidence: ContentEvidence(turns: (0..<4).map { _ in ContentEvidence.Turn(faces: [], scene: 0) }),
            policy: ContentPolicy(
                threshold: 0.9, faceScore: 0.3, faceFloor: -0.5, faceTemperature: 0.25, sceneTemperature: 1))
        verdict.confidence = .nan
        var record = AuditRecord(
            path: "/x/nan.jpg", video: nil, findings: [Finding(.contentSideways, severity: .warning, message: "m")])
        record.content = verdict
        let page = try HTMLReport(path: pagePath)
        page.add(record)
        let error = #expect(throws: InputError.self) { try page.finish() }
        #expect(
            error?.reason.contains("the row of '/x/nan.jpg' could not be encoded") == true,
            "\(String(describing: error))")
    }

    @Test func rowsAreCompact() throws {
        let folder = try scratchFolder("big")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A real record, under 100,000 paths.
        let real = try #require(
            audit(.list([Library.testMedia.appendingPathComponent("orient-2.mp4").path].makeIterator())).records.first)
        let path = folder.appendingPathComponent("big.html").path
        let page = try HTMLReport(path: path)
        for n in 0..<20_000 {
            var record = real
            record.path = "/library/\(n / 1000)/clip-\(n).mp4"
            page.add(record)
        }
        try page.finish()
        let html = try String(contentsOfFile: path, encoding: .utf8)
        #expect(try pageRows(html).count == 20_000)
        // Under 500 bytes a row: 100,000 flagged files make a page of under 50 MB.
        let perRow = html.utf8.count / 20_000
        #expect(perRow < 500, "\(perRow) bytes a row")
    }
}
