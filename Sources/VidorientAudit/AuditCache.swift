import CSQLite
import FoundationEssentials
import Synchronization
import VidorientContent
import VidorientCore
public import VidorientIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The version of what an audit says about a file. Bump it whenever a rule, a reader or the
/// record's shape changes what an audit reports for the same bytes: every cached result made
/// under another version is then ignored.
public enum AuditRules {
    // 2: photos read by their own readers (the photo report); 3: records carry `path_bytes`;
    // 4: findings carry `suggested_fix`; 5: movies described by the box layer (the first sample's
    // SEI included) and `box-layer-unreadable`; 6: the content verdict (`--content`) and its findings;
    // 7: `file-truncated` (a file cut short is read as far as it goes, and said).
    public static let version = 7
}

/// A record's JSON line as the cache stored it, nil for a record just audited. Equal to every
/// other: where a record came from is not part of its value.
public struct CachedLine: Sendable, Hashable {
    public let line: String?

    public init(line: String? = nil) {
        self.line = line
    }

    public static func == (lhs: CachedLine, rhs: CachedLine) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}

/// One stored result: the record's exact JSON line, and its findings' JSON apart, which is all a
/// hit decodes when full records are not asked for (and, as `[]` for most files, nothing at all),
/// and their codes and severities (`FindingTally`), which is all a run that writes the lines
/// reads of a hit. `codes` is nil in a row an older vidorient stored.
public struct StoredResult: Sendable, Hashable {
    public var line: String
    public var findings: String
    public var codes: String?
}

/// A SQLite file of audit results, one row per path and set of result-changing options. A file
/// whose `FileKey` still matches its row is not opened: its stored JSON line is replayed.
///
/// Each worker of an audit reads through a `Session` of its own: its own connection (WAL lets
/// readers run side by side, and beside a writer), so no lock is shared per file. What the
/// sessions store goes to one writer connection, a batch at a time, each batch one transaction;
/// two audits can share one cache.
public final class AuditCache: Sendable {
    /// The file's format; a cache with a larger number comes from a newer vidorient.
    public static let formatVersion: Int32 = 1
    /// SQLite's `application_id` for these files ("VOAC"): anything else is not ours.
    static let applicationID: Int32 = 0x564F_4143

    public let path: String
    /// Decode each hit's `video` and `photo` too (so does a run with `--where`, which reads them).
    /// Without it a hit's `video` is nil and only `findings` and `cached` (the exact line, which
    /// the writers replay) are filled: re-audits of unchanged libraries are dominated by that
    /// decoding otherwise.
    public let fullRecords: Bool
    /// The one connection that writes (and answers `lookup`).
    private let database: Mutex<Database?>
    /// Set once any connection failed: the cache is not used for the rest of the run.
    private let broken = Atomic<Bool>(false)
    private let warn: @Sendable (String) -> Void
    private let tally = Mutex(Counters())

    public struct Counters: Sendable, Hashable {
        /// Files answered from the cache, without being opened.
        public var hits = 0
        /// Files audited and stored.
        public var stored = 0
    }

    public var counters: Counters { tally.withLock { $0 } }

    /// `$XDG_CACHE_HOME/vidorient/audit.sqlite`, or `~/.cache/vidorient/audit.sqlite`.
    public static var defaultPath: String? {
        if let xdg = getenv("XDG_CACHE_HOME").map({ String(cString: $0) }), xdg.hasPrefix("/") {
            return xdg + "/vidorient/audit.sqlite"
        }
        guard let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty else { return nil }
        return home + "/.cache/vidorient/audit.sqlite"
    }

    /// Opens (or creates) the cache at `path`. A corrupt or foreign file is renamed aside and a
    /// new one made; a cache that cannot be used at all (read-only disk, newer format) gives nil.
    /// Either way `warn` gets one line saying why; the audit goes on without the cache.
    public static func open(
        path: String, fullRecords: Bool = false, warn: @escaping @Sendable (String) -> Void
    ) -> AuditCache? {
        do {
            return AuditCache(
                path: path, fullRecords: fullRecords, database: try Database.open(path, warn: warn), warn: warn)
        } catch {
            warn("cache '\(path)' not used: \(error.reason); auditing without it")
            return nil
        }
    }

