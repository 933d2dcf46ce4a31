import Foundation
import Testing
import VidorientTestSupport

/// `audit --watch` under load (issue 23): thousands of files moved in at once, the watched folder
/// deleted, and SIGTERM in the middle of a batch. Nothing missed, nothing reported twice, every
/// line whole, a clean stop. `VIDORIENT_WATCH_LOAD` sets how many files (5,000 by default, to keep
/// `swift test` quick; docs/hostile-input.md has the 20,000 run).
@Suite struct WatchLoadTests {
    static func moveIn(_ count: Int, from staging: URL, to inbox: URL, prefix: String) throws {
        let sample = try Data(contentsOf: URL(fileURLWithPath: Run.media("orient-6.jpg")))
        for n in 0..<count {
            let name = "\(prefix)-\(n).jpg"
            let staged = staging.appendingPathComponent(name).path
            #expect(FileManager.default.createFile(atPath: staged, contents: sample))
            #expect(rename(staged, inbox.appendingPathComponent(name).path) == 0)
        }
    }

    /// A new folder with `inbox`, watched (`audit --watch inbox --jsonl` and `more`), and
    /// `staging`, where files are made before they are moved in; the watch has said it is watching.
    static func watching(
        _ label: String, more: (URL) -> [String] = { _ in [] }
    ) throws -> (folder: URL, inbox: URL, staging: URL, watch: WatchProcess) {
        let folder = try scratchFolder(label)
        let inbox = folder.appendingPathComponent("inbox")
        let staging = folder.appendingPathComponent("staging")
        for made in [inbox, staging] {
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
        }
        let watch = try WatchProcess(["audit", "--watch", inbox.path, "--jsonl", "--settle", "0.1"] + more(folder))
        #expect(watch.wait { watch.errors.withLock { $0.contains("watching") } })
        return (folder, inbox, staging, watch)
    }

    /// The paths of the JSONL records written so far; a line that is not a whole record fails.
    static func paths(_ output: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(record != nil, "a line that is not a whole record: \(line.prefix(200))")
            return record?["path"] as? String
        }
    }

    static let load = LargeRounds.watchLoad

    @Test func thousandsOfFilesAtOnceThenTheFolderGoneThenSIGTERM() throws {
        let (folder, inbox, staging, watch) = try Self.watching("watch-load") {
            ["--jobs", "2", "--cache-path", $0.appendingPathComponent("cache.sqlite").path]
        }
        defer { try? FileManager.default.removeItem(at: folder) }

        let count = Self.load
        let started = Date()
        try Self.moveIn(count, from: staging, to: inbox, prefix: "a")
        let all = watch.wait(300) { watch.outputLines.withLock { $0 } >= count }
        #expect(all, "\(watch.outputLines.withLock { $0 }) of \(count) reported")
        // Anything reported twice would come now.
        usleep(1_500_000)
        let reported = Self.paths(watch.output.withLock { $0 })
        #expect(reported.count == count, "\(reported.count) lines for \(count) files")
        #expect(Set(reported).count == count, "a file reported twice")
        #expect(Set(reported) == Set((0..<count).map { inbox.appendingPathComponent("a-\($0).jpg").path }))

        // The watched folder deleted: said on stderr, and the watch goes on.
        try FileManager.default.removeItem(at: inbox)
        #expect(
            watch.wait { watch.errors.withLock { $0.contains("went away: no longer watched") } },
            "\(watch.errors.withLock { $0 })")
        #expect(watch.process.isRunning)
        #expect(watch.stop(SIGTERM) == 0)
        #expect(Self.paths(watch.output.withLock { $0 }).count == count, "reported after the folder went away")
        print(
            "watch load: \(count) files, each reported once, in \(Int(Date().timeIntervalSince(started))) s with the test's own work"
        )
    }

    /// The watched folder renamed (moved out of the watch) while a batch of 2,000 is being audited:
    /// said on stderr, the watch goes on and stops cleanly, and no file is reported twice; what
    /// was reported was reported under the folder's old name, each line whole.
    @Test func theWatchedFolderRenamedMidBatch() throws {
        let (folder, inbox, staging, watch) = try Self.watching("watch-rename")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.moveIn(2000, from: staging, to: inbox, prefix: "c")
        #expect(watch.wait(60) { !watch.output.withLock { $0 }.isEmpty })
        #expect(rename(inbox.path, folder.appendingPathComponent("moved").path) == 0)
        #expect(
            watch.wait { watch.errors.withLock { $0.contains("went away: no longer watched") } },
            "\(watch.errors.withLock { $0 })")
        #expect(watch.process.isRunning)
        #expect(watch.stop(SIGTERM) == 0)
        let reported = Self.paths(watch.output.withLock { $0 })
        #expect(!reported.isEmpty && reported.count <= 2000)
        #expect(Set(reported).count == reported.count, "a file reported twice")
        #expect(reported.allSatisfy { $0.hasPrefix(inbox.path + "/") })
        for line in watch.errors.withLock({ $0 }).split(separator: "\n") {
            #expect(line.hasPrefix("vidorient: "), "\(line)")
        }
    }

    /// SIGTERM while a batch of 5,000 is being audited: exit 0 at once, each line whole, no file twice.
    @Test func sigtermMidBatchStopsCleanly() throws {
        let (folder, inbox, staging, watch) = try Self.watching("watch-sigterm")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.moveIn(5000, from: staging, to: inbox, prefix: "b")
        #expect(watch.wait(60) { !watch.output.withLock { $0 }.isEmpty })
        let started = Date()
        #expect(watch.stop(SIGTERM) == 0)
        #expect(Date().timeIntervalSince(started) < 10, "the stop waited for the batch")
        let reported = Self.paths(watch.output.withLock { $0 })
        #expect(!reported.isEmpty && reported.count <= 5000)
        #expect(Set(reported).count == reported.count, "a file reported twice")
    }
}
