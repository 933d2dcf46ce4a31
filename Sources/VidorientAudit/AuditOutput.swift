import VidorientCore

/// How audit results are written. Every format streams: a record is written when its file is
/// done, and nothing but the summary's counts is kept.
public enum AuditFormat: String, Sendable, CaseIterable {
    /// Findings as files finish, then counts per code.
    case human
    /// One document: `{"files": [...], "schema_version": 1, "summary": {...}}`.
    case json
    /// One compact object per file, one per line, as files finish; shards concatenate.
    case jsonl
    /// One row per finding: path, severity, code, message, action, path_bytes (the exact bytes
    /// in hex when the name is not UTF-8 text, empty otherwise); with `inventory`, one row per file.
    case csv
}

public struct AuditWriter: Sendable {
    public let format: AuditFormat
    /// Human output: show info findings too.
    public let showInfo: Bool
    public let colors: Bool
    /// CSV (`--csv --all`): one row per file, findings or none, as `exiftool -csv` gives an inventory.
    public let inventory: Bool
    private let encoder = JSONText(pretty: false)

    public init(format: AuditFormat, showInfo: Bool = false, colors: Bool = false, inventory: Bool = false) {
        self.format = format
        self.showInfo = showInfo
        self.colors = colors
        self.inventory = inventory && format == .csv
    }

    /// The inventory's columns: the `--print` fields a record holds, then the fix.
    static let inventoryFields: [ReportField] = [.kind, .orientation, .rotation, .mirrored, .width, .height, .findings]

    public func begin() -> String {
        switch format {
        case .json: "{\"files\":["
        case .csv:
            inventory
                ? "path," + AuditWriter.inventoryFields.map(\.rawValue).joined(separator: ",")
                    + ",suggested_fix,path_bytes\n"
                : "path,severity,code,message,action,path_bytes\n"
        case .human, .jsonl: ""
        }
    }

