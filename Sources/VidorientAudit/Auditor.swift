import Dispatch
import Synchronization
import Vidorient
public import VidorientContent
public import VidorientCore
public import VidorientIO
import VidorientISOBMFF
import VidorientPhoto

public struct AuditOptions: Sendable {
    public var walk = WalkOptions()
    /// Files probed at once.
    public var jobs = processorCount
    /// Seconds after which a file's probe gives up and the file is reported.
    public var timeout: Double? = 30
    /// Probe every file with FFmpeg, decoding each video's first frame (finds H.264/HEVC
    /// orientation SEI and undecodable frames), instead of reading MP4/QuickTime headers alone.
    public var deep = false
    /// Findings at or above this make the exit status 1.
    public var failOn: Severity = .warning
    /// Results kept between runs: an unchanged file is answered without being opened.
    public var cache: AuditCache?
    /// Judge each file's pixels too (`--content`): the content verdict and its findings.
    public var content: ContentPolicy?

    public init() {}
}

/// One audited file: what `inspect` would say of its video, and the findings.
public struct AuditRecord: Sendable, Hashable, Codable {
    public var schemaVersion: Int
    public var path: String
    public var video: VideoReport?
    public var photo: PhotoReport?
    public var findings: [Finding]
    /// The content verdict, with `--content`; nil otherwise.
    public var content: ContentVerdict?
    /// The record's exact JSON line when it went through the audit cache (replayed from it, or
    /// just stored in it): writers write it instead of encoding the record again, byte for byte.
    /// Not part of the record's value; reset it (`CachedLine()`) after changing a record.
    public var cached = CachedLine()

    public init(path: String, video: VideoReport?, photo: PhotoReport? = nil, findings: [Finding]) {
        self.schemaVersion = MediaReport.currentSchemaVersion
        self.path = path
        self.video = video
        self.photo = photo
        self.findings = findings
    }

    /// The record of a report: its video or photo, its findings and its content verdict.
    public init(_ report: MediaReport) {
        self.init(path: report.path, video: report.video, photo: report.photo, findings: report.findings)
        self.content = report.content
    }

    /// The codes that mean the file itself could not be probed.
    public static let unreadableCodes: Set<String> = ["unreadable", "timeout"]

    public var isUnreadable: Bool { findings.contains { AuditRecord.unreadableCodes.contains($0.code) } }

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", path, pathBytes = "path_bytes", video, photo, findings, content
    }

    // Hand-written: `path` is read from `path_bytes` when that is set (PathBytes.swift).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try c.decode(Int.self, forKey: .schemaVersion)
        path = try c.decodePath(forKey: .path, bytesKey: .pathBytes)
        video = try c.decodeIfPresent(VideoReport.self, forKey: .video)
        photo = try c.decodeIfPresent(PhotoReport.self, forKey: .photo)
        findings = try c.decode([Finding].self, forKey: .findings)
        content = try c.decodeIfPresent(ContentVerdict.self, forKey: .content)
    }

    // Hand-written for `path_bytes`, a key computed from the path.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schemaVersion, forKey: .schemaVersion)
        // The display form, and the exact bytes when the name is not UTF-8 text (PathBytes.swift).
        try c.encodePath(path, forKey: .path, bytesKey: .pathBytes)
        try c.encode(video, forKey: .video)
        try c.encode(photo, forKey: .photo)
        try c.encode(findings, forKey: .findings)
        try c.encode(content, forKey: .content)
    }
}

/// Counts over a whole run; the only state an audit keeps, so memory stays flat.
public struct AuditSummary: Sendable, Hashable, Codable {
    public var files = 0
    public var filesWithFindings = 0
    public var unreadable = 0
    /// Files with a finding at or above the `--fail-on` severity (unreadable ones aside).
    public var failing = 0
    public var findingsByCode: [String: Int] = [:]
    public var findingsBySeverity: [String: Int] = [:]
    /// Paths the walk passed over, by reason (`symlink-loop`, `symlink-skipped`, …).
    public var skipped: [String: Int] = [:]
    public var seconds = 0.0
    public var shard: String?
    public var failOn: Severity = .warning

