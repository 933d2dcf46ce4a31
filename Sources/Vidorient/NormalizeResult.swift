import VidorientCore

/// One photo's normalize, as `--json` prints it (docs/normalize.md lists every key).
public struct NormalizeResult: Sendable, Encodable {
    public static let schemaVersion = 1

    /// The plan, without its bytes (the new file, which need not stay in memory once written).
    public let plan: NormalizePlan
    public let dryRun: Bool
    public let preserveMtime: Bool
    public internal(set) var writtenPath: String?
    public internal(set) var sizeAfter: Int?
    public internal(set) var verified = false

    init(plan: NormalizePlan, dryRun: Bool, preserveMtime: Bool) {
        var kept = plan
        kept.contents = []
        self.plan = kept
        self.dryRun = dryRun
        self.preserveMtime = preserveMtime
        sizeAfter = dryRun && !plan.isUpright ? plan.newSize : nil
    }

    /// `normalized`, `already_upright` or, with `--dry-run`, `would_normalize`.
    public var status: String { plan.isUpright ? "already_upright" : dryRun ? "would_normalize" : "normalized" }

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", path, format, status, dryRun = "dry_run"
        case orientationBefore = "orientation_before", orientationAfter = "orientation_after", transform, method
        case storedWidthBefore = "stored_width_before", storedHeightBefore = "stored_height_before"
        case widthAfter = "width_after", heightAfter = "height_after", trimmed, thumbnail
        case thumbnailReason = "thumbnail_reason", changes, warnings, sizeBefore = "size_before", sizeAfter =
            "size_after"
        case writtenPath = "written_path", verified
        case mtimePreserved = "mtime_preserved"
    }

    // Hand-written: a different shape, every key computed from the plan and the outcome.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.schemaVersion, forKey: .schemaVersion)
        try c.encodePath(plan.path, forKey: .path)
        try c.encode(plan.format.description, forKey: .format)
        try c.encode(status, forKey: .status)
        try c.encode(dryRun, forKey: .dryRun)
        try c.encode(plan.before.exif, forKey: .orientationBefore)
        try c.encode(1, forKey: .orientationAfter)
        try c.encode(plan.transform.rawValue, forKey: .transform)
        try c.encode(plan.method, forKey: .method)
        try c.encode(plan.storedWidth, forKey: .storedWidthBefore)
        try c.encode(plan.storedHeight, forKey: .storedHeightBefore)
        try c.encode(plan.width, forKey: .widthAfter)
        try c.encode(plan.height, forKey: .heightAfter)
        try c.encode(plan.trimmed, forKey: .trimmed)
        try c.encode(plan.thumbnail.name, forKey: .thumbnail)
        if case .dropped(let reason) = plan.thumbnail {
            try c.encode(reason, forKey: .thumbnailReason)
        } else {
            try c.encodeNil(forKey: .thumbnailReason)
        }
        try c.encode(plan.changes, forKey: .changes)
        try c.encode(plan.warnings, forKey: .warnings)
        try c.encode(plan.originalSize, forKey: .sizeBefore)
        try c.encode(sizeAfter, forKey: .sizeAfter)
        try c.encodePath(writtenPath, forKey: .writtenPath)
        try c.encode(verified, forKey: .verified)
        try c.encode(preserveMtime && writtenPath != nil, forKey: .mtimePreserved)
    }
}

extension NormalizeResult {
    /// One photo's normalize as a person reads it (`vidorient normalize`'s output without --json).
    public func text(_ painter: TextPainter) -> String {
        let result = self
        let plan = result.plan
        var block = TextBlock(plan.path, painter: painter, labelWidth: 11)
        let size = { (w: Int?, h: Int?) in "\(w.map(String.init) ?? "?")x\(h.map(String.init) ?? "?")" }
        if plan.isUpright {
            block.row(
                "unchanged",
                "already upright (EXIF \(plan.before.exif)); "
                    + (result.writtenPath.map { "copied to \($0.escapingControlCharacters)" } ?? "nothing written"))
            return block.text
        }
        block.row("orientation", "\(plan.before.phrase) -> \(painter.paint(Orientation.up.phrase, .green))")
        block.row(
            "pixels",
            "\(plan.transform.rawValue), \(plan.method == .losslessTransform ? "lossless transform" : "lossless re-encode")"
        )
        block.row(
            "size",
            "\(size(plan.storedWidth, plan.storedHeight)) stored -> \(size(plan.width, plan.height))"
                + (plan.trimmed ? " (trimmed)" : ""))
        switch plan.thumbnail {
        case .absent: break
        case .transformed: block.row("thumbnail", "turned losslessly")
        case .dropped(let reason): block.row("thumbnail", "dropped: \(reason)")
        }
        for change in plan.changes.dropFirst() { block.row(result.dryRun ? "to change" : "changed", change) }
        block.outcome(
            dryRun: result.dryRun, written: result.writtenPath, verified: result.verified,
            would: "\(result.sizeAfter ?? 0) bytes would be written", done: "\(result.sizeAfter ?? 0) bytes")
        return block.text
    }
}