    private init(path: String, fullRecords: Bool, database: Database, warn: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.fullRecords = fullRecords
        self.database = Mutex(database)
        self.warn = warn
    }

    /// What a result depends on besides the file, as `name=value` words: the rules' version, the
    /// record's schema and `--deep`. Filters, shards, `--fail-on` and `--timeout` change which
    /// files are audited or how the results are judged, not what a file's record says. An option
    /// that changes what a record says (a check of the pictures' content, say) adds its word here,
    /// and its rows then stand apart from the others.
    public static func optionsKey(_ options: AuditOptions, rulesVersion: Int = AuditRules.version) -> String {
        "rules=\(rulesVersion);schema=\(MediaReport.currentSchemaVersion);deep=\(options.deep ? 1 : 0)"
            // A content verdict depends on its threshold and on the network and head that measured it.
            + (options.content.map { ";content=\($0.threshold),\(ContentEngine.identity)" } ?? "")
    }

    /// A reader for one worker thread: its own connection, its own batch of rows to store.
    public func session(options: AuditOptions) -> Session { Session(cache: self, options: options) }

    /// One worker's way into the cache. Used by one thread at a time; `finish()` when done.
    public final class Session {
        private let cache: AuditCache
        private let options: AuditOptions
        private let optionsKey: String
        /// Opened on first use; nil after an error (the cache is then off for everyone).
        private var reader: Database?
        private var opened = false
        private var pending: [PendingRow] = []
        private var counters = Counters()
        private let encoder = JSONText(pretty: false)
        private var decodedFindings: [String: [Finding]] = [:]
        /// Decoded findings with their file's path taken out, by `FindingsTemplate.key`.
        private var findingShapes: [String: [Finding]] = [:]
        /// Parsed tallies, by the hash of their stored text's bytes, with the bytes: a hit makes no
        /// string (a row's tally is asked of every file a warm run replays).
        private var tallies: [Int: (text: [UInt8], tally: FindingTally)] = [:]

        /// Rows stored per write transaction: enough to make the commit's cost small per row,
        /// few enough that another audit sharing the cache waits little.
        static let batch = 256

        init(cache: AuditCache, options: AuditOptions) {
            self.cache = cache
            self.options = options
            self.optionsKey = AuditCache.optionsKey(options)
        }

        deinit { finish() }

        /// The record for `path`: from the cache when the file is unchanged, else audited and
        /// stored. `key`: the walk's look at the file (nil: it is looked at here, links followed).
        public func record(for path: String, key: FileKey? = nil) -> AuditRecord {
            record(for: path, key: key) { Auditor.audit($0, options: options) }
        }

        /// `record(for:key:)`, the file read by `audit` when the cache cannot answer for it: a
        /// hit never opens the file (it is the one `lstat` of the walk and one lookup).
        public func record(for path: String, key known: FileKey?, audit: (String) -> AuditRecord) -> AuditRecord {
            // The key is taken before the audit: a file changed while it is read gets a newer
            // ctime, so its stored row will not match next time.
            guard let key = known ?? FileKey(path: path) else { return audit(path) }
            // Absent is fine: a stored row that does not decode is a cache miss; the file is audited again.
            if let stored = lookup(path, key: key), var record = try? decoded(stored, path: path), record.path == path {
                record.cached = CachedLine(line: stored.line)
                counters.hits += 1
                return record
            }
            var record = audit(path)
            // A timeout says more about the machine's load than about the file: try again next time.
            guard !cache.broken.load(ordering: .relaxed), !record.findings.contains(where: { $0.kind == .timeout })
            else { return record }
            // Absent is fine: a record that does not encode is not cached, only audited again next time.
            guard let (line, findings) = try? (encoder.encode(record), encoder.encode(record.findings)) else {
                return record
            }
            let result = StoredResult(line: line, findings: findings, codes: FindingTally(record.findings).stored)
            pending.append(PendingRow(path: path, key: key, result: result))
            if pending.count >= Session.batch { store() }
            // Encoded once: the writers use this line instead of encoding the record again.
            record.cached = CachedLine(line: line)
            return record
        }

