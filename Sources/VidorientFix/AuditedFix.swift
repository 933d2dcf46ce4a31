import FoundationEssentials
public import VidorientCore

/// The fix an audit record asks for (`audit --jsonl`, one record a line): the suggested fixes
/// of its findings (`suggested_fix`, set only where the fix is unambiguous and lossless), which
/// must all agree. Nothing else from the record is acted on.
public struct AuditedFix: Sendable, Hashable {
    public var path: String
    public var orientation: Orientation
    public var resetMovieMatrix: Bool
    /// The findings that asked for it, in the record's order.
    public var codes: [String]
    /// What the audit saw the file show; a file that shows something else now changed since the
    /// audit, and is refused.
    public var shownAtAudit: Orientation?
    /// What identified the file at the audit (the record's `file`; nil in a record from before
    /// schema 5): a file that differs now is refused as changed since the audit.
    public var audited: AuditedFile?

    public init(
        path: String, orientation: Orientation, resetMovieMatrix: Bool, codes: [String], shownAtAudit: Orientation?,
        audited: AuditedFile? = nil
    ) {
        self.path = path
        self.orientation = orientation
        self.resetMovieMatrix = resetMovieMatrix
        self.codes = codes
        self.shownAtAudit = shownAtAudit
        self.audited = audited
    }

    /// The fix one JSONL line asks for; nil when none of its findings carries one (or none that
    /// `selection` applies). Throws for a line that is not an audit record, or whose findings
    /// ask for different orientations.
    public static func parse(line: String, selection: AuditSelection = AuditSelection()) throws(VidorientError)
        -> AuditedFix?
    {
        let record: Record
        do { record = try JSONDecoder().decode(Record.self, from: Data(line.utf8)) } catch {
            let detail = (error as? DecodingError)?.summary ?? "\(error)"
            throw .malformed("not an audit record (audit --jsonl and audit --json write them): \(detail)")
        }
        return try choose(record, selection: selection).fix
    }

    /// The fix a record asks for, of the findings `selection` applies, with a note for each
    /// judgment applied and each suggested fix held back; nil when none is applied. Throws when
    /// the findings applied ask for different orientations, or for one that is not 1-8.
    static func choose(_ record: Record, selection: AuditSelection) throws(VidorientError) -> (
        fix: AuditedFix?, notes: [AuditNote]
    ) {
        var asked: [(String, SuggestedFix)] = []
        var notes: [AuditNote] = []
        for finding in record.findings {
            guard let suggested = finding.suggestedFix else { continue }
            switch selection.choose(
                code: finding.code, confidence: record.content?.confidence, approved: record.approved == true)
            {
            case .apply(let why):
                asked.append((finding.code, suggested))
                if let why {
                    notes.append(AuditNote(path: record.path, code: finding.code, reason: why, applied: true))
                }
            case .hold(let why):
                notes.append(AuditNote(path: record.path, code: finding.code, reason: why, applied: false))
            }
        }
        guard let first = asked.first else { return (nil, notes) }
        guard asked.allSatisfy({ $0.1.orientation == first.1.orientation }) else {
            let list = asked.map { "\($0.0) orientation \($0.1.orientation)" }.joined(separator: ", ")
            throw .malformed("the audit's findings ask for different fixes (\(list)); fix it by hand")
        }
        guard let orientation = Orientation(exif: first.1.orientation) else {
            throw .malformed("the audit suggests orientation \(first.1.orientation), which is not 1-8")
        }
        let fix = AuditedFix(
            path: record.path, orientation: orientation, resetMovieMatrix: asked.contains { $0.1.resetMovieMatrix },
            codes: asked.map(\.0),
            shownAtAudit: (record.photo?.exifOrientation ?? record.video?.exifOrientation).flatMap(
                Orientation.init(exif:)), audited: record.file)
        return (fix, notes)
    }

    /// The part of an audit record a fix reads.
    struct Record: Decodable {
        struct Shown: Decodable {
            var exifOrientation: Int?
            enum CodingKeys: String, CodingKey { case exifOrientation = "exif_orientation" }
        }
        var path: String
        var findings: [Finding]
        var video: Shown?
        var photo: Shown?
        var file: AuditedFile?
        /// The content verdict's confidence, for `--min-confidence`.
        var content: Content?
        /// Set by the review page's export: the person approved this record's suggested fix
        /// (`true`), or rejected it (`false`, in the decisions file). Absent from the audit's own output.
        var approved: Bool?

        struct Content: Decodable { var confidence: Double? }

        enum CodingKeys: String, CodingKey {
            case path, findings, video, photo, content, approved, file
        }

        // Hand-written: `path` is read from `path_bytes` when that is set (PathBytes.swift).
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            path = try decoder.decodePath(forKey: CodingKeys.path)
            findings = try c.decode([Finding].self, forKey: .findings)
            video = try c.decodeIfPresent(Shown.self, forKey: .video)
            photo = try c.decodeIfPresent(Shown.self, forKey: .photo)
            file = try c.decodeIfPresent(AuditedFile.self, forKey: .file)
            content = try c.decodeIfPresent(Content.self, forKey: .content)
            approved = try c.decodeIfPresent(Bool.self, forKey: .approved)
        }
    }
}
