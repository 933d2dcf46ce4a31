import VidorientCore

/// What `fix --from-audit` applies of an audit: only what the user meant. `--only` and `--skip`
/// name codes, `--min-confidence` is a floor for the content verdict's confidence, and a
/// judgment (a `content-*` finding: the content verdict's opinion of the picture, not a fact
/// read from the file's bytes) is applied only when its record is marked approved (`"approved":
/// true`, written by the review page's export) or `--only` names its code. The findings about
/// the tags and matrices (mirrored, invalid EXIF, conflicts) are facts: no approval, no floor.
public struct AuditSelection: Sendable, Hashable {
    /// Only these codes, when given.
    public var only: Set<String>?
    public var skip: Set<String>
    /// The lowest confidence of a judgment applied, when given (0-1).
    public var minimumConfidence: Double?

    public init(only: Set<String>? = nil, skip: Set<String> = [], minimumConfidence: Double? = nil) {
        self.only = only
        self.skip = skip
        self.minimumConfidence = minimumConfidence
    }

    /// The codes of `--only` and `--skip`: `content-sideways,mirrored`, spaces around each ignored.
    public static func codes(_ list: String) -> Set<String> {
        Set(
            list.split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }.filter { !$0.isEmpty })
    }

    /// A finding whose suggested fix comes from a judgment of the picture, not from its tags.
    /// A code this version does not know is one when it is a `content-` code (another version's
    /// judgment waits for approval too).
    public static func isJudgment(_ code: String) -> Bool {
        FindingCode(rawValue: code)?.isJudgment ?? code.hasPrefix("content-")
    }

    /// Whether one finding's suggested fix is applied, and why, for the dry run.
    public enum Choice: Sendable, Hashable {
        /// Applied; for a judgment, why (`approved in the list`, `--only names content-sideways`).
        case apply(because: String?)
        case hold(because: String)

        public var isApplied: Bool { if case .apply = self { true } else { false } }
    }

    /// The choice for a finding `code` of a record whose content verdict has `confidence`,
    /// `approved` when the list marks the record so.
    public func choose(code: String, confidence: Double?, approved: Bool) -> Choice {
        if skip.contains(code) { return .hold(because: "--skip names \(code)") }
        if let only, !only.contains(code) { return .hold(because: "--only does not name \(code)") }
        guard Self.isJudgment(code) else { return .apply(because: nil) }
        if let floor = minimumConfidence {
            guard let confidence else {
                return .hold(
                    because: "a judgment without a confidence, below --min-confidence \(floor.text(decimals: 3))")
            }
            if confidence < floor {
                return .hold(
                    because:
                        "confidence \(confidence.text(decimals: 3)) is below --min-confidence \(floor.text(decimals: 3))"
                )
            }
        }
        let sure = confidence.map { ", confidence \($0.text(decimals: 3))" } ?? ""
        if approved { return .apply(because: "approved in the list\(sure)") }
        if only?.contains(code) == true { return .apply(because: "--only names \(code)\(sure)") }
        return .hold(
            because:
                "a judgment\(sure), not approved: approve it on the review page (audit --html) or name \(code) in --only"
        )
    }
}

/// A judgment applied, or a suggested fix held back, and why: what the dry run says.
public struct AuditNote: Sendable, Hashable {
    public var path: String
    public var code: String
    public var reason: String
    public var applied: Bool

    public init(path: String, code: String, reason: String, applied: Bool) {
        self.path = path
        self.code = code
        self.reason = reason
        self.applied = applied
    }

    /// One line for a person: `a.jpg: content-sideways held back: …`.
    public func line(dryRun: Bool) -> String {
        let verb = applied ? (dryRun ? "would be applied" : "applied") : "held back"
        return "\(path.escapingControlCharacters): \(code) \(verb): \(reason)"
    }
}