    /// The text for one file; `first` tells JSON whether a comma goes before it.
    public func record(_ record: AuditRecord, first: Bool) -> String {
        switch format {
        case .jsonl:
            return (record.cached.line ?? json(record)) + "\n"
        case .json:
            return (first ? "\n" : ",\n") + (record.cached.line ?? json(record))
        case .csv where inventory:
            let facts = record.facts
            let fix = record.findings.lazy.compactMap { MediaReport.fixCommand($0, path: record.path) }.first
            let cells =
                [record.path.pathForDisplay] + AuditWriter.inventoryFields.map { facts.value($0) ?? "" }
                + [fix ?? "", record.path.pathBytesHex ?? ""]
            return cells.map(AuditWriter.csvField).joined(separator: ",") + "\n"
        case .csv:
            return record.findings.map { finding in
                [
                    record.path.pathForDisplay, finding.severity.rawValue, finding.code, finding.message,
                    finding.action ?? "",
                    record.path.pathBytesHex ?? "",
                ]
                .map(AuditWriter.csvField).joined(separator: ",") + "\n"
            }.joined()
        case .human:
            let shown = record.findings.filter { showInfo || $0.severity > .info }
            guard !shown.isEmpty else { return "" }
            let painter = TextPainter(colors: colors)
            var lines = [painter.paint(record.path.escapingControlCharacters, .bold)]
            for finding in shown {
                let style: TextPainter.Style =
                    finding.severity == .error ? .red : (finding.severity == .warning ? .yellow : .cyan)
                lines.append(
                    painter.row(
                        finding.severity.rawValue, "\(finding.code): \(finding.message.escapingControlCharacters)",
                        width: 8, style: style))
                if let action = finding.action {
                    lines.append("  " + "".padded(8) + painter.paint("→ \(action.escapingControlCharacters)", .dim))
                }
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// One record's text added to a worker's chunk (`Auditor.run(_:render:deliver:)`): as
    /// `record(_:first:)` gives it, every JSON record opening with its comma, which
    /// `text(of:first:)` takes off the run's first.
    public func render(_ record: AuditRecord, into text: inout [UInt8]) {
        text += self.record(record, first: false).utf8
    }

    /// The same into a chunk; `marked`: where the record's text ends is noted, for `SortedRecords`.
    public func render(_ record: AuditRecord, into chunk: inout AuditChunk, marked: Bool) {
        render(record, into: &chunk.text)
        if marked { chunk.marks.append(AuditChunk.Mark(path: record.path, end: chunk.text.count)) }
    }

    /// A record the cache answers for, by its stored JSON line (JSONL and JSON), into a worker's
    /// chunk as `render(_:into:marked:)` puts the record.
    public func render(stored line: UnsafeRawBufferPointer, path: String, into chunk: inout AuditChunk, marked: Bool) {
        if format == .json { chunk.text += ",\n".utf8 }
        chunk.text.append(
            contentsOf: UnsafeBufferPointer(
                start: line.baseAddress?.assumingMemoryBound(to: UInt8.self), count: line.count))
        if format == .jsonl { chunk.text.append(UInt8(ascii: "\n")) }
        if marked { chunk.marks.append(AuditChunk.Mark(path: path, end: chunk.text.count)) }
    }

    /// A file the audit cache answers for, rendered from its stored JSON line and its findings'
    /// tally without its record, into a worker's chunk; false when the record is needed.
    public typealias Replay = @Sendable (String, UnsafeRawBufferPointer, FindingTally, inout AuditChunk) -> Bool

    /// `Auditor.run`'s `replay` for this output, rendering as `render(_:into:marked:)` does: JSONL
    /// and JSON write the stored line; the terminal format and CSV write nothing for a file with no
    /// finding they show, and need the record for the others; nil for the CSV inventory (every
    /// file's facts).
    public func replay(marked: Bool) -> Replay? {
        switch format {
        case .jsonl, .json:
            return { path, line, _, chunk in
                render(stored: line, path: path, into: &chunk, marked: marked)
                return true
            }
        case .human, .csv:
            if inventory { return nil }
            // The lowest severity this output shows.
            let shown: Severity = format == .csv || showInfo ? .info : .warning
            return { path, _, tally, chunk in
                guard !tally.entries.contains(where: { $0.severity >= shown }) else { return false }
                if marked { chunk.marks.append(AuditChunk.Mark(path: path, end: chunk.text.count)) }
                return true
            }
        }
    }

    /// Output text (a chunk's, or a block of sorted records'); `first`: nothing was written before it.
    public func text(of text: [UInt8], first: Bool) -> ArraySlice<UInt8> {
        if first, format == .json, text.first == UInt8(ascii: ",") { return text.dropFirst() }
        return text[...]
    }

    public func end(_ summary: AuditSummary) -> String {
        switch format {
        case .json:
            return "\n],\"schema_version\":\(MediaReport.currentSchemaVersion),\"summary\":\(json(summary))}\n"
        case .csv, .jsonl:
            return ""
        case .human:
            var lines: [String] = []
            let rate = summary.filesPerSecond.rounded()
            lines.append(
                "\(summary.files.counting("file")) in \(String(format3(summary.seconds))) s "
                    + "(\(Int(rate).counting("file"))/s)"
                    + (summary.shard.map { ", shard \($0)" } ?? "") + ": \(summary.filesWithFindings) with findings, "
                    + "\(summary.failing) at or above \(summary.failOn.rawValue), \(summary.unreadable) unreadable")
            let codes = summary.findingsByCode.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            for (code, count) in codes { lines.append("  " + code.padded(24) + String(count)) }
            for (kind, count) in summary.skipped.sorted(by: { $0.key < $1.key }) {
                lines.append("  skipped: " + kind.padded(15) + String(count))
            }
            // Where the problems are, folder by folder, when there are any and more than one folder.
            let flagged = summary.folders.filter { $0.value.failing > 0 }
            if !flagged.isEmpty && summary.folders.count > 1 {
                lines.append("by folder (files at or above \(summary.failOn.rawValue) of the files audited there):")
                for (folder, count) in flagged.sorted(by: {
                    $0.key.pathBytes.lexicographicallyPrecedes($1.key.pathBytes)
                }) {
                    lines.append("  " + "\(count.failing)/\(count.files)".padded(12) + folder.escapingControlCharacters)
                }
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    private func json(_ value: some Encodable) -> String {
        // Report types encode every value as JSON can hold it; nothing here can fail.
        (try? encoder.encode(value)) ?? "null"
    }

    /// RFC 4180: quoted when it holds a comma, quote or line break; quotes doubled. A field that
    /// a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a
    /// carriage return, as a file named `=1+1.mp4` does) gets a leading `'` and is quoted, as
    /// OWASP advises for CSV injection: the cell then shows the text, not a result.
    static func csvField(_ text: String) -> String {
        let formula = text.first.map { "=+-@\t\r".contains($0) } ?? false
        let text = formula ? "'" + text : text
        guard formula || text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
            return text
        }
        return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    private func format3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