    public init() {}

    public var filesPerSecond: Double { seconds > 0 ? Double(files) / seconds : 0 }

    /// 1 when something at or above `--fail-on` was found, 2 when files could not be read and
    /// nothing else was, else 0.
    public var exitStatus: Int32 {
        if failing > 0 { return 1 }
        if unreadable > 0 || (skipped["unreadable-directory"] ?? 0) > 0 || (skipped["missing"] ?? 0) > 0 { return 2 }
        return 0
    }

    mutating func add(_ record: AuditRecord, failOn: Severity) {
        files += 1
        if !record.findings.isEmpty { filesWithFindings += 1 }
        if record.isUnreadable { unreadable += 1 }
        if record.findings.contains(where: { $0.severity >= failOn && !AuditRecord.unreadableCodes.contains($0.code) })
        {
            failing += 1
        }
        for finding in record.findings {
            findingsByCode[finding.code, default: 0] += 1
            findingsBySeverity[finding.severity.rawValue, default: 0] += 1
        }
    }

    enum CodingKeys: String, CodingKey {
        case files, filesWithFindings = "files_with_findings", unreadable, failing
        case findingsByCode = "findings_by_code", findingsBySeverity = "findings_by_severity", skipped, seconds
        case filesPerSecond = "files_per_second", shard, failOn = "fail_on", exitStatus = "exit_status"
    }

    // Hand-written: `CodingKeys` also names computed keys (`files_per_second`, `exit_status`), not to be read.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        files = try c.decode(Int.self, forKey: .files)
        filesWithFindings = try c.decode(Int.self, forKey: .filesWithFindings)
        unreadable = try c.decode(Int.self, forKey: .unreadable)
        failing = try c.decode(Int.self, forKey: .failing)
        findingsByCode = try c.decode([String: Int].self, forKey: .findingsByCode)
        findingsBySeverity = try c.decode([String: Int].self, forKey: .findingsBySeverity)
        skipped = try c.decode([String: Int].self, forKey: .skipped)
        seconds = try c.decode(Double.self, forKey: .seconds)
        shard = try c.decodeIfPresent(String.self, forKey: .shard)
        failOn = try c.decode(Severity.self, forKey: .failOn)
    }

    // Hand-written for computed keys (`files_per_second`, `exit_status`) and `seconds` rounded to the millisecond.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(files, forKey: .files)
        try c.encode(filesWithFindings, forKey: .filesWithFindings)
        try c.encode(unreadable, forKey: .unreadable)
        try c.encode(failing, forKey: .failing)
        try c.encode(findingsByCode, forKey: .findingsByCode)
        try c.encode(findingsBySeverity, forKey: .findingsBySeverity)
        try c.encode(skipped, forKey: .skipped)
        try c.encode((seconds * 1000).rounded() / 1000, forKey: .seconds)
        try c.encode(filesPerSecond.rounded(), forKey: .filesPerSecond)
        try c.encode(shard, forKey: .shard)
        try c.encode(failOn, forKey: .failOn)
        try c.encode(exitStatus, forKey: .exitStatus)
    }
}

/// How far a run has got, for a progress line.
public struct AuditProgress: Sendable {
    public var done: Int
    /// Files found so far; final once `walkFinished`.
    public var found: Int
    public var walkFinished: Bool
    public var seconds: Double

    public var filesPerSecond: Double { seconds > 0 ? Double(done) / seconds : 0 }
    /// Seconds left, once the walk has counted everything.
    public var remaining: Double? {
        guard walkFinished, filesPerSecond > 0 else { return nil }
        return Double(found - done) / filesPerSecond
    }
}

/// Audits files in parallel as a walk finds them, handing each record over as soon as it is
/// done. Reads only: no audited file is ever opened for writing.
public struct Auditor: Sendable {
    public let options: AuditOptions

    public init(options: AuditOptions) {
        self.options = options
    }

