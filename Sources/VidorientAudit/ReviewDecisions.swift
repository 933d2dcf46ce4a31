import Synchronization
public import VidorientCore
import VidorientIO

/// A file as the review page saw it when the page was made: its size, its modification time and
/// a checksum of its first 64 KiB. The same three later mean the same bytes, near enough for a
/// decision (a tag or matrix fix changes the head; a rewrite moves the mtime). The mtime is in two
/// numbers because a browser reads JSON numbers as doubles, which hold nanoseconds since 1970
/// only to about a quarter of a microsecond.
public struct ReviewedFile: Sendable, Hashable, Codable {
    public var size: Int64
    public var mtimeSeconds: Int64
    public var mtimeNanoseconds: Int64
    /// FNV-1a (64 bits) of the first 64 KiB, in hex.
    public var head: String

    public static let headBytes = 64 * 1024

    /// The file `path` names now; nil when it cannot be read.
    public init?(path: String) {
        guard let key = FileKey(path: path) else { return nil }
        size = key.size
        mtimeSeconds = key.mtimeNanoseconds / 1_000_000_000
        mtimeNanoseconds = key.mtimeNanoseconds % 1_000_000_000
        var hash = FNV1a()
        if key.size > 0 {
            do throws(VidorientError) {
                let file = try FileBytes(path: path)
                hash.add(try file.read(at: 0, count: Int(min(file.size, Int64(Self.headBytes)))))
            } catch {
                return nil
            }
        }
        head = hash.hex
    }

    enum CodingKeys: String, CodingKey {
        case size, mtimeSeconds = "mtime_seconds", mtimeNanoseconds = "mtime_nanoseconds", head = "head_fnv1a"
    }
}

/// FNV-1a, 64 bits: a page's identity (`HTMLReport`) and a file head's checksum (`ReviewedFile`).
/// Not a secret; only a name that changes when the bytes do.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01B3
        }
    }

    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// The suggestions a person rejected on the review page (`audit --decisions FILE`: the page's
/// `vidorient-rejected.jsonl`): while a file's bytes are as they were when it was reviewed
/// (`ReviewedFile`), the audit does not raise its rejected findings again, and counts them.
public final class ReviewDecisions: Sendable {
    /// One line of the decisions file: an audit record as the page's Export writes it.
    public struct Record: Decodable, Sendable {
        public var path: String
        public var approved: Bool?
        public var codes: [String]
        public var reviewedFile: ReviewedFile?

        private struct Coded: Decodable {
            var code: String
            var suggestedFix: SuggestedFix?
            enum CodingKeys: String, CodingKey { case code, suggestedFix = "suggested_fix" }
        }

        enum CodingKeys: String, CodingKey {
            case path, pathBytes = "path_bytes", approved, findings, reviewedFile = "reviewed_file"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            path = try c.decodePath(forKey: .path, bytesKey: .pathBytes)
            approved = try c.decodeIfPresent(Bool.self, forKey: .approved)
            codes = try c.decode([Coded].self, forKey: .findings).filter { $0.suggestedFix != nil }.map(\.code)
            reviewedFile = try c.decodeIfPresent(ReviewedFile.self, forKey: .reviewedFile)
        }
    }

    private struct Rejection: Sendable {
        var codes: Set<String>
        var file: ReviewedFile
    }

    private let rejected: [String: Rejection]
    private let held = Atomic<Int>(0)
    /// Rejections that say nothing of the file they were about (no `reviewed_file`): not used.
    public let unidentified: Int

    /// The rejections among `records` (`"approved": false`); approved ones are not decisions here.
    public init(_ records: [Record]) {
        var rejected: [String: Rejection] = [:]
        var unidentified = 0
        for record in records where record.approved == false && !record.codes.isEmpty {
            guard let file = record.reviewedFile else {
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
        guard kept.count < record.findings.count, ReviewedFile(path: record.path) == rejection.file else { return }
        held.add(record.findings.count - kept.count, ordering: .relaxed)
        record.findings = kept
        record.cached = CachedLine()
    }
}
