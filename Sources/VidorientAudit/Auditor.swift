import Synchronization
import Vidorient
public import VidorientContent
public import VidorientCore
public import VidorientIO

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
    /// Suggestions a person rejected (`--decisions`): not raised again while the file is the same.
    public var decisions: ReviewDecisions?
    /// `--where`: only the files whose record satisfies every condition are reported and counted
    /// (the others are counted in the summary's `skipped` as `where`); a file that could not be
    /// read is reported whatever they say, nothing being known of it to test.
    public var conditions: [ReportCondition] = []

    public init() {}
}

/// One audited file: what `inspect` would say of its video, and the findings.
public struct AuditRecord: Sendable, Hashable, Codable {
    public var schemaVersion: Int
    @ReportedPath public var path: String
    public var video: VideoReport?
    public var photo: PhotoReport?
    public var findings: [Finding]
    /// The content verdict, with `--content`; nil otherwise.
    public var content: ContentVerdict?
    /// What identifies the file as audited (`fix --from-audit` refuses a file that differs);
    /// nil when it could not be read, or is not a regular file of its own (a symbolic link).
    public var file: AuditedFile?
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

    /// What `--where` reads of the record: its report without the container.
    public var facts: ReportFacts {
        ReportFacts(path: path, format: nil, video: video, photo: photo, content: content, findings: findings)
    }

    /// The codes that mean the file itself could not be probed.
    public static let unreadableCodes: Set<FindingCode> = [.unreadable, .timeout]

