import Synchronization
import Vidorient
public import VidorientCore
import VidorientIO

/// One self-contained HTML page of an audit, and the review page of its suggested fixes: a summary
/// by rule and severity, then the files with findings in a table that filters, sorts, searches
/// and pages in the browser; each row with a `suggested_fix` has Approve and Reject, kept in the
/// browser's localStorage under the audit's own identity (`Summary.audit`), and Export downloads
/// the approved records as a list `fix --from-audit` takes unchanged (each marked `"approved":
/// true`) and the rejected ones as a decisions file (`"approved": false`). Works offline: no
/// external asset. Written as records come: rows go out as compact JSON inside the page, and
/// only one page of them (100 by default) is ever in the DOM, so 100,000 flagged files stay usable.
public final class HTMLReport {
    public let path: String
    /// The folder beside the page that holds the thumbnails, when asked for.
    public let thumbnailFolder: String?
    private let descriptor: Int32
    /// Whether `descriptor` is this page's to close (a stream's, not standard output's; a
    /// pending file closes its own).
    private let ownsDescriptor: Bool
    /// The temporary file the page is written to until `finish` renames it over the path (or the
    /// target of the link it names); nil when the page streams into something that is not a
    /// regular file. Removed if the page is never finished.
    private let pending: PendingFile?
    private var buffer: [UInt8] = []
    /// Files with findings (the page's rows), and files seen.
    public private(set) var rows = 0
    public private(set) var files = 0
    private var byCode: [String: Int] = [:]
    private var bySeverity: [String: Int] = [:]
    /// Flagged files to make thumbnails of, by row number, with the turn a content finding
    /// suggests (a third picture, "as suggested").
    public private(set) var thumbnailPaths: [String] = []
    private var suggestedTurns: [Int?] = []
    private let encoder = JSONText(pretty: false)
    /// FNV-1a of every row as written: the same audit gives the same page identity, under which
    /// the browser keeps the decisions made on it.
    private var identity = FNV1a()

    /// Creates the page. Fails with one line when the folder is missing or not writable.
    public init(path: String, thumbnails: Bool = false) throws(InputError) {
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        var status = stat()
        if !folder.isEmpty, folder.withPathCString({ stat($0, &status) }) != 0 {
            throw InputError(path: path, reason: "its folder '\(folder)' does not exist")
        }
        // Where the page goes is decided as for every output (`OutputDestination`): a regular
        // file (or a new one; through a symbolic link, its target) is written into a temporary
        // file beside it, renamed over it by `finish`, so that a page already there stays whole
        // until the new one is; standard output (`-`), a FIFO or a device is written to as a
        // stream and never replaced; a folder is refused.
        let destination: OutputDestination
        do throws(VidorientError) { destination = try OutputDestination(path: path) } catch {
            throw InputError(path: path, reason: error.reason)
        }
        if thumbnails && destination.isStream {
            throw InputError(path: path, reason: "--thumbnails needs the page in a folder, not a stream")
        }
        do throws(VidorientError) {
            switch destination {
            case .file(let target):
                let created = try PendingFile(for: target, mode: 0o644)
                descriptor = created.descriptor
                pending = created
                ownsDescriptor = false
            case .standardOutput, .stream:
                (descriptor, ownsDescriptor) = try destination.openStream()
                pending = nil
            }
        } catch {
            throw InputError(path: path, reason: error.reason)
        }
        self.path = path
        if thumbnails {
            let base = path.hasSuffix(".html") ? String(path.dropLast(5)) : path
            thumbnailFolder = base + "-thumbnails"
        } else {
            thumbnailFolder = nil
        }
        append(HTMLReport.head)
    }

    deinit {
        // A page never finished (an interrupted or failed run) leaves nothing behind: `pending`
        // removes its temporary file.
        if ownsDescriptor { close(descriptor) }
    }

    /// Counts every record; files with findings become rows.
    public func add(_ record: AuditRecord) {
        files += 1
        guard !record.findings.isEmpty else { return }
        for finding in record.findings {
            byCode[finding.code, default: 0] += 1
            bySeverity[finding.severity.rawValue, default: 0] += 1
        }
        let thumbnail: Int?
        if thumbnailFolder != nil, !record.isUnreadable {
            thumbnail = thumbnailPaths.count
            thumbnailPaths.append(record.path)
            suggestedTurns.append(HTMLReport.suggestedTurn(record))
        } else {
            thumbnail = nil
        }
        // `<` never appears outside a JSON string, and escaped it cannot end the script element.
        let json: String
        do {
            // The record as `audit --jsonl` wrote it, for Export; only where there is a fix to decide.
            let line =
                try record.findings.contains { $0.suggestedFix != nil }
                ? (record.cached.line ?? encoder.encode(record)) : nil
            json = try encoder.encode(Row(record, thumbnail: thumbnail, line: line)).replacing("<", with: "\\u003c")
        } catch {
            // A row that does not encode fails the page (in `finish`), its reason kept.
            fail("the row of '\(record.path)' could not be encoded: \(error)")
            return
        }
        identity.add(json.utf8)
        identity.add(CollectionOfOne(0x0A))
        append((rows == 0 ? "\n" : ",\n") + json)
        rows += 1
        if buffer.count > 1 << 16 { flush() }
    }

