import Synchronization
public import VidorientCore
import VidorientIO

/// The suggestions a person rejected on the review page (`audit --decisions FILE`: the page's
/// `vidorient-rejected.jsonl`): while a file is as the audit that the page shows found it (the
/// record's `file`, Core's `AuditedFile`: inode, size, mtime and its first 4 KiB), the audit does
/// not raise its rejected findings again, and counts them.
public final class ReviewDecisions: Sendable {
    /// One line of the decisions file: an audit record as the page's Export writes it.
    public struct Record: Decodable, Sendable {
        public var path: String
        public var approved: Bool?
        public var codes: [String]
        /// The file as the audit read it (the record's `file`, kept byte for byte by the export).
        public var file: AuditedFile?

        private struct Coded: Decodable {
            var code: String
            var suggestedFix: SuggestedFix?
            enum CodingKeys: String, CodingKey { case code, suggestedFix = "suggested_fix" }
        }

        enum CodingKeys: String, CodingKey {
            case path, approved, findings, file
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            path = try decoder.decodePath(forKey: CodingKeys.path)
            approved = try c.decodeIfPresent(Bool.self, forKey: .approved)
            codes = try c.decode([Coded].self, forKey: .findings).filter { $0.suggestedFix != nil }.map(\.code)
            file = try c.decodeIfPresent(AuditedFile.self, forKey: .file)
        }
    }

    private struct Rejection: Sendable {
        var codes: Set<String>
        var file: AuditedFile
    }

    private let rejected: [String: Rejection]
    private let held = Atomic<Int>(0)
    /// Rejections that say nothing of the file they were about (no `file`): not used.
    public let unidentified: Int

    /// The rejections among `records` (`"approved": false`); approved ones are not decisions here.
    public init(_ records: [Record]) {
        var rejected: [String: Rejection] = [:]
        var unidentified = 0
        for record in records where record.approved == false && !record.codes.isEmpty {
            guard let file = record.file else {
                unidentified += 1
                continue
            }
            rejected[record.path] = Rejection(codes: Set(record.codes), file: file)
        }
        self.rejected = rejected
        self.unidentified = unidentified
    }

    public var count: Int { rejected.count }

    /// Findings held back so far.
    public var heldBack: Int { held.load(ordering: .relaxed) }

    /// Takes out of `record` the findings rejected for its file, when the file is as it was.
    public func apply(_ record: inout AuditRecord) {
        guard let rejection = rejected[record.path] else { return }
        let kept = record.findings.filter { !(rejection.codes.contains($0.code) && $0.suggestedFix != nil) }
        // The file read again only where a rejection names it: the rest of the audit pays nothing.
        // Absent is fine: a file that cannot be identified now is not the one rejected; its fix stays.
        guard kept.count < record.findings.count, (try? AuditedFile(path: record.path)) == rejection.file else {
            return
        }
        held.add(record.findings.count - kept.count, ordering: .relaxed)
        record.findings = kept
        record.cached = CachedLine()
    }
}