    /// Where the files come from: walked roots, or a list of paths taken as they are.
    public enum Source {
        case walk([String])
        case list(any IteratorProtocol<String>)
    }

    /// Runs the audit. `record` and `note` are called one at a time (never concurrently), in
    /// the order files finish; `progress` at most ten times a second.
    public func run(
        _ source: Source, record: @escaping (AuditRecord) -> Void, note: @escaping (WalkNote) -> Void = { _ in },
        progress: @escaping (AuditProgress) -> Void = { _ in }
    ) -> AuditSummary {
        let start = MonotonicClock.now
        let queue = PathQueue(capacity: 1024)
        let state = Mutex(RunState())
        // Callbacks are serialised by `output`; they need not be Sendable themselves.
        let output = Mutex(Callbacks(record: record, note: note, progress: progress))
        let workers = max(1, options.jobs)
        let group = DispatchGroup()
        let options = self.options
        for _ in 0..<workers {
            DispatchQueue.global().async(group: group) {
                while let path = queue.pop() {
                    let result =
                        options.cache?.record(for: path, options: options) ?? Auditor.audit(path, options: options)
                    output.withLock { callbacks in
                        let snapshot = state.withLock { state -> AuditProgress? in
                            state.summary.add(result, failOn: options.failOn)
                            let now = MonotonicClock.now
                            guard now - state.lastProgress >= 0.1 else { return nil }
                            state.lastProgress = now
                            return AuditProgress(
                                done: state.summary.files, found: state.found, walkFinished: state.walkFinished,
                                seconds: now - start)
                        }
                        callbacks.record(result)
                        if let snapshot { callbacks.progress(snapshot) }
                    }
                }
            }
        }
        // The walk runs here, ahead of the workers, blocking when the queue is full.
        let walk = LibraryWalk(options: options.walk)
        let found: (String) -> Void = { path in
            state.withLock { $0.found += 1 }
            queue.push(path)
        }
        let noted: (WalkNote) -> Void = { walkNote in
            state.withLock { $0.summary.skipped[walkNote.kind.rawValue, default: 0] += 1 }
            output.withLock { $0.note(walkNote) }
        }
        switch source {
        case .walk(let roots):
            walk.walk(roots, file: found, note: noted)
        case .list(var paths):
            while let path = paths.next() {
                if !path.isEmpty && walk.filter(path) { found(path) }
            }
        }
        state.withLock { $0.walkFinished = true }
        queue.finish(workers: workers)
        group.wait()
        options.cache?.flush()
        var summary = state.withLock { $0.summary }
        summary.seconds = MonotonicClock.now - start
        summary.shard = options.walk.shard.map { "\($0.index)/\($0.count)" }
        summary.failOn = options.failOn
        return summary
    }

    /// One file: MP4/QuickTime from its boxes (`MovieDescription`) and photos from their own headers, chunks and
    /// boxes (no FFmpeg; `deep` decodes them with it), anything else with FFmpeg. A file that
    /// cannot be read becomes an `unreadable` or `timeout` finding.
    public static func audit(_ path: String, options: AuditOptions) -> AuditRecord {
        do {
            var report = try Auditor.report(path, options: options)
            if let policy = options.content { judgeContent(&report, policy: policy) }
            return AuditRecord(report)
        } catch {
            let timedOut = error.reason.hasPrefix("timed out")
            return AuditRecord(
                path: path, video: nil,
                findings: [
                    Finding(
                        code: timedOut ? "timeout" : "unreadable", severity: .error,
                        message: "could not be probed: \(error.reason)")
                ])
        }
    }
}