        /// For a run whose output can be made from a record's stored line (`Auditor.run`'s
        /// `replay`): when the cache answers for the file, `body` gets its line (the bytes SQLite
        /// holds, valid during the call: nothing is decoded or copied first) and its findings'
        /// tally, and says whether that was enough. False when the file must be read, its row is an
        /// older vidorient's without a tally, or `body` needs the record (then
        /// `record(for:key:audit:)` answers as it does for every run).
        public func replay(_ path: String, key: FileKey, _ body: (UnsafeRawBufferPointer, FindingTally) -> Bool) -> Bool
        {
            guard let reader = connection() else { return false }
            do throws(SQLiteError) {
                let found = try reader.lookupLine(path, optionsKey: optionsKey, key: key) { line, codes in
                    guard let tally = tally(of: codes) else { return false }
                    return body(line, tally)
                }
                if found { counters.hits += 1 }
                return found
            } catch {
                self.reader = nil
                cache.fail(error)
                return false
            }
        }

        /// A row's tally, parsed once per session for each text (a library has a few dozen).
        private func tally(of codes: UnsafeRawBufferPointer) -> FindingTally? {
            if codes.isEmpty { return FindingTally.empty }
            var hasher = Hasher()
            hasher.combine(bytes: codes)
            let hash = hasher.finalize()
            if let known = tallies[hash], known.text.count == codes.count,
                known.text.withUnsafeBytes({ memcmp($0.baseAddress!, codes.baseAddress!, codes.count) == 0 })
            {
                return known.tally
            }
            guard let tally = FindingTally(stored: String(decoding: codes, as: UTF8.self)) else { return nil }
            if tallies.count >= 4096 { tallies.removeAll(keepingCapacity: true) }
            tallies[hash] = (Array(codes), tally)
            return tally
        }

        /// Stores what is pending and closes this session's connection.
        public func finish() {
            store()
            reader = nil
            if counters != Counters() {
                let counted = counters
                cache.tally.withLock {
                    $0.hits += counted.hits
                    $0.stored += counted.stored
                }
                counters = Counters()
            }
        }

        /// A hit as a record: its findings (or, with `fullRecords`, everything) decoded.
        private func decoded(_ stored: StoredResult, path: String) throws -> AuditRecord {
            // `--where` reads a record's video and photo, which are not decoded otherwise.
            if cache.fullRecords || !options.conditions.isEmpty {
                return try JSONDecoder().decode(AuditRecord.self, from: Data(stored.line.utf8))
            }
            if stored.findings == "[]" { return AuditRecord(path: path, video: nil, findings: []) }
            // The same findings come back for many files (every mirrored clip says the same):
            // decoded once per session, the memo emptied when it grows past a few thousand.
            if let findings = decodedFindings[stored.findings] {
                return AuditRecord(path: path, video: nil, findings: findings)
            }
            // Most findings name their file (`vidorient thumbnail PATH --compare …`), so two files'
            // differ by the path alone: those are decoded once too, with the path taken out (issue
            // 32: decoding them one by one was a fifth of a warm run).
            let template = FindingsTemplate(stored.findings, path: path)
            if let template, let shape = findingShapes[template.key] {
                return AuditRecord(path: path, video: nil, findings: template.fill(shape))
            }
            let findings = try JSONDecoder().decode([Finding].self, from: Data(stored.findings.utf8))
            if decodedFindings.count >= 4096 { decodedFindings.removeAll(keepingCapacity: true) }
            decodedFindings[stored.findings] = findings
            if let template {
                if findingShapes.count >= 4096 { findingShapes.removeAll(keepingCapacity: true) }
                findingShapes[template.key] = template.shape(of: findings)
            }
            return AuditRecord(path: path, video: nil, findings: findings)
        }

        /// This session's reading connection, opened on first use; nil once the cache failed.
        private func connection() -> Database? {
            guard !cache.broken.load(ordering: .relaxed) else { return nil }
            if !opened {
                opened = true
                do throws(SQLiteError) { reader = try Database.connect(cache.path) } catch { cache.fail(error) }
            }
            return reader
        }

