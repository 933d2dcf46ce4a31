/// What one file's report says, as `inspect --print` writes it and `--where` tests it: the one
/// table of field names. Made from an inspect report or from an audit record (which holds no
/// container: a video's date, make, model, GPS and duration are then unknown).
public struct ReportFacts: Sendable {
    public var path: String
    /// The container; nil for an audit record.
    public var format: FormatReport?
    public var video: VideoReport?
    public var photo: PhotoReport?
    public var content: ContentVerdict?
    public var findings: [Finding]

    public init(
        path: String, format: FormatReport?, video: VideoReport?, photo: PhotoReport?, content: ContentVerdict?,
        findings: [Finding]
    ) {
        self.path = path
        self.format = format
        self.video = video
        self.photo = photo
        self.content = content
        self.findings = findings
    }

    /// One field as `--print` writes it: `-` when unknown (as exiftool's `-T`), control characters
    /// escaped.
    public func text(_ field: ReportField) -> String {
        value(field)?.escapingControlCharacters ?? "-"
    }

    /// One field's value; nil when unknown.
    public func value(_ field: ReportField) -> String? {
        func number(_ value: Double?) -> String? {
            guard let value else { return nil }
            return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : value.text(decimals: 3)
        }
        let shown = MediaReport.shown(video: video, photo: photo)
        switch field {
        case .path: return path
        case .orientation: return shown?.exifOrientation.map(String.init)
        case .rotation: return number(shown?.rotation)
        case .mirrored: return shown?.mirrored.map { $0 ? "yes" : "no" }
        case .summary: return shown?.exifOrientation.flatMap(Orientation.init(exif:))?.summary
        case .width: return shown?.displayWidth.map(String.init)
        case .height: return shown?.displayHeight.map(String.init)
        case .kind: return shown?.kind
        case .source: return shown?.source
        case .date: return photo?.captureDate ?? format?.captureDate
        case .make: return photo?.make ?? format?.make
        case .model: return photo?.model ?? format?.model
        case .gps:
            return (photo?.location ?? format?.location).map {
                "\($0.latitude.text(decimals: 6)),\($0.longitude.text(decimals: 6))"
            }
        case .duration: return photo == nil ? number(format?.duration) : nil
        case .content: return content?.verdict.rawValue
        case .confidence: return content?.confidence.map { $0.text(decimals: 3) }
        case .findings:
            var seen = Set<String>()
            let codes = findings.map(\.code).filter { seen.insert($0).inserted }
            return codes.isEmpty ? nil : codes.joined(separator: ",")
        }
    }
}

/// A field of `--print` and `--where`.
public enum ReportField: String, Sendable, Hashable, CaseIterable {
    case path, orientation, rotation, mirrored, summary, width, height, kind, source
    /// When it was taken, ISO 8601: a photo's EXIF DateTimeOriginal (with its offset), a video's
    /// creation date.
    case date
    case make, model
    /// `latitude,longitude` in degrees.
    case gps
    /// Seconds (a video; inspect only).
    case duration
    /// The content verdict (`--content`): `upright`, `sideways`, `upside-down`, `no-opinion`.
    case content
    /// The content verdict's confidence.
    case confidence
    /// The findings' codes, comma-separated.
    case findings

    /// Every name, in the order `--help` lists them.
    public static var names: [String] { allCases.map(\.rawValue) }

    /// Whether an audit record can know it: the audit keeps no container, so no duration.
    public var inAudit: Bool { self != .duration }

    /// `--print`'s list: names joined by commas, at least one, each a field.
    public static func parseList(_ text: String) throws(ValueError) -> [ReportField] {
        let names = text.split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }
        let fields = names.compactMap(ReportField.init(rawValue:))
        guard !fields.isEmpty, fields.count == names.count else {
            let unknown = names.filter { ReportField(rawValue: $0) == nil }
            throw ValueError(
                "takes \(ReportField.names.joined(separator: ", ")), not '\(unknown.joined(separator: ","))'")
        }
        return fields
    }
}

