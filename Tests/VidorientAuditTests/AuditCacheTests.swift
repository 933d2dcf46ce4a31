import CSQLite
import Foundation
import Synchronization
import Testing
import VidorientAudit
import VidorientCore
import VidorientIO
import VidorientTestSupport

/// A cache file in its own temporary folder, and the warnings it gave.
final class CacheFixture: Sendable {
    let folder: URL
    let warnings = Mutex<[String]>([])
    var path: String { folder.appendingPathComponent("audit.sqlite").path }

    init() throws {
        folder = try scratchFolder("cache")
    }

    func open(fullRecords: Bool = false) -> AuditCache? {
        AuditCache.open(
            path: path, fullRecords: fullRecords, warn: { line in self.warnings.withLock { $0.append(line) } })
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// The JSONL a run writes, sorted (workers finish in any order), and the cache's counters.
func jsonl(_ source: Auditor.Source, cache: AuditCache?, deep: Bool = false) -> (lines: [String], hits: Int) {
    let writer = AuditWriter(format: .jsonl)
    let before = cache?.counters.hits ?? 0
    let run = audit(source) {
        $0.cache = cache
        $0.deep = deep
        $0.jobs = 2
    }
    return (run.records.map { writer.record($0, first: false) }.sorted(), (cache?.counters.hits ?? 0) - before)
}

/// A run as `audit --jsonl`/`--json` makes it: each worker renders its records (and, with
/// `replaying`, the cache's stored lines as they are) into marked chunks, written in path order.
/// The text, the summary (its time set to 0) and how many files went by their stored line.
func renderedRun(_ source: Auditor.Source, format: AuditFormat, cache: AuditCache?, replaying: Bool) -> (
    text: [UInt8], summary: AuditSummary, replayed: Int
) {
    let writer = AuditWriter(format: format)
    let replayed = Mutex(0)
    var options = AuditOptions()
    options.cache = cache
    options.jobs = 2
    var held = SortedRecords()
    var replay: AuditWriter.Replay?
    if replaying, let render = writer.replay(marked: true) {
        replay = { path, line, tally, chunk in
            guard render(path, line, tally, &chunk) else { return false }
            replayed.withLock { $0 += 1 }
            return true
        }
    }
    var text: [UInt8] = []
    var summary = Auditor(options: options).run(
        source, render: { record, chunk in writer.render(record, into: &chunk, marked: true) },
        replay: replay, ordered: true, deliver: { held.add($0) { text += $0 } })
    summary.seconds = 0
    held.finish { text += $0 }
    return (text, summary, replayed.withLock { $0 })
}

/// Runs SQL on the cache file through a connection of its own (SQLite as vidorient loads it).
func executeSQL(_ path: String, _ sql: String) throws {
    var error = [CChar](repeating: 0, count: 256)
    try #require(vo_sqlite_load(&error, error.count) == 0)
    var handle: OpaquePointer?
    try #require(sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
    defer { sqlite3_close_v2(handle) }
    let status = sqlite3_exec(handle, sql, nil, nil, nil)
    try #require(status == SQLITE_OK, "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
}

/// Sets a file's mtime back to what it was (ctime cannot be set back: that is the point).
func restoreModificationTime(_ path: String, _ status: stat) {
    var times = [status.st_atim, status.st_mtim]
    #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
}

@Suite struct AuditCacheTests {
    @Test func cachedRunsAreByteIdenticalToFreshOnes() throws {
        let library = try Library()
        defer { library.remove() }
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let fresh = jsonl(.walk([library.root.path]), cache: nil)
        let cache = try #require(fixture.open())
        let cold = jsonl(.walk([library.root.path]), cache: cache)
        #expect(cold.hits == 0)
        #expect(cache.counters.stored == fresh.lines.count)
        let warm = jsonl(.walk([library.root.path]), cache: cache)
        #expect(warm.hits == fresh.lines.count, "every unchanged file is answered from the cache")
        #expect(cold.lines == fresh.lines)
        #expect(warm.lines == fresh.lines)
        // Human and CSV output too: they are made from the findings a hit decodes.
        for format in [AuditFormat.human, .csv] {
            let writer = AuditWriter(format: format, showInfo: true)
            let freshText = audit(.walk([library.root.path])).records.map { writer.record($0, first: false) }.sorted()
            let cachedText = audit(.walk([library.root.path])) { $0.cache = cache }.records
                .map { writer.record($0, first: false) }.sorted()
            #expect(cachedText == freshText)
        }
        // A second connection (another audit sharing the file) sees the same rows; full records
        // decode to exactly what a fresh audit says.
        let second = try #require(fixture.open(fullRecords: true))
        let fullFresh = Set(audit(.walk([library.root.path])).records)
        let fullCached = audit(.walk([library.root.path])) { $0.cache = second }
        #expect(second.counters.hits == fullFresh.count)
        let differing = Set(fullCached.records).symmetricDifference(fullFresh)
        #expect(differing.isEmpty)
        #expect(fullCached.records.allSatisfy { $0.cached.line != nil })
        #expect(fixture.warnings.withLock { $0 }.isEmpty)
    }

    /// A new cache is made with pages of 64 KiB (a warm audit reads every page once, a system call
    /// each); a cache made before, with SQLite's 4 KiB pages, is read as it is, every file a hit.
    @Test func aNewCacheHasLargePagesAndAnOlderOneIsStillRead() throws {
        let library = try Library()
        defer { library.remove() }
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let fresh = jsonl(.walk([library.root.path]), cache: nil)
        let cold = jsonl(.walk([library.root.path]), cache: try #require(fixture.open()))
        #expect(cold.lines == fresh.lines)
        #expect(try pageSize(fixture.path) == 65536)
        // Rewritten with 4 KiB pages, as a cache of an earlier vidorient is.
        try executeSQL(fixture.path, "PRAGMA journal_mode = DELETE; PRAGMA page_size = 4096; VACUUM;")
        try executeSQL(fixture.path, "PRAGMA journal_mode = WAL")
        #expect(try pageSize(fixture.path) == 4096)
        let warm = jsonl(.walk([library.root.path]), cache: try #require(fixture.open()))
        #expect(warm.hits == fresh.lines.count)
        #expect(warm.lines == fresh.lines)
        #expect(try pageSize(fixture.path) == 4096)
        #expect(fixture.warnings.withLock { $0 }.isEmpty)
    }

    private func pageSize(_ path: String) throws -> Int64 {
        var error = [CChar](repeating: 0, count: 256)
        try #require(vo_sqlite_load(&error, error.count) == 0)
        var handle: OpaquePointer?
        try #require(sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
        defer { sqlite3_close_v2(handle) }
        var statement: OpaquePointer?
        try #require(sqlite3_prepare_v2(handle, "PRAGMA page_size", -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        try #require(sqlite3_step(statement) == SQLITE_ROW)
        return sqlite3_column_int64(statement, 0)
    }

    /// Findings that name their file (`vidorient thumbnail PATH --compare …`) are decoded once for
    /// every file that says the same but for its path (issue 32); each replayed record still names
    /// its own file, in its message and action, as a fresh audit does.
    @Test func findingsThatDifferByThePathAloneReplayWithTheirOwnPath() throws {
        let folder = try TemporaryFolder("cache-shapes")
        defer { folder.remove() }
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let photo = try Data(contentsOf: URL(fileURLWithPath: TestMedia.path("orient-2.jpg")))
        for inner in ["a", "b/c", "d e"] {
            try FileManager.default.createDirectory(atPath: folder.path(inner), withIntermediateDirectories: true)
            for name in ["x.jpg", "y.jpg"] {
                try photo.write(to: URL(fileURLWithPath: folder.path("\(inner)/\(name)")))
            }
        }
        let fresh = audit(.walk([folder.path])).records
        #expect(fresh.count == 6)
        // The premise: a mirrored photo's finding names the file in its action.
        #expect(fresh.allSatisfy { record in record.findings.contains { $0.action?.contains(record.path) == true } })
        let cache = try #require(fixture.open())
        _ = jsonl(.walk([folder.path]), cache: cache)
        let warm = audit(.walk([folder.path])) { $0.cache = cache }
        #expect(cache.counters.hits == 6)
        let byPath = Dictionary(uniqueKeysWithValues: fresh.map { ($0.path, $0.findings) })
        for record in warm.records {
            #expect(record.findings == byPath[record.path], "\(record.path)")
            #expect(record.findings.contains { $0.action?.contains(record.path) == true }, "\(record.path)")
        }
    }

    enum Change: String, CaseIterable, Sendable {
        case touch, rewriteSameSizeAndMtime, rename, delete, replaceWithSymlink
    }

    /// After each change, exactly the changed file is audited again, and the results equal a
    /// fresh run's.
    @Test(arguments: Change.allCases)
    func changesInvalidate(_ change: Change) throws {
        let library = try Library()
        defer { library.remove() }
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let cache = try #require(fixture.open())
        let folder = library.root.appendingPathComponent("trips/2024")
        let target = folder.appendingPathComponent("orient-2.mp4").path
        // Named explicitly as well as walked, so that a symbolic link is audited too.
        let source = {
            Auditor.Source.list(
                [folder.path + "/orient-2.mp4", folder.path + "/orient-6.mp4", folder.path + "/orient-3.jpg"]
                    .makeIterator())
        }
        _ = jsonl(source(), cache: cache)
        let unchanged = jsonl(source(), cache: cache)
        #expect(unchanged.hits == 3)
        var status = stat()
        #expect(stat(target, &status) == 0)
        var expectedHits = 2
        switch change {
        case .touch:
            #expect(utimensat(AT_FDCWD, target, nil, 0) == 0)
        case .rewriteSameSizeAndMtime:
            // orient-4.mp4 has the same size as orient-2.mp4 and another orientation.
            let other = try Data(contentsOf: Library.testMedia.appendingPathComponent("orient-4.mp4"))
            #expect(other.count == Int(status.st_size))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: target))
            try handle.write(contentsOf: other)
            try handle.close()
            restoreModificationTime(target, status)
            var after = stat()
            #expect(stat(target, &after) == 0 && after.st_size == status.st_size && after.st_ino == status.st_ino)
        case .rename:
            // Moved away and back: same path, same inode, same mtime; only the ctime moved.
            #expect(rename(target, target + ".moved") == 0)
            #expect(rename(target + ".moved", target) == 0)
        case .delete:
            #expect(unlink(target) == 0)
            expectedHits = 2
        case .replaceWithSymlink:
            #expect(unlink(target) == 0)
            #expect(symlink("orient-6.mp4", target) == 0)
        }
        let after = jsonl(source(), cache: cache)
        let fresh = jsonl(source(), cache: nil)
        #expect(after.hits == expectedHits)
        #expect(after.lines == fresh.lines)
        if change == .rewriteSameSizeAndMtime {
            #expect(after.lines.contains { $0.contains("orient-2.mp4") && $0.contains("\"exif_orientation\":4") })
        }
    }

    @Test func deepAndRulesVersionKeepTheirOwnRows() throws {
        let library = try Library()
        defer { library.remove() }
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let cache = try #require(fixture.open())
        let path = library.root.appendingPathComponent("sei-90.mp4").path
        let source = { Auditor.Source.list([path].makeIterator()) }
        let fast = jsonl(source(), cache: cache)
        let deep = jsonl(source(), cache: cache, deep: true)
        #expect(fast.hits == 0)
        #expect(deep.hits == 0, "--deep is not answered by a fast result")
        #expect(deep.lines == fast.lines, "the box layer reads the first sample's SEI as the decoder does")
        #expect(deep.lines == jsonl(source(), cache: nil, deep: true).lines)
        #expect(jsonl(source(), cache: cache).hits == 1)
        #expect(jsonl(source(), cache: cache, deep: true).hits == 1)

        // A row stored under the rules' current version is not found under the next one.
        var options = AuditOptions()
        options.deep = false
        let key = try #require(FileKey(path: path))
        #expect(cache.lookup(path, optionsKey: AuditCache.optionsKey(options), key: key) != nil)
        #expect(
            cache.lookup(
                path, optionsKey: AuditCache.optionsKey(options, rulesVersion: AuditRules.version + 1), key: key) == nil
        )
    }

    /// Bytes 60 and 68 of a SQLite file's header: user_version and application_id, big-endian.
    func patchHeader(_ path: String, offset: Int, value: UInt32) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: withUnsafeBytes(of: value.bigEndian) { Data($0) })
        try handle.close()
    }

    @Test func corruptAndForeignFilesAreSetAsideAndRebuilt() throws {
        let library = try Library()
        defer { library.remove() }
        for damage in ["garbage", "foreign"] {
            let fixture = try CacheFixture()
            defer { fixture.remove() }
            if damage == "garbage" {
                try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: fixture.path))
            } else {
                // A real SQLite file that belongs to something else. Closed first, so that the WAL
                // is folded back into the file whose header is patched.
                do {
                    let cache = try #require(fixture.open())
                    _ = jsonl(.walk([library.root.path]), cache: cache)
                }
                try patchHeader(fixture.path, offset: 68, value: 0x1234_5678)
            }
            let cache = try #require(fixture.open(), "a broken cache is rebuilt, not refused")
            let warnings = fixture.warnings.withLock { $0 }
            #expect(warnings.last?.contains("moved to") == true, "\(warnings)")
            let aside = try FileManager.default.contentsOfDirectory(atPath: fixture.folder.path).filter {
                $0.contains(".broken-")
            }
            #expect(aside.count == 1, "the old file is kept for a look, not deleted")
            let run = jsonl(.walk([library.root.path]), cache: cache)
            #expect(run.hits == 0, "nothing from the old file is trusted")
            #expect(run.lines == jsonl(.walk([library.root.path]), cache: nil).lines)
        }
    }

    /// What `audit --jsonl` and `--json` write for a file the cache answers for is its stored line,
    /// undecoded (issue 32), and the run counts it as the decoded record: the same text, in the
    /// same order, and the same summary as a fresh audit's. The terminal format and CSV go by the
    /// stored tally for a file with no finding they show, and decode the others.
    @Test(arguments: [AuditFormat.jsonl, .json, .human, .csv])
    func storedLinesAreWrittenAndCountedAsFreshRecords(format: AuditFormat) throws {
        let library = try Library()
        defer { library.remove() }
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let cache = try #require(fixture.open())
        let fresh = renderedRun(.walk([library.root.path]), format: format, cache: nil, replaying: true)
        let cold = renderedRun(.walk([library.root.path]), format: format, cache: cache, replaying: true)
        let warm = renderedRun(.walk([library.root.path]), format: format, cache: cache, replaying: true)
        #expect(fresh.summary.files > 10 && fresh.summary.failing > 0 && fresh.summary.unreadable > 0)
        #expect(cold.replayed == 0)
        if format == .jsonl || format == .json {
            #expect(warm.replayed == fresh.summary.files, "every unchanged file goes by its stored line")
        } else {
            // Only the files with nothing to show (no finding above info; for CSV none at all).
            let silent = audit(.walk([library.root.path])).records.count { record in
                !record.findings.contains { format == .csv || $0.severity > .info }
            }
            #expect(silent > 0 && silent < fresh.summary.files)
            #expect(warm.replayed == silent)
        }
        #expect(cold.text == fresh.text)
        #expect(warm.text == fresh.text)
        #expect(warm.summary == fresh.summary)
        #expect(warm.summary.folders == fresh.summary.folders)
        // A list of paths (`--files-from`) goes the same way: each path's key taken as given.
        let paths = audit(.walk([library.root.path])).records.map(\.path)
        let listed = renderedRun(.list(paths.makeIterator()), format: format, cache: cache, replaying: true)
        #expect(listed.replayed == warm.replayed)
        #expect(listed.text == fresh.text)
    }

    /// `--where` tests what a record says of its video and photo, which a hit does not decode for
    /// an ordinary run: with a warm cache it keeps the same files as without one (it kept only the
    /// unreadable ones, whose records say nothing to test).
    @Test func whereKeepsTheSameFilesWithAWarmCache() throws {
        let library = try Library()
        defer { library.remove() }
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let cache = try #require(fixture.open())
        let condition = try ReportCondition.parse("rotation=90")
        let kept = { (cache: AuditCache?) in
            audit(.walk([library.root.path])) {
                $0.cache = cache
                $0.conditions = [condition]
            }.records.map(\.path).sorted()
        }
        let fresh = kept(nil)
        #expect(fresh.contains { $0.hasSuffix("orient-6.mp4") })
        #expect(kept(cache) == fresh)
        #expect(kept(cache) == fresh)
        #expect(cache.counters.hits >= fresh.count)
    }

    /// A cache made before rows kept their findings' tally: opening it adds the column; its rows
    /// are answered by their findings, as before, writing the same text; a file audited again is
    /// stored with its tally and goes by its line from then on.
    @Test func aCacheFromBeforeTheTallyIsStillAnswered() throws {
        let library = try Library()
        defer { library.remove() }
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let fresh = renderedRun(.walk([library.root.path]), format: .jsonl, cache: nil, replaying: false)
        do {
            let cache = try #require(fixture.open())
            _ = renderedRun(.walk([library.root.path]), format: .jsonl, cache: cache, replaying: true)
        }
        try executeSQL(fixture.path, "ALTER TABLE files DROP COLUMN codes")
        let cache = try #require(fixture.open())
        let old = renderedRun(.walk([library.root.path]), format: .jsonl, cache: cache, replaying: true)
        #expect(old.replayed == 0)
        #expect(cache.counters.hits == fresh.summary.files, "the old rows still answer")
        #expect(old.text == fresh.text)
        #expect(old.summary == fresh.summary)
        // One file audited again (its ctime moved) is stored with its tally.
        let clip = library.root.appendingPathComponent("trips/2024/orient-6.mp4").path
        #expect(chmod(clip, 0o600) == 0)
        _ = renderedRun(.walk([library.root.path]), format: .jsonl, cache: cache, replaying: true)
        let again = renderedRun(.walk([library.root.path]), format: .jsonl, cache: cache, replaying: true)
        #expect(again.replayed == 1)
        #expect(again.text == fresh.text)
        #expect(fixture.warnings.withLock { $0 }.isEmpty)
    }

    @Test func aCacheFromANewerVersionIsLeftAlone() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        do { _ = try #require(fixture.open()) }
        try patchHeader(fixture.path, offset: 60, value: UInt32(AuditCache.formatVersion) + 1)
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.path))
        #expect(fixture.open() == nil)
        let warning = fixture.warnings.withLock { $0.last } ?? ""
        #expect(warning.contains("newer vidorient") && warning.contains("auditing without it"), "\(warning)")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: fixture.path)) == before, "a newer version's cache is not touched"
        )
    }

    @Test func anUnwritablePlaceGivesAWarningAndNoCache() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        // A regular file where a folder should be: root cannot write there either.
        let blocker = fixture.folder.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let cache = AuditCache.open(
            path: blocker.path + "/cache/audit.sqlite", warn: { line in fixture.warnings.withLock { $0.append(line) } })
        #expect(cache == nil)
        let warning = fixture.warnings.withLock { $0.last } ?? ""
        #expect(warning.contains("not a directory") && warning.contains("auditing without it"), "\(warning)")
    }
}