extension Auditor {
    /// What `inspect` would say of the file, read as cheaply as the options allow.
    fileprivate static func report(_ path: String, options: AuditOptions) throws(InputError) -> MediaReport {
        let format = try PhotoReader.format(of: path)
        if !options.deep, format.isPhoto {
            return MediaReport(photo: try PhotoReader.read(path: path, format: format))
        }
        if !options.deep, format == .movie, let probe = movieProbe(path) {
            return MediaReport(probe: probe)
        }
        // Not a movie, --deep, or boxes the box layer could not read: FFmpeg's reading, which
        // for a movie carries the box layer's reason as a `box-layer-unreadable` finding.
        let prober = Prober(timeout: options.timeout, decodesFirstFrame: options.deep)
        return format == .movie ? MediaReport(probe: try prober.probe(path)) : try prober.inspect(path)
    }

    /// The pixels' verdict and its findings; pixels that cannot be judged (a file whose tags read
    /// but whose picture does not decode) are a `content-unreadable` finding, the rest of the
    /// record kept.
    fileprivate static func judgeContent(_ report: inout MediaReport, policy: ContentPolicy) {
        guard report.video != nil || report.photo != nil else { return }
        do {
            let verdict = try contentEngines.withEngine(for: report.path) { engine throws(InputError) in
                try ContentJudge(policy: policy).verdict(report.path, engine: engine)
            }
            report.judgeContent(verdict)
        } catch {
            report.findings.append(
                Finding(
                    code: "content-unreadable", severity: .warning,
                    message: "the pixels could not be judged: \(error.reason)"))
        }
    }
}

extension Auditor {
    /// Makes sure content can be judged here before a run with `content` starts, so that a missing
    /// engine or model is one line, not one finding per file: loads the engine and makes the first
    /// one, and gives OpenCV one thread per pass when several workers judge at once.
    public static func prepareContent(jobs: Int) throws(ContentUnavailable) {
        try ContentEngine.setThreadsPerPass(jobs > 1 ? 1 : processorCount)
        contentEngines.add(try ContentEngine())
    }
}

/// The engines every audit in this process judges content with, one per worker at a time.
private let contentEngines = ContentEnginePool()

/// A movie from its boxes alone: the whole description (the codec's SEI included) when the box
/// layer can give it, else what the headers say (enough for the orientation: a fragmented file,
/// or a sample table the description refuses, whose reason the report then carries). Nil when
/// the boxes cannot be read at all.
private func movieProbe(_ path: String) -> MediaProbe? {
    let source: ReadAheadBytes
    let structure: MovieStructure
    do throws(ISOBMFFError) {
        source = ReadAheadBytes(try FileBytes(path: path))
        structure = try MovieStructure(source)
    } catch {
        return nil
    }
    do throws(ISOBMFFError) {
        return try MovieDescription.probe(structure, path: path, source: source)
    } catch {
        var probe = structure.mediaProbe(path: path, source: source)
        if error.kind != .unsupported { probe.video?.boxLayerError = error.reason }
        return probe
    }
}

private struct RunState {
    var summary = AuditSummary()
    var found = 0
    var walkFinished = false
    var lastProgress = 0.0
}

private struct Callbacks: @unchecked Sendable {
    // Only ever called with the mutex that holds them locked, so one at a time.
    let record: (AuditRecord) -> Void
    let note: (WalkNote) -> Void
    let progress: (AuditProgress) -> Void
}

/// A bounded queue of paths between the walk and the workers: the walk waits when it is
/// full, so memory does not grow with the library.
final class PathQueue: Sendable {
    private let slots: DispatchSemaphore
    private let items = DispatchSemaphore(value: 0)
    private let buffer = Mutex<[String]>([])

    init(capacity: Int) {
        slots = DispatchSemaphore(value: capacity)
    }

    func push(_ path: String) {
        slots.wait()
        buffer.withLock { $0.append(path) }
        items.signal()
    }

    /// The next path, or nil once the queue is finished and empty.
    func pop() -> String? {
        items.wait()
        let path = buffer.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        if path != nil { slots.signal() }
        return path
    }

    /// Wakes every worker once more so that each sees the end.
    func finish(workers: Int) {
        for _ in 0..<workers { items.signal() }
    }
}

/// Seconds on the monotonic clock (not the standard library's `Clock` protocol, which this name once shadowed).
enum MonotonicClock {
    static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