    /// Closes the data and writes the summary and the script. Throws when the disk refused a write.
    public func finish(seconds: Double? = nil) throws(InputError) {
        append("\n]</script>\n")
        append("<script id=\"summary\" type=\"application/json\">")
        let summary = Summary(
            files: files, flagged: rows, byCode: byCode, bySeverity: bySeverity, audit: identity.hex,
            thumbnails: thumbnailFolder.map { $0.split(separator: "/").last.map(String.init) ?? $0 })
        do {
            append(try encoder.encode(summary).replacing("<", with: "\\u003c"))
        } catch {
            fail("the summary could not be encoded: \(error)")
        }
        append("</script>\n<script>\n" + HTMLReport.script + "</script>\n</body>\n</html>\n")
        flush()
        if failed { throw InputError(path: path, reason: failure) }
        guard let pending else { return }
        do throws(VidorientError) {
            try pending.flush("the page")
            try pending.commit("the page")
        } catch {
            throw InputError(path: path, reason: error.reason)
        }
    }

    private var failed = false
    private var failure = ""

    private func append(_ text: String) { buffer += text.utf8 }

    private func flush() {
        if !failed {
            do throws(VidorientError) { try System.write(descriptor, buffer, at: nil) } catch {
                fail(error.code != 0 ? System.reason(error.code) : error.reason)
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// The first failure is the one `finish` reports.
    private func fail(_ reason: String) {
        guard !failed else { return }
        failed = true
        failure = reason
    }

    /// Makes an "as stored" and an "as displayed" JPEG of each flagged file (and "as suggested"),
    /// the longest side at most `width` and never enlarged: large enough to judge, and the page
    /// enlarges one on a click. `jobs` at once;
    /// `progress` gets (done, total) after each. Returns how many could not be made (those rows
    /// show no picture).
    public func makeThumbnails(
        jobs: Int, width: Int = 480, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    )
        -> Int
    {
        guard let folder = thumbnailFolder, !thumbnailPaths.isEmpty else { return 0 }
        _ = folder.withPathCString { mkdir($0, 0o755) }
        let paths = thumbnailPaths
        let turns = suggestedTurns
        let done = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        forEachConcurrently(paths.count, jobs: jobs, onCores: true) { index in
            do {
                let frame = try Thumbnailer(font: nil).frame(
                    paths[index], request: ThumbnailRequest(largestSide: width))
                // `stored` is at the displayed picture's scale already.
                var pictures = [(frame.stored, "s"), (frame.picture, "d")]
                if let turn = turns[index], let orientation = Orientation(rotation: turn, mirrored: false) {
                    pictures.append((frame.picture.oriented(orientation), "u"))
                }
                for (picture, suffix) in pictures {
                    let bytes = try ImageFormat.jpg.encode(picture, quality: 80)
                    try writeFile(folder + "/\(index)-\(suffix).jpg", bytes)
                }
            } catch {
                failures.add(1, ordering: .relaxed)
            }
            progress(done.add(1, ordering: .relaxed).newValue, paths.count)
        }
        return failures.load(ordering: .relaxed)
    }

    /// One row of the table, with short keys: the page holds up to 100,000 of them.
    struct Row: Encodable {
        let record: AuditRecord
        let thumbnail: Int?
        /// The record's JSONL line, when one of its findings has a `suggested_fix`.
        let line: String?

        init(_ record: AuditRecord, thumbnail: Int?, line: String? = nil) {
            self.record = record
            self.thumbnail = thumbnail
            self.line = line
        }

        enum Keys: String, CodingKey { case p, f, c, s, d, x, t, u, j, k }
        enum FindingKeys: String, CodingKey { case v, r, m, a, n, g }

        // Hand-written: a different shape (one-letter keys, values computed from the record).
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(record.path.pathForDisplay, forKey: .p)  // \xHH for bytes that are not UTF-8 text
            try c.encode(HTMLReport.format(record.path), forKey: .f)
            try c.encode(record.video?.codec ?? record.photo?.codec, forKey: .c)
            let shape = HTMLReport.Shape(record)
            try c.encode(shape.map(\.stored), forKey: .s)
            try c.encode(shape.map(\.displayed), forKey: .d)
            var list = c.nestedUnkeyedContainer(forKey: .x)
            for finding in record.findings {
                var f = list.nestedContainer(keyedBy: FindingKeys.self)
                try f.encode(finding.severity.rawValue, forKey: .v)
                try f.encode(finding.code, forKey: .r)
                try f.encode(finding.message, forKey: .m)
                try f.encode(HTMLReport.command(finding.action), forKey: .a)
                try f.encode(HTMLReport.condition(finding.action), forKey: .n)
                try f.encode(finding.suggestedFix?.orientation, forKey: .g)
            }
            try c.encode(thumbnail, forKey: .t)
            try c.encode(HTMLReport.suggestedTurn(record), forKey: .u)
            try c.encode(line, forKey: .j)
            try c.encode(record.content?.confidence, forKey: .k)
        }
    }

    struct Summary: Encodable {
        let files: Int
        let flagged: Int
        let byCode: [String: Int]
        let bySeverity: [String: Int]
        let audit: String
        let thumbnails: String?

        enum CodingKeys: String, CodingKey {
            case files, flagged, byCode = "by_code", bySeverity = "by_severity", audit, thumbnails
        }
    }

    /// The clockwise turn a content finding suggests (`content-sideways`, `content-upside-down`).
    static func suggestedTurn(_ record: AuditRecord) -> Int? {
        guard record.findings.contains(where: { $0.kind?.isJudgment == true }),
            let turn = record.content?.turnNeeded, turn != 0
        else { return nil }
        return turn
    }

    /// The file's kind as its name says (`mp4`, `mov`, `jpg`…).
    static func format(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "?" }
        return path[path.index(after: dot)...].lowercased()
    }

    /// A file's picture as stored and as displayed, for the Stored and Displayed columns: a
    /// video's or a photo's, from the record's report (photos had none before: issue 24).
    struct Shape {
        var storedSize: (width: Int, height: Int)?
        var displayedSize: (width: Int, height: Int)?
        var rotation: Double?
        var mirrored: Bool
        var exifOrientation: Int?

        init?(_ record: AuditRecord) {
            if let video = record.video {
                storedSize = Shape.size(video.codedWidth, video.codedHeight)
                displayedSize = Shape.size(video.displayWidth, video.displayHeight)
                rotation = video.rotation
                mirrored = video.mirrored == true
                exifOrientation = video.exifOrientation
            } else if let photo = record.photo {
                storedSize = Shape.size(photo.storedWidth, photo.storedHeight)
                displayedSize = Shape.size(photo.displayWidth, photo.displayHeight)
                rotation = Double(photo.rotation)
                mirrored = photo.mirrored
                exifOrientation = photo.exifOrientation
            } else {
                return nil
            }
        }

        private static func size(_ width: Int?, _ height: Int?) -> (width: Int, height: Int)? {
            guard let width, let height else { return nil }
            return (width, height)
        }

        private static func describe(_ size: (width: Int, height: Int)) -> String {
            "\(size.width)×\(size.height) " + Layout(width: size.width, height: size.height).rawValue
        }

        /// How the pixels are stored: size and shape.
        var stored: String { storedSize.map(Shape.describe) ?? "?" }

        /// How a viewer shows them: displayed size, shape, and the turn that gets there.
        var displayed: String {
            // The one phrase every command shows (`EXIF 6: rotate 90° clockwise`).
            let turn = rotation.map { Orientation.phrase(rotation: $0, mirrored: mirrored) }
            return [displayedSize.map(Shape.describe) ?? "", turn ?? ""].filter { !$0.isEmpty }.joined(separator: ", ")
        }
    }

    /// The `vidorient …` command of an action, as the action says it: Core quoted its path once
    /// (`MediaReport.shellQuoted`), and quoting it again here would undo that (issue 23). Other
    /// actions as they are.
    static func command(_ action: String?) -> String? {
        guard let action else { return nil }
        guard let start = action.firstRange(of: "vidorient ") else { return action }
        return String(action[start.lowerBound...])
    }

    /// What an action says before its command ("if the mirror is unintended"), shown beside it.
    static func condition(_ action: String?) -> String? {
        guard let action, let start = action.firstRange(of: "vidorient "), start.lowerBound > action.startIndex else {
            return nil
        }
        var lead = action[..<start.lowerBound]
        while let last = lead.last, last == " " || last == ":" { lead = lead.dropLast() }
        return lead.isEmpty ? nil : String(lead)
    }

}

/// A thumbnail beside the page, written as every output is (`OutputFile`: flushed, then renamed).
private func writeFile(_ path: String, _ bytes: [UInt8]) throws(InputError) {
    try OutputFile.write(bytes, to: path)
}