/// One `--where FIELD OP VALUE`, as exiftool's `-if` for the common cases. `=` and `!=` compare the
/// text `--print` writes (so `gps!=-` keeps files with a position); `<`, `>`, `<=`, `>=` compare
/// numbers when both sides are numbers, else the texts (ISO dates sort as text: `date<2020`); `~`
/// and `!~` match a glob (`*`, `?`, `[...]`, letters in either case, as `--include`). An unknown
/// value is `-`, and is neither less nor greater than anything.
public struct ReportCondition: Sendable, Hashable, CustomStringConvertible {
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case equal = "=", notEqual = "!=", less = "<", greater = ">", lessOrEqual = "<=", greaterOrEqual = ">="
        case matches = "~", notMatches = "!~"
    }

    public let field: ReportField
    public let comparison: Operator
    public let value: String

    /// `FIELD OP VALUE`, spaces around the operator allowed: `rotation>0`, `make = Apple`,
    /// `path~*/2019/*`.
    public static func parse(_ text: String) throws(ValueError) -> ReportCondition {
        let name = String(text.prefix { $0.isLetter || $0 == "_" })
        let rest = text.dropFirst(name.count).drop { $0 == " " }
        // The longest operator first: `!=` before `=`, `<=` before `<`.
        let operators = Operator.allCases.sorted { $0.rawValue.count > $1.rawValue.count }
        guard let field = ReportField(rawValue: name) else {
            throw ValueError(
                "takes FIELD OP VALUE with FIELD one of \(ReportField.names.joined(separator: ", ")), not '\(name)'")
        }
        guard let comparison = operators.first(where: { rest.hasPrefix($0.rawValue) }) else {
            throw ValueError(
                "takes FIELD OP VALUE with OP one of \(Operator.allCases.map(\.rawValue).joined(separator: " ")), not '\(rest)'"
            )
        }
        let value = rest.dropFirst(comparison.rawValue.count).drop { $0 == " " }
        return ReportCondition(field: field, comparison: comparison, value: String(value))
    }

    /// The same for an audit, which refuses a field its records cannot know.
    public static func parseForAudit(_ text: String) throws(ValueError) -> ReportCondition {
        let condition = try parse(text)
        guard condition.field.inAudit else {
            throw ValueError("cannot test \(condition.field.rawValue): an audit record does not hold it (inspect does)")
        }
        return condition
    }

    public var description: String { field.rawValue + comparison.rawValue + value }

    /// Whether the file's field satisfies it.
    public func holds(for facts: ReportFacts) -> Bool {
        let actual = facts.value(field)
        switch comparison {
        case .equal: return (actual ?? "-") == value
        case .notEqual: return (actual ?? "-") != value
        case .matches: return Glob.matches(value, actual ?? "-")
        case .notMatches: return !Glob.matches(value, actual ?? "-")
        case .less, .greater, .lessOrEqual, .greaterOrEqual:
            guard let actual else { return false }
            let order: Int
            if let left = Double(actual), let right = Double(value) {
                order = left < right ? -1 : (left > right ? 1 : 0)
            } else {
                order = actual < value ? -1 : (actual > value ? 1 : 0)
            }
            switch comparison {
            case .less: return order < 0
            case .greater: return order > 0
            case .lessOrEqual: return order <= 0
            default: return order >= 0
            }
        }
    }
}

extension Array where Element == ReportCondition {
    /// Every condition holds (none given: every file).
    public func hold(for facts: ReportFacts) -> Bool { allSatisfy { $0.holds(for: facts) } }
}

/// The one glob rule of the command line (`--include`, `--exclude`, `--where`'s `~`): fnmatch,
/// `*` crossing `/`, letters in either case as `find -iname`.
public enum Glob {
    /// glibc's FNM_CASEFOLD (a GNU extension Swift's Glibc module does not show).
    private static let caseFold: Int32 = 1 << 4

    public static func matches(_ pattern: String, _ text: String) -> Bool {
        pattern.withPathCString { pattern in text.withPathCString { fnmatch(pattern, $0, caseFold) } } == 0
    }
}

extension MediaReport {
    /// What `--print` and `--where` read of this report.
    public var facts: ReportFacts {
        ReportFacts(path: path, format: format, video: video, photo: photo, content: content, findings: findings)
    }
}