        private func lookup(_ path: String, key: FileKey) -> StoredResult? {
            guard let reader = connection() else { return nil }
            do throws(SQLiteError) {
                return try reader.lookup(path, optionsKey: optionsKey, key: key)
            } catch {
                self.reader = nil
                cache.fail(error)
                return nil
            }
        }

        private func store() {
            guard !pending.isEmpty else { return }
            defer { pending.removeAll(keepingCapacity: true) }
            let rows = pending
            let optionsKey = self.optionsKey
            let written: Void? = cache.withDatabase { database throws(SQLiteError) in
                for row in rows {
                    try database.store(row.path, optionsKey: optionsKey, key: row.key, result: row.result)
                }
                try database.commit()
            }
            if written != nil { counters.stored += rows.count }
        }
    }

    /// The stored line for `path` if its key matches.
    public func lookup(_ path: String, optionsKey: String, key: FileKey) -> StoredResult? {
        withDatabase { database throws(SQLiteError) in try database.lookup(path, optionsKey: optionsKey, key: key) }
            ?? nil
    }

    public func store(_ path: String, optionsKey: String, key: FileKey, result: StoredResult) {
        if withDatabase({ database throws(SQLiteError) in
            try database.store(path, optionsKey: optionsKey, key: key, result: result)
        }) != nil {
            tally.withLock { $0.stored += 1 }
        }
    }

    /// Commits what is pending: at the end of a run, and after each event in watch mode.
    public func flush() {
        _ = withDatabase { database throws(SQLiteError) in try database.commit() }
    }

    /// Runs `body` on the writing connection; on an error the cache is closed for the rest of
    /// the run with one warning (a disk that fills up, a file corrupted under us).
    private func withDatabase<T>(_ body: (Database) throws(SQLiteError) -> T) -> T? {
        database.withLock { database -> T? in
            guard let open = database, !broken.load(ordering: .relaxed) else { return nil }
            do throws(SQLiteError) {
                return try body(open)
            } catch {
                fail(error)
                database = nil
                return nil
            }
        }
    }

    /// The first failure turns the cache off, with one warning.
    fileprivate func fail(_ error: SQLiteError) {
        guard !broken.exchange(true, ordering: .relaxed) else { return }
        warn("cache '\(path)' not used any more: \(error.reason)")
    }
}

/// A stored row's findings with its file's path taken out: files whose findings differ by the path
/// alone share one key, and one decoding. Only for a path written in JSON as it is (printable
/// ASCII but `"` and `\\`, so its bytes are the same in the JSON text and in the decoded strings)
/// that holds a `/` (which no JSON outside a string holds): every place the path is found is then
/// inside a string, the message's or the action's, and putting it back gives what decoding the
/// row itself gives.
struct FindingsTemplate {
    /// The findings' JSON, the path replaced by a byte JSON text never holds raw.
    let key: String
    let path: String
    static let marker = "\u{0}"

    init?(_ findings: String, path: String) {
        guard path.utf8.contains(UInt8(ascii: "/")),
            path.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }),
            let key = FindingsTemplate.replacing(path, with: FindingsTemplate.marker, in: findings),
            FindingsTemplate.replacing("\\u0000", with: "", in: findings) == nil
        else { return nil }
        self.key = key
        self.path = path
    }

    /// Decoded findings with the path taken out of their text, for `fill`.
    func shape(of findings: [Finding]) -> [Finding] { findings.map { replaced($0, path, FindingsTemplate.marker) } }

    /// A shape with this file's path put back.
    func fill(_ shape: [Finding]) -> [Finding] { shape.map { replaced($0, FindingsTemplate.marker, path) } }

    private func replaced(_ finding: Finding, _ old: String, _ new: String) -> Finding {
        var finding = finding
        finding.message = FindingsTemplate.replacing(old, with: new, in: finding.message) ?? finding.message
        finding.action = finding.action.map { FindingsTemplate.replacing(old, with: new, in: $0) ?? $0 }
        return finding
    }

    /// `text` with every `old` replaced by `new`, byte for byte (the standard library's search
    /// compares characters, which cost more here than the JSON decoding saved); nil when `old` is
    /// not in it.
    static func replacing(_ old: String, with new: String, in text: String) -> String? {
        var text = text
        var old = old
        var new = new
        return text.withUTF8 { text in
            old.withUTF8 { old -> String? in
                guard let textStart = text.baseAddress, let oldStart = old.baseAddress, !old.isEmpty else { return nil }
                var result: [UInt8] = []
                var position = 0
                var index = 0
                let first = old[0]
                while index <= text.count - old.count {
                    guard text[index] == first, memcmp(textStart + index, oldStart, old.count) == 0 else {
                        index += 1
                        continue
                    }
                    if result.isEmpty { result.reserveCapacity(text.count + new.utf8.count) }
                    result += text[position..<index]
                    new.withUTF8 { result += $0 }
                    index += old.count
                    position = index
                }
                guard position > 0 else { return nil }
                result += text[position...]
                return String(decoding: result, as: UTF8.self)
            }
        }
    }
}