    public var isUnreadable: Bool { findings.contains { $0.kind.map(AuditRecord.unreadableCodes.contains) == true } }

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", path, video, photo, findings, content, file
    }

    // Hand-written: `path` is read from `path_bytes` when that is set (PathBytes.swift).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try c.decode(Int.self, forKey: .schemaVersion)
        path = try decoder.decodePath(forKey: CodingKeys.path)
        video = try c.decodeIfPresent(VideoReport.self, forKey: .video)
        photo = try c.decodeIfPresent(PhotoReport.self, forKey: .photo)
        findings = try c.decode([Finding].self, forKey: .findings)
        content = try c.decodeIfPresent(ContentVerdict.self, forKey: .content)
        file = try c.decodeIfPresent(AuditedFile.self, forKey: .file)
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
    /// Per folder (the path up to its last `/`): files, and files at or above `--fail-on`; for the
    /// text report's last lines, not in the JSON summary.
    public var folders: [String: FolderCount] = [:]

    public struct FolderCount: Sendable, Hashable {
        public var files = 0
        public var failing = 0

        mutating func add(failing fails: Bool) {
            files += 1
            if fails { failing += 1 }
        }
    }

    /// The folder of the file added last: the next file's key, where it is in the same folder
    /// (nearly every file is: a worker's chunk is a folder's files), with no new string made.
    private var recentFolder = RecentFolder()

    /// A key kept for speed, not a count: equal to every other, so the summary's equality and hash
    /// (and its JSON, which `encode(to:)` writes by name) are the counts' alone.
    private struct RecentFolder: Hashable, Sendable {
        var path: String?

        static func == (_: RecentFolder, _: RecentFolder) -> Bool { true }
        func hash(into hasher: inout Hasher) {}

        /// The folder of `path`: its text up to the last `/`, or "." where it has none. On the
        /// bytes: asked of every file, and a search by characters cost a twentieth of a warm run.
        mutating func folder(of path: String) -> String {
            let recent = self.path
            // `.some(nil)`: the folder is `recent`'s; nil: the path's bytes are not in one piece.
            let made: String?? = path.utf8.withContiguousStorageIfAvailable { bytes in
                guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "." }
                let same = recent?.utf8.withContiguousStorageIfAvailable { kept in
                    kept.count == slash && (slash == 0 || memcmp(kept.baseAddress!, bytes.baseAddress!, slash) == 0)
                }
                if same == true { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<slash]), as: UTF8.self)
            }
            guard let made else {
                return path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[..<$0]) } ?? "."
            }
            if made == nil, let recent { return recent }
            let folder = made ?? "."
            self.path = folder
            return folder
        }
    }

    public init() {}

    public var filesPerSecond: Double { seconds > 0 ? Double(files) / seconds : 0 }

    /// 1 when something at or above `--fail-on` was found, 2 when files could not be read and
    /// nothing else was, else 0.
    public var exitStatus: Int32 {
        if failing > 0 { return 1 }
        let unread: [WalkNote.Kind] = [.unreadableDirectory, .missing, .unreadableList]
        if unreadable > 0 || unread.contains(where: { (skipped[$0.rawValue] ?? 0) > 0 }) { return 2 }
        return 0
    }

    /// Adds another part's counts (a worker's chunk, a shard) to these.
    public mutating func merge(_ other: AuditSummary) {
        files += other.files
        filesWithFindings += other.filesWithFindings
        unreadable += other.unreadable
        failing += other.failing
        findingsByCode.merge(other.findingsByCode, uniquingKeysWith: +)
        findingsBySeverity.merge(other.findingsBySeverity, uniquingKeysWith: +)
        skipped.merge(other.skipped, uniquingKeysWith: +)
        folders.merge(other.folders) { FolderCount(files: $0.files + $1.files, failing: $0.failing + $1.failing) }
    }

    mutating func add(_ record: AuditRecord, failOn: Severity) {
        add(path: record.path, tally: FindingTally(record.findings), failOn: failOn)
    }

    /// One file, by what its findings count: a record, or a line the cache replays undecoded.
    mutating func add(path: String, tally: FindingTally, failOn: Severity) {
        files += 1
        if !tally.entries.isEmpty { filesWithFindings += 1 }
        if tally.isUnreadable { unreadable += 1 }
        let fails = tally.fails(at: failOn)
        if fails { failing += 1 }
        folders[recentFolder.folder(of: path), default: FolderCount()].add(failing: fails)
        for entry in tally.entries {
            findingsByCode[entry.code, default: 0] += 1
            findingsBySeverity[entry.severity.rawValue, default: 0] += 1
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

/// What a run's summary counts of one file's findings: each one's code and severity, in order.
/// Kept beside each cached row (`AuditCache`), so a file the cache answers for is counted without
/// its findings being decoded.
public struct FindingTally: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public let code: String
        public let severity: Severity
    }

    public let entries: [Entry]
    /// Whether the file itself could not be probed (`AuditRecord.unreadableCodes`). It and
    /// `worst` follow from `entries`, worked out once as the tally is made: the cache's tallies
    /// are parsed once a session and asked of every file a warm run replays.
    let isUnreadable: Bool
    /// The highest severity of a finding other than being unreadable; nil when there is none.
    private let worst: Severity?

    /// No findings: most files.
    static let empty = FindingTally([])

    public init(_ findings: [Finding]) {
        self.init(entries: findings.map { Entry(code: $0.code, severity: $0.severity) })
    }

    private init(entries: [Entry]) {
        self.entries = entries
        isUnreadable = entries.contains { FindingTally.unreadable.contains($0.code) }
        worst = entries.lazy.filter { !FindingTally.unreadable.contains($0.code) }.map(\.severity).max()
    }

    /// The stored form: `code severity` per finding, one a line (codes and severities are
    /// kebab-case words); nil when a line is not that.
    init?(stored: String) {
        var entries: [Entry] = []
        for line in stored.utf8.split(separator: UInt8(ascii: "\n")) {
            let words = line.split(separator: UInt8(ascii: " "))
            guard words.count == 2, let severity = Severity(rawValue: String(decoding: words[1], as: UTF8.self))
            else { return nil }
            entries.append(Entry(code: String(decoding: words[0], as: UTF8.self), severity: severity))
        }
        self.init(entries: entries)
    }

    var stored: String { entries.map { "\($0.code) \($0.severity.rawValue)" }.joined(separator: "\n") }

    /// Whether a finding other than being unreadable is at or above `failOn`.
    func fails(at failOn: Severity) -> Bool { worst.map { $0 >= failOn } ?? false }

    private static let unreadable = Set(AuditRecord.unreadableCodes.map(\.rawValue))
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

    /// `1200/5,000 files, 950 files/s, ETA 0:04`, as the audit's progress line shows it.
    public var line: String {
        var line = "\(done)"
        line += walkFinished ? "/\(found.counting("file"))" : (done == 1 ? " file" : " files") + " (\(found) found)"
        line += ", \(Int(filesPerSecond.rounded()).counting("file"))/s"
        if let remaining {
            let seconds = Int(remaining.rounded())
            line += ", ETA \(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60)"
        }
        return line
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
    /// the order files finish, a chunk of records at a time; `progress` at most ten times a second.
    public func run(
        _ source: Source, record: @escaping (AuditRecord) -> Void, note: @escaping (WalkNote) -> Void = { _ in },
        progress: @escaping (AuditProgress) -> Void = { _ in }
    ) -> AuditSummary {
        run(
            source, render: { record, chunk in chunk.records.append(record) },
            deliver: { chunk in for each in chunk.records { record(each) } }, note: note, progress: progress)
    }

    /// Runs the audit, each worker turning its records into output on its own thread (`render`,
    /// called concurrently, adding to that worker's `AuditChunk`) and handing them over a chunk at
    /// a time (`deliver`, called one at a time, as are `note` and `progress`). A chunk goes out
    /// when it holds 64 KiB of text or 256 records, a tenth of a second after the worker's last,
    /// when the worker has nothing else to do, and at the end: nothing is taken or woken per file.
    ///
    /// `replay`, for an output that can be made from a record's JSON line as the cache stores it:
    /// a file the cache answers for is handed to it as its path, stored line and findings' tally,
    /// with no record decoded (`AuditCache.Session.replay`); it renders the file and says true, or
    /// says false where it needs the record (which is then decoded). Not used where every record is
    /// needed: `--decisions` and `--where` read it.
    ///
    /// `ordered`: each chunk says below which path no record is still to come
    /// (`AuditChunk.pathsToCome`), for `SortedRecords` to write a walk in path order as it goes;
    /// a worker then hands over the units it finished even with no record in its chunk.
    public func run(
        _ source: Source, render: @escaping @Sendable (AuditRecord, inout AuditChunk) -> Void,
        replay: AuditWriter.Replay? = nil, ordered: Bool = false,
        deliver: @escaping (AuditChunk) -> Void, note: @escaping (WalkNote) -> Void = { _ in },
        progress: @escaping (AuditProgress) -> Void = { _ in }
    ) -> AuditSummary {
        let start = MonotonicClock.now
        let workers = max(1, options.jobs)
        // A folder's files are split into units for the workers that can run at once: more
        // workers than cores take turns, and smaller units would only hand over more, shorter
        // chunks (a sorted warm run at four jobs on two cores was 9–18% slower than at two).
        let spread = min(workers, Processors.available)
        // More workers than cores: a worker works holding one of the cores' places and reads a
        // file without one (`CorePlaces`), so only as many work at once as can run at once. A
        // content audit's reads keep the place: judging the pixels is a core's work and holds an
        // engine (about 50 MB, 190 MB once Tesseract reads), so no more files are judged at once
        // than there are cores, and no more engines made.
        let places = workers > spread ? CorePlaces(spread) : nil
        let readsAway = options.content == nil ? places : nil
        // Callbacks and the run's counts, behind one lock taken once per chunk and per walk note
        // (`WaitingLock`: when there are more workers than cores, the holder is often preempted).
        // A list can name any path next: only a walk's order is known as it goes.
        var bounds: PathBounds?
        if ordered, case .walk = source { bounds = PathBounds() }
        let queue = WalkQueue(capacity: 1024, inPathOrder: bounds != nil)
        let output = WaitingLock(
            RunOutput(deliver: deliver, note: note, progress: progress, start: start, bounds: bounds))
        let tracksBounds = bounds != nil
        // Queues what a listing (or, with nil, the start of the roots) found; for a run in path
        // order, their bounds are under way before the listed folder's is not.
        let enqueue: @Sendable ([WalkQueue.Unit], [UInt8]?) -> Void = { units, listed in
            var added: [[UInt8]] = []
            if tracksBounds {
                added = units.map(\.lowerBound)
                output.withLock { $0.listed(listed, found: added) }
            }
            queue.put(units, bounds: added)
        }
        let found = Atomic<Int>(0)
        let options = self.options
        // Which file each worker is reading, kept beside the cache: a file that killed an earlier
        // run is reported and skipped (`ReaderCrashes`).
        let crashes = options.cache.map { ReaderCrashes(cachePath: $0.path, workers: workers) }
        let walk = LibraryWalk(options: options.walk)
        let replay = options.decisions == nil && options.conditions.isEmpty ? replay : nil
        let noted: @Sendable (WalkNote) -> Void = { walkNote in output.withLock { $0.take(walkNote) } }
        // Every worker walks as well as audits: it takes the next unit, a folder to list or files
        // to audit, so the walk is split across the workers with no thread of its own (a walk
        // thread beside `--jobs` workers made `--jobs 1` two busy threads, and the one walk the
        // limit of a warm cache).
        let work: @Sendable (Int) -> Void = { worker in
            let session = options.cache?.session(options: options)
            defer { session?.finish() }
            var chunk = AuditChunk()
            chunk.reset()
            // The bounds of the units this worker finished since its last hand-over (`ordered`).
            var finished: [[UInt8]] = []
            var lastDelivery = MonotonicClock.coarse
            let hand = {
                guard chunk.count > 0 || !finished.isEmpty else { return }
                output.withLock {
                    $0.take(
                        chunk, found: found.load(ordering: .relaxed), walkFinished: queue.walkFinished,
                        finished: finished)
                }
                chunk.reset()
                finished.removeAll(keepingCapacity: true)
                lastDelivery = MonotonicClock.coarse
            }
            // A place is taken before the first unit and kept until the last: the workers
            // beyond the cores wait for one holding no unit that the run's order would wait for.
            places?.take()
            defer { places?.give() }
            // Hands over what it holds before it waits for more.
            while let (unit, bound) = queue.take(beforeWaiting: hand) {
                switch unit {
                case .folder(let folder):
                    let listed = walk.listKeepingOpen(folder, note: noted)
                    let units = WalkQueue.units(listed.entries, in: listed.open, workers: spread)
                    found.add(units.files, ordering: .relaxed)
                    enqueue(units.units, bound)
                case .files(let files, let folder):
                    for file in files {
                        let key: FileKey?
                        switch file.key {
                        case .known(let known): key = known
                        case .walked:
                            guard let walked = walk.key(ofWalked: file.path, in: folder, note: noted) else { continue }
                            key = walked
                        // A listed path as given, links followed: what the cache keys it by (taken
                        // here, so a hit goes by its stored line too).
                        case .listed: key = session.flatMap { _ in FileKey(path: file.path) }
                        }
                        // A hit whose stored line is the output: counted and written as stored.
                        if let replay, let session, let key,
                            session.replay(
                                file.path, key: key,
                                { line, tally in
                                    guard replay(file.path, line, tally, &chunk) else { return false }
                                    chunk.summary.add(path: file.path, tally: tally, failOn: options.failOn)
                                    chunk.count += 1
                                    return true
                                })
                        {
                            if chunk.isFull(ordered: tracksBounds) || MonotonicClock.coarse - lastDelivery >= 0.1 {
                                hand()
                            }
                            continue
                        }
                        // A file is read only when the cache cannot answer for it, and only then
                        // does the worker's crash slot name it: a hit is one `lstat` and a lookup.
                        let read = { (path: String) -> AuditRecord in
                            let audit = {
                                guard let crashes else { return Auditor.audit(path, options: options) }
                                return crashes.reading(worker: worker, path: path, key: key) {
                                    Auditor.audit(path, options: options)
                                }
                            }
                            return readsAway?.away(audit) ?? audit()
                        }
                        var record: AuditRecord
                        if let known = crashes?.knownCrash(file.path, key: key) {
                            record = known
                        } else {
                            record = session?.record(for: file.path, key: key, audit: read) ?? read(file.path)
                        }
                        options.decisions?.apply(&record)
                        if !options.conditions.isEmpty, !record.isUnreadable,
                            !options.conditions.hold(for: record.facts)
                        {
                            chunk.summary.skipped["where", default: 0] += 1
                            continue
                        }
                        chunk.summary.add(record, failOn: options.failOn)
                        chunk.count += 1
                        render(record, &chunk)
                        if chunk.isFull(ordered: tracksBounds) || MonotonicClock.coarse - lastDelivery >= 0.1 {
                            hand()
                        }
                    }
                    if tracksBounds {
                        finished.append(bound)
                        if chunk.isFull(ordered: true, unitEnd: true) { hand() }
                    }
                }
                queue.done(unit)
                places?.keepToCount(beforeWaiting: hand)
            }
            hand()
        }
        let threads = WorkerThreads(count: workers, work)
        // No worker thread could be started: this thread does the work, a part at a time.
        let alone = threads.started == 0
        switch source {
        case .walk(let roots):
            let units = WalkQueue.units(walk.start(roots, note: noted), workers: spread)
            found.store(units.files, ordering: .relaxed)
            enqueue(units.units, nil)
        case .list(var paths):
            // Files go over in batches: one lock and at most one wake-up per batch.
            var batch: [WalkQueue.File] = []
            var lastHandOver = MonotonicClock.now
            let handOver = {
                guard !batch.isEmpty else { return }
                found.add(batch.count, ordering: .relaxed)
                lastHandOver = MonotonicClock.now
                queue.putWaiting(.files(batch, nil))
                batch.removeAll(keepingCapacity: true)
                if alone {
                    queue.finish()
                    work(0)
                    queue.reopen()
                }
            }
            while let path = paths.next() {
                guard !path.isEmpty && walk.filter(path) else { continue }
                batch.append(WalkQueue.File(path: path, key: .listed))
                // A worker with nothing to do gets what there is, but not file by file: when the
                // list is the slower side (a pipe), one wake-up per millisecond at most.
                if batch.count >= WalkQueue.batch
                    || (queue.workersWaiting && MonotonicClock.now - lastHandOver >= 0.001)
                {
                    handOver()
                }
            }
            handOver()
            // A list that could not be read to its end is said, and the audit is not a success.
            if let list = paths as? PathList {
                list.notes.forEach(noted)
            }
        }
        queue.finish()
        if alone { work(0) }
        threads.join()
        crashes?.finish()
        options.cache?.flush()
        var summary = output.withLock { $0.summary }
        summary.seconds = MonotonicClock.now - start
        summary.shard = options.walk.shard.map { "\($0.index)/\($0.count)" }
        summary.failOn = options.failOn
        return summary
    }

    /// One file: MP4/QuickTime from its boxes (`MovieDescription`) and photos from their own headers, chunks and
    /// boxes (no FFmpeg; `deep` decodes them with it), anything else with FFmpeg. A file that
    /// cannot be read becomes an `unreadable` or `timeout` finding.
    public static func audit(_ path: String, options: AuditOptions) -> AuditRecord {
        // Taken before the file is read: a file changed while it is read then differs from it.
        // Absent is fine: a file that cannot be identified cannot be read either, and its record says why.
        let file = try? AuditedFile(path: path)
        var record = audited(path, options: options)
        record.file = file
        return record
    }

    private static func audited(_ path: String, options: AuditOptions) -> AuditRecord {
        do {
            let inspected = try Auditor.inspection(path, options: options)
            var report = inspected.report
            if let policy = options.content { judgeContent(inspected, into: &report, policy: policy) }
            return AuditRecord(report)
        } catch {
            let timedOut = error.condition == .timedOut
            return AuditRecord(
                path: path, video: nil,
                findings: [
                    Finding(
                        timedOut ? .timeout : .unreadable, severity: .error,
                        message: "could not be probed: \(error.reason)")
                ])
        }
    }
}

extension Auditor {
    /// What `inspect` would say of the file, read as cheaply as the options allow: the prober's
    /// orientation reading (`Prober.inspectOrientation`), the one place that decides which reader
    /// answers a file.
    fileprivate static func inspection(_ path: String, options: AuditOptions) throws(InputError) -> InspectedFile {
        try Prober(timeout: options.timeout, decodesFirstFrame: options.deep).inspection(path, orientationOnly: true)
    }

    /// The pixels' verdict and its findings, the pixels shown as the inspection decided; pixels
    /// that cannot be judged (a file whose tags read but whose picture does not decode) are a
    /// `content-unreadable` finding, the rest of the record kept.
    fileprivate static func judgeContent(
        _ inspected: InspectedFile, into report: inout MediaReport, policy: ContentPolicy
    ) {
        guard report.video != nil || report.photo != nil else { return }
        do {
            let verdict = try contentEngines.withEngine(for: report.path) { engine throws(InputError) in
                try ContentJudge(policy: policy).verdict(of: inspected, engine: engine)
            }
            report.judgeContent(verdict)
        } catch {
            report.findings.append(.contentUnreadable, .warning, "the pixels could not be judged: \(error.reason)")
        }
    }
}

extension Auditor {
    /// Makes sure content can be judged here before a run with `content` starts, so that a missing
    /// engine or model is one line, not one finding per file: loads the engine and makes the first
    /// one. OpenCV gets one thread per pass, whatever `jobs` is: `--jobs N` judges N files at once,
    /// each on one core (docs/audit.md), so `--jobs 1` is one core, not OpenCV's threads on every
    /// core (which took 14-23% more CPU for the same work: docs/performance.md, issue 32 round 7).
    public static func prepareContent() throws(ContentUnavailable) {
        try ContentEngine.setThreadsPerPass(1)
        contentEngines.add(try ContentEngine())
    }
}

/// The engines every audit in this process judges content with, one per worker at a time.
private let contentEngines = ContentEnginePool()

/// What a worker hands over: the records it audited since its last chunk, as the run's `render`
/// made them (text, or the records themselves), and their counts.
public struct AuditChunk: Sendable {
    /// Output text, for a run that writes it.
    public var text: [UInt8] = []
    /// The records themselves, for a run that keeps them.
    public var records: [AuditRecord] = []
    /// Where each record's text ends in `text`, with its path, when the run sorts (`SortedRecords`).
    public var marks: [Mark] = []
    /// How many files the chunk holds, and their counts.
    public internal(set) var count = 0
    var summary = AuditSummary()
    /// For an `ordered` run, as the chunk is handed over: the paths of the records still to come.
    public internal(set) var pathsToCome = PathsToCome.unknown

    /// What is known of the paths of the records still to come.
    public enum PathsToCome: Sendable, Equatable {
        /// Anything (a list of paths, or a run not `ordered`).
        case unknown
        /// None precedes these bytes (`SortedRecords.precedes`).
        case atLeast([UInt8])
        /// No record is still to come.
        case none
    }

    public init() {}

    /// Whether the chunk should be handed over: at 64 KiB of text or 256 records. A run in path
    /// order (`ordered`) hands its chunks over at the end of a unit, from half that, and in the
    /// middle of one only at half as much again: a chunk is then whole units, which
    /// `SortedRecords` writes as they are, with no copy, when nothing is held before them (the
    /// records of a unit under way could not be written before its end anyway).
    func isFull(ordered: Bool, unitEnd: Bool = false) -> Bool {
        guard ordered else { return text.count >= 1 << 16 || count >= 256 }
        return unitEnd ? text.count >= 1 << 15 || count >= 128 : text.count >= 3 << 15 || count >= 384
    }

    /// One record's end in the chunk's text.
    public struct Mark: Sendable {
        public var path: String
        public var end: Int
    }

    /// Room for a full chunk's text (96 KiB in the middle of a unit) and the record that fills it:
    /// reserved at once, so a chunk neither grows by doubling nor (at 128 KiB, malloc's threshold)
    /// becomes a mapping of its own.
    static let textCapacity = (1 << 17) - (1 << 12)

    mutating func reset() {
        if text.capacity > AuditChunk.textCapacity { text = [] } else { text.removeAll(keepingCapacity: true) }
        text.reserveCapacity(AuditChunk.textCapacity)
        records.removeAll(keepingCapacity: true)
        marks.removeAll(keepingCapacity: true)
        count = 0
        summary = AuditSummary()
    }
}

/// The run's callbacks and counts, used with the run's output lock held, so one thread at a time.
private struct RunOutput: @unchecked Sendable {
    let deliver: (AuditChunk) -> Void
    let note: (WalkNote) -> Void
    let progress: (AuditProgress) -> Void
    let start: Double
    var summary = AuditSummary()
    var lastProgress = 0.0
    /// The walk's units under way, for an `ordered` run.
    var bounds: PathBounds?

    init(
        deliver: @escaping (AuditChunk) -> Void, note: @escaping (WalkNote) -> Void,
        progress: @escaping (AuditProgress) -> Void, start: Double, bounds: PathBounds?
    ) {
        self.deliver = deliver
        self.note = note
        self.progress = progress
        self.start = start
        self.bounds = bounds
    }

    /// A folder was listed (nil: the roots were started) and `found` are its units.
    mutating func listed(_ folder: [UInt8]?, found: [[UInt8]]) {
        for bound in found { bounds?.add(bound) }
        if let folder { bounds?.remove(folder) }
    }

    /// A worker's chunk, and the units it finished whose records are in it or handed over before.
    mutating func take(_ chunk: AuditChunk, found: Int, walkFinished: Bool, finished: [[UInt8]]) {
        summary.merge(chunk.summary)
        var chunk = chunk
        if bounds != nil {
            for bound in finished { bounds?.remove(bound) }
            chunk.pathsToCome = bounds?.lowest.map { .atLeast($0) } ?? .none
        }
        deliver(chunk)
        let now = MonotonicClock.now
        guard now - lastProgress >= 0.1 else { return }
        lastProgress = now
        progress(
            AuditProgress(
                done: summary.files, found: max(found, summary.files), walkFinished: walkFinished, seconds: now - start)
        )
    }

    mutating func take(_ walkNote: WalkNote) {
        summary.skipped[walkNote.kind.rawValue, default: 0] += 1
        note(walkNote)
    }
}

/// An audit's work, shared by its workers: folders still to list and files still to audit, each
/// worker taking the next unit (one lock and at most one wake-up per unit, not per file). Last in,
/// first out: a folder's first files and folders are taken next, so the walk goes deep before
/// wide and holds about one folder's names per level, not the library. `inPathOrder` (a run
/// written in path order as it goes): the unit whose path comes first is taken first, which is
/// the same walk for one worker, and keeps several near the least path still under way, so that
/// few records wait for it (last in, first out, a worker that took the next year's folder while
/// another listed this year's audited the next year ahead of it). The end is when nothing is
/// queued, no unit is under way (a folder being listed may add more) and `finish` was called.
/// Files from a list (`put` with `putWaiting`) are held to `capacity`, so memory does not grow
/// with the list.
final class WalkQueue: @unchecked Sendable {
    // Unchecked: every field but the atomics is used with `mutex` held.
    enum Key: Sendable {
        /// What the walk's own `lstat` (or a link's `stat`) said.
        case known(FileKey)
        /// A regular file by its folder's listing: the worker takes its `lstat` (in the unit's
        /// folder, when the listing kept it open).
        case walked
        /// A path from a list, taken as given (links followed).
        case listed
    }

    struct File: Sendable {
        let path: String
        let key: Key
    }

    enum Unit: Sendable {
        case folder(LibraryWalk.Folder)
        /// Files, with the folder their listing kept open (for `.walked` keys): held by the unit,
        /// not by each file, whose copies would count references to one object from every worker
        /// (a twentieth of a warm run's CPU at two jobs, the cores taking its count in turns).
        case files([File], OpenFolder?)

        /// The least path a record from this unit can have: a folder's path and a slash (every
        /// file in it, however deep, begins so), the least of a batch's files.
        var lowerBound: [UInt8] {
            switch self {
            case .folder(let folder):
                var bytes = folder.path.pathBytes
                if bytes.last != UInt8(ascii: "/") { bytes.append(UInt8(ascii: "/")) }
                return bytes
            case .files(let files, _):
                guard var least = files.first?.path else { return [] }
                for file in files.dropFirst() where SortedRecords.precedes(file.path, least) { least = file.path }
                return least.pathBytes
            }
        }
    }

    /// Files handed over at once, at most.
    static let batch = 64

    private let capacity: Int
    private let inPathOrder: Bool
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let filled = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let drained = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Last in, first out; or with `inPathOrder` least bound first (`ordered`).
    private var units: [Unit] = []
    private var ordered = PathHeap<Unit>()
    /// Units queued or under way.
    private var outstanding = 0
    /// Folders queued or being listed.
    private var folders = 0
    /// Files queued (not under way).
    private var queuedFiles = 0
    private var finished = false
    private var waiting = 0
    private let hungry = Atomic<Int>(0)
    private let walked = Atomic<Bool>(false)

    init(capacity: Int, inPathOrder: Bool = false) {
        self.capacity = capacity
        self.inPathOrder = inPathOrder
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(filled, nil)
        pthread_cond_init(drained, nil)
    }

    deinit {
        pthread_cond_destroy(drained)
        pthread_cond_destroy(filled)
        pthread_mutex_destroy(mutex)
        drained.deallocate()
        filled.deallocate()
        mutex.deallocate()
    }

    /// Whether a worker is waiting for work: a list's reader then hands over what it has at once.
    var workersWaiting: Bool { hungry.load(ordering: .relaxed) > 0 }

    /// Every folder is listed: the count of files found is final.
    var walkFinished: Bool { walked.load(ordering: .relaxed) }

    /// A step of the walk as units: each folder one, the files between them in batches small
    /// enough that a folder's files spread over the workers (at least 8, at most `batch`).
    static func units(
        _ entries: [LibraryWalk.Entry], in folder: OpenFolder? = nil, workers: Int
    ) -> (units: [Unit], files: Int) {
        let files = entries.count(where: { if case .file = $0 { true } else { false } })
        let size = max(8, min(batch, files / (4 * max(1, workers))))
        var units: [Unit] = []
        var pending: [File] = []
        for entry in entries {
            switch entry {
            case .file(let path, let key):
                pending.append(File(path: path, key: key.map { .known($0) } ?? .walked))
                if pending.count >= size {
                    units.append(.files(pending, folder))
                    pending.removeAll(keepingCapacity: true)
                }
            case .folder(let inner):
                if !pending.isEmpty {
                    units.append(.files(pending, folder))
                    pending.removeAll(keepingCapacity: true)
                }
                units.append(.folder(inner))
            }
        }
        if !pending.isEmpty { units.append(.files(pending, folder)) }
        return (units, files)
    }

    /// Queues `new`, the first of them to be taken first; `inPathOrder`, with each one's
    /// `lowerBound`.
    func put(_ new: [Unit], bounds: [[UInt8]] = []) {
        guard !new.isEmpty else { return }
        pthread_mutex_lock(mutex)
        add(new, bounds: bounds)
        pthread_mutex_unlock(mutex)
    }

    /// Queues one unit from a list, first waiting while `capacity` files are queued.
    func putWaiting(_ unit: Unit) {
        pthread_mutex_lock(mutex)
        while queuedFiles >= capacity && !finished { pthread_cond_wait(drained, mutex) }
        add([unit])  // a list is never in path order (`Auditor.run`)
        pthread_mutex_unlock(mutex)
    }

    private func add(_ new: [Unit], bounds: [[UInt8]] = []) {
        precondition(!inPathOrder || bounds.count == new.count, "a unit in path order needs its bound")
        for (index, unit) in new.enumerated().reversed() {
            switch unit {
            case .folder: folders += 1
            case .files(let files, _): queuedFiles += files.count
            }
            if inPathOrder { ordered.push(bounds[index], unit) } else { units.append(unit) }
        }
        outstanding += new.count
        // Wake as many waiting workers as there are units, no more (each wakes for work).
        if waiting > 0 {
            if new.count >= waiting { pthread_cond_broadcast(filled) } else { pthread_cond_signal(filled) }
        }
    }

    /// The next unit and its bound (empty unless `inPathOrder`), nil once the work is over.
    /// `beforeWaiting` runs (without the lock) when the worker is about to wait. `done` must follow
    /// each unit taken, after what it added.
    func take(beforeWaiting: () -> Void) -> (Unit, [UInt8])? {
        pthread_mutex_lock(mutex)
        if queueIsEmpty && !over {
            pthread_mutex_unlock(mutex)
            beforeWaiting()
            pthread_mutex_lock(mutex)
            while queueIsEmpty && !over {
                waiting += 1
                hungry.add(1, ordering: .relaxed)
                pthread_cond_wait(filled, mutex)
                hungry.subtract(1, ordering: .relaxed)
                waiting -= 1
            }
        }
        guard let (bound, unit) = inPathOrder ? ordered.popLeast() : units.popLast().map({ ([], $0) }) else {
            pthread_mutex_unlock(mutex)
            return nil
        }
        if case .files(let files, _) = unit {
            let before = queuedFiles
            queuedFiles -= files.count
            // A list's reader is woken once the queue is half empty, not for every batch.
            if before >= capacity / 2 && queuedFiles < capacity / 2 { pthread_cond_signal(drained) }
        }
        pthread_mutex_unlock(mutex)
        return (unit, bound)
    }

    /// A unit taken is done (what it found already `put`).
    func done(_ unit: Unit) {
        pthread_mutex_lock(mutex)
        outstanding -= 1
        if case .folder = unit { folders -= 1 }
        settle()
        pthread_mutex_unlock(mutex)
    }

    /// Nothing more will be put: the end comes once what is queued and under way is done.
    func finish() {
        pthread_mutex_lock(mutex)
        finished = true
        pthread_cond_broadcast(drained)
        settle()
        pthread_mutex_unlock(mutex)
    }

    /// Open again after `finish()` (a list audited on its own thread, with no worker).
    func reopen() {
        pthread_mutex_lock(mutex)
        finished = false
        pthread_mutex_unlock(mutex)
    }

    private var over: Bool { finished && outstanding == 0 }
    private var queueIsEmpty: Bool { units.isEmpty && ordered.isEmpty }

    private func settle() {
        if finished && folders == 0 { walked.store(true, ordering: .relaxed) }
        // The end: every worker waiting is woken to see it.
        if over && waiting > 0 { pthread_cond_broadcast(filled) }
    }
}

/// Seconds on the monotonic clock (not the standard library's `Clock` protocol, which this name once shadowed).
enum MonotonicClock {
    static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The same clock to the kernel's last tick (a few milliseconds): for a rule asked after every
    /// file (a worker's tenth of a second), where reading the exact clock was 1% of a warm run.
    static var coarse: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