/// A row a session audited and will store with its next batch.
private struct PendingRow {
    let path: String
    let key: FileKey
    let result: StoredResult
}

struct SQLiteError: Error, Sendable {
    let code: Int32
    let reason: String

    init(code: Int32, reason: String) {
        self.code = code
        self.reason = reason
    }

    init(_ code: Int32, _ handle: OpaquePointer?) {
        self.code = code
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        reason = message.lowercased()
    }
}

/// Owns one SQLite connection and its prepared statements. Unchecked: only ever used by one
/// thread at a time (the writer under the cache's lock, a reader by its session's thread).
private final class Database: @unchecked Sendable {
    private let handle: OpaquePointer
    private let select: OpaquePointer
    private let insert: OpaquePointer
    /// Rows written in the open write transaction.
    private var pending = 0
    /// The open transaction, if any. Lookups share one read transaction for up to a second:
    /// one statement on its own takes and drops SQLite's file locks each time, which costs more
    /// than the lookup.
    private var transaction = Transaction.none
    /// The options key `select` holds bound.
    private var selectOptions: String?
    private var transactionStart = 0.0

    private enum Transaction { case none, reading, writing }

    private init(handle: OpaquePointer) throws(SQLiteError) {
        self.handle = handle
        var select: OpaquePointer?
        var insert: OpaquePointer?
        var status = sqlite3_prepare_v2(
            handle,
            "SELECT device, inode, size, mtime_ns, ctime_ns, findings, record, codes FROM files "
                + "WHERE path = ? AND options = ?",
            -1, &select, nil)
        guard status == SQLITE_OK, let select else {
            sqlite3_close_v2(handle)
            throw SQLiteError(status, handle)
        }
        status = sqlite3_prepare_v2(
            handle,
            "INSERT OR REPLACE INTO files "
                + "(path, options, device, inode, size, mtime_ns, ctime_ns, findings, record, codes) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &insert, nil)
        guard status == SQLITE_OK, let insert else {
            sqlite3_finalize(select)
            sqlite3_close_v2(handle)
            throw SQLiteError(status, handle)
        }
        self.select = select
        self.insert = insert
    }

    deinit {
        if transaction != .none { _ = sqlite3_exec(handle, "COMMIT", nil, nil, nil) }
        sqlite3_finalize(select)
        sqlite3_finalize(insert)
        sqlite3_close_v2(handle)
    }

    enum Verdict {
        case usable
        /// Not a SQLite file, a SQLite file of something else, or damaged: set aside, rebuild.
        case setAside(String)
    }

    static func open(_ path: String, warn: @Sendable (String) -> Void) throws(SQLiteError) -> Database {
        // SQLite is opened here, the first time a cache is (Sources/CSQLite/SQLiteLoader.c).
        var error = [CChar](repeating: 0, count: 512)
        guard vo_sqlite_load(&error, error.count) == 0 else {
            let reason = String(cMessage: error)
            throw SQLiteError(code: SQLITE_CANTOPEN, reason: reason)
        }
        try makeParentDirectories(of: path)
        do throws(SQLiteError) {
            return try connectWaiting(path)
        } catch let error where error.code == SQLITE_NOTADB || error.code == SQLITE_CORRUPT || error.code == -1 {
            let aside = path + ".broken-\(time(nil))"
            guard path.withPathCString({ from in aside.withPathCString { rename(from, $0) } }) == 0 else {
                throw SQLiteError(
                    code: SQLITE_CANTOPEN, reason: "\(error.reason), and it could not be set aside: \(errnoReason())")
            }
            _ = (path + "-wal").withPathCString { unlink($0) }
            _ = (path + "-shm").withPathCString { unlink($0) }
            warn("cache '\(path)' \(error.reason): moved to '\(aside)' and rebuilt")
            return try connectWaiting(path)
        }
    }

    /// `connect`, tried again while another audit holds a lock the busy timeout does not cover:
    /// two audits making one new cache at once race to switch it to WAL, and the loser is told
    /// "database is locked" at once. Up to about ten seconds, as the busy timeout.
    static func connectWaiting(_ path: String) throws(SQLiteError) -> Database {
        let started = MonotonicClock.now
        while true {
            do throws(SQLiteError) {
                return try connect(path)
            } catch let error
                where [SQLITE_BUSY, SQLITE_LOCKED].contains(error.code & 0xFF) && MonotonicClock.now - started < 10
            {
                usleep(20_000)
            }
        }
    }

    static func connect(_ path: String) throws(SQLiteError) -> Database {
        var handle: OpaquePointer?
        let status = path.withPathCString {
            sqlite3_open_v2($0, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        }
        guard status == SQLITE_OK, let handle else {
            let error = SQLiteError(status, handle)
            sqlite3_close_v2(handle)
            throw error
        }
        do throws(SQLiteError) {
            sqlite3_busy_timeout(handle, 10_000)
            // One snapshot: read one by one, another audit making the same new cache could
            // commit between them (no id yet, then a table), and a healthy cache be set aside.
            try exec(handle, "BEGIN")
            let application = try integer(handle, "PRAGMA application_id")
            let format = try integer(handle, "PRAGMA user_version")
            let tables = try integer(handle, "SELECT count(*) FROM sqlite_schema")
            try exec(handle, "COMMIT")
            if application == 0 && format == 0 && tables == 0 {
                // A new, empty file: make it ours. Pages of 64 KiB, not SQLite's 4 KiB: a warm audit
                // reads every page of the cache once, a system call each (469 reads of a
                // 20,000-file library's cache where there were 8,671: 11% of a warm run's time).
                try exec(handle, "PRAGMA page_size = 65536")
                try exec(handle, "PRAGMA journal_mode = WAL")
                try exec(
                    handle,
                    """
                    BEGIN IMMEDIATE;
                    CREATE TABLE IF NOT EXISTS files (
                        path BLOB NOT NULL, options TEXT NOT NULL, device INTEGER NOT NULL, inode INTEGER NOT NULL,
                        size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
                        findings TEXT NOT NULL, record TEXT NOT NULL, codes TEXT, UNIQUE (path, options));
                    PRAGMA application_id = \(AuditCache.applicationID);
                    PRAGMA user_version = \(AuditCache.formatVersion);
                    COMMIT;
                    """)
            } else if application != Int64(AuditCache.applicationID) {
                throw SQLiteError(code: -1, reason: "is not a vidorient audit cache")
            } else if format > Int64(AuditCache.formatVersion) {
                throw SQLiteError(
                    code: SQLITE_CANTOPEN,
                    reason:
                        "was written by a newer vidorient (cache format \(format), this one reads \(AuditCache.formatVersion))"
                )
            } else if format < Int64(AuditCache.formatVersion) {
                throw SQLiteError(code: -1, reason: "is in an older cache format (\(format))")
            } else {
                try exec(handle, "PRAGMA journal_mode = WAL")
                try addCodesColumn(handle)
            }
            try exec(handle, "PRAGMA synchronous = NORMAL")
            // The log is copied back into the cache every 4 MiB, as SQLite does with its 4 KiB
            // pages, whatever the cache's page size.
            let pageSize = try integer(handle, "PRAGMA page_size")
            try exec(handle, "PRAGMA wal_autocheckpoint = \(max(16, (4 << 20) / max(1, pageSize)))")
            return try Database(handle: handle)
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
    }

    /// A cache made before rows kept their findings' tally gets the column (its rows' is NULL: such
    /// a row is answered by decoding its findings, until its file is audited again). Under the
    /// write lock, so two audits opening the same old cache add it once.
    private static func addCodesColumn(_ handle: OpaquePointer) throws(SQLiteError) {
        let query = "SELECT count(*) FROM pragma_table_info('files') WHERE name = 'codes'"
        guard try integer(handle, query) == 0 else { return }
        try exec(handle, "BEGIN IMMEDIATE")
        do throws(SQLiteError) {
            if try integer(handle, query) == 0 { try exec(handle, "ALTER TABLE files ADD COLUMN codes TEXT") }
            try exec(handle, "COMMIT")
        } catch {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    func lookup(_ path: String, optionsKey: String, key: FileKey) throws(SQLiteError) -> StoredResult? {
        try withRow(path, optionsKey: optionsKey, key: key) { () -> StoredResult? in
            guard let findings = sqlite3_column_text(select, 5), let line = sqlite3_column_text(select, 6) else {
                return nil
            }
            let codes = sqlite3_column_text(select, 7).map { String(cString: $0) }
            return StoredResult(line: String(cString: line), findings: String(cString: findings), codes: codes)
        } ?? nil
    }

    /// The stored line and tally's bytes of `path`'s row if its key matches, for `body` (they are
    /// SQLite's, valid during the call); false when there is no such row, or `body` says so.
    func lookupLine(
        _ path: String, optionsKey: String, key: FileKey,
        _ body: (_ line: UnsafeRawBufferPointer, _ codes: UnsafeRawBufferPointer) -> Bool
    ) throws(SQLiteError) -> Bool {
        try withRow(path, optionsKey: optionsKey, key: key) { () -> Bool in
            // NULL: a row stored before the tally was.
            guard sqlite3_column_type(select, 7) != SQLITE_NULL, let line = sqlite3_column_blob(select, 6) else {
                return false
            }
            let lineBytes = UnsafeRawBufferPointer(start: line, count: Int(sqlite3_column_bytes(select, 6)))
            let codes = sqlite3_column_blob(select, 7)
            let codesBytes = UnsafeRawBufferPointer(start: codes, count: Int(sqlite3_column_bytes(select, 7)))
            return body(lineBytes, codesBytes)
        } ?? false
    }

    /// `body` on the row of `path` while the statement holds it, if its key matches; nil otherwise.
    private func withRow<T>(_ path: String, optionsKey: String, key: FileKey, _ body: () -> T) throws(SQLiteError)
        -> T?
    {
        if transaction == .reading && MonotonicClock.coarse - transactionStart > 1 { try commit() }
        try begin(.reading)
        defer { sqlite3_reset(select) }
        if selectOptions != optionsKey {
            // Kept across lookups (a reset keeps the bindings): one session asks with one key.
            try bind(select, text: optionsKey, at: 2)
            selectOptions = optionsKey
        }
        var path = path
        let found: Result<T?, SQLiteError> = path.withUTF8 { bytes in
            // Paths are bytes to the kernel; stored as a BLOB they compare byte for byte. Bound
            // without a copy (a nil destructor is SQLITE_STATIC): SQLite reads them in this
            // step, and copying them took a lock SQLite's allocator shares between threads.
            var status = sqlite3_bind_blob(select, 1, bytes.baseAddress, Int32(bytes.count), nil)
            guard status == SQLITE_OK else { return .failure(SQLiteError(status, handle)) }
            status = sqlite3_step(select)
            if status == SQLITE_DONE { return .success(nil) }
            guard status == SQLITE_ROW else { return .failure(SQLiteError(status, handle)) }
            guard UInt64(bitPattern: sqlite3_column_int64(select, 0)) == key.device,
                UInt64(bitPattern: sqlite3_column_int64(select, 1)) == key.inode,
                sqlite3_column_int64(select, 2) == key.size, sqlite3_column_int64(select, 3) == key.mtimeNanoseconds,
                sqlite3_column_int64(select, 4) == key.ctimeNanoseconds
            else { return .success(nil) }
            return .success(body())
        }
        return try found.get()
    }

    func store(_ path: String, optionsKey: String, key: FileKey, result: StoredResult) throws(SQLiteError) {
        // A read transaction is ended rather than upgraded: upgrading a snapshot another audit
        // has written past fails at once, where BEGIN IMMEDIATE waits for the lock.
        if transaction == .reading { try commit() }
        try begin(.writing)
        defer { sqlite3_reset(insert) }
        try bind(insert, path: path, optionsKey: optionsKey)
        sqlite3_bind_int64(insert, 3, Int64(bitPattern: key.device))
        sqlite3_bind_int64(insert, 4, Int64(bitPattern: key.inode))
        sqlite3_bind_int64(insert, 5, key.size)
        sqlite3_bind_int64(insert, 6, key.mtimeNanoseconds)
        sqlite3_bind_int64(insert, 7, key.ctimeNanoseconds)
        for (index, value) in [(Int32(8), result.findings), (Int32(9), result.line), (Int32(10), result.codes)] {
            if let value { try bind(insert, text: value, at: index) } else { sqlite3_bind_null(insert, index) }
        }
        let step = sqlite3_step(insert)
        guard step == SQLITE_DONE else { throw SQLiteError(step, handle) }
        pending += 1
        // Short transactions: another audit sharing the cache waits at most about a second.
        if pending >= 500 || MonotonicClock.coarse - transactionStart > 1 { try commit() }
    }

    /// Opens a transaction unless one is open: a deferred one to read, BEGIN IMMEDIATE to write.
    private func begin(_ kind: Transaction) throws(SQLiteError) {
        guard transaction == .none else { return }
        try Database.exec(handle, kind == .writing ? "BEGIN IMMEDIATE" : "BEGIN")
        transaction = kind
        // A second's rules, asked at every lookup: the clock to the kernel's last tick.
        transactionStart = MonotonicClock.coarse
    }

    /// Ends the open transaction. Marked closed only once COMMIT succeeds: a COMMIT that fails
    /// (busy) leaves SQLite's transaction open, and the next call must commit it, not BEGIN anew.
    func commit() throws(SQLiteError) {
        guard transaction != .none else { return }
        try Database.exec(handle, "COMMIT")
        pending = 0
        transaction = .none
    }

    private func bind(_ statement: OpaquePointer, path: String, optionsKey: String) throws(SQLiteError) {
        // Paths are bytes to the kernel; stored as a BLOB they compare byte for byte.
        var path = path
        let status = path.withUTF8 {
            vidorient_sqlite3_bind_blob_transient(statement, 1, $0.baseAddress, Int32($0.count))
        }
        guard status == SQLITE_OK else { throw SQLiteError(status, handle) }
        try bind(statement, text: optionsKey, at: 2)
    }

    /// `text` as parameter `index` of `statement`, copied by SQLite.
    private func bind(_ statement: OpaquePointer, text: String, at index: Int32) throws(SQLiteError) {
        var text = text
        let status = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                vidorient_sqlite3_bind_text_transient(statement, index, $0.baseAddress, Int32($0.count))
            }
        }
        guard status == SQLITE_OK else { throw SQLiteError(status, handle) }
    }

    private static func exec(_ handle: OpaquePointer, _ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw SQLiteError(status, handle) }
    }

    private static func integer(_ handle: OpaquePointer, _ sql: String) throws(SQLiteError) -> Int64 {
        var statement: OpaquePointer?
        var status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw SQLiteError(status, handle) }
        defer { sqlite3_finalize(statement) }
        status = sqlite3_step(statement)
        guard status == SQLITE_ROW else { throw SQLiteError(status, handle) }
        return sqlite3_column_int64(statement, 0)
    }

    private static func makeParentDirectories(of path: String) throws(SQLiteError) {
        guard !path.isEmpty else { return }
        var index = path.startIndex
        while let slash = path[path.index(after: index)...].firstIndex(of: "/") {
            let prefix = String(path[..<slash])
            if prefix.withPathCString({ mkdir($0, 0o755) }) != 0 && errno != EEXIST {
                throw SQLiteError(code: SQLITE_CANTOPEN, reason: "could not create '\(prefix)': \(errnoReason())")
            }
            index = slash
        }
    }

    private static func errnoReason() -> String { System.reason() }
}
