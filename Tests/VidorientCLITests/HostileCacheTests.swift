import Foundation
import Synchronization
import Testing
import VidorientTestSupport

/// The audit cache as hostile input (issue 23): whatever is found in its place, the audit's
/// answer is a fresh run's, and nothing is written through a link or into a folder.
@Suite struct HostileCacheTests {
    static let media = Run.packageRoot.appendingPathComponent("TestMedia").path

    /// A SQLite cache cut short, a folder, and a link to a file that is not a cache, each in the
    /// cache's place. The output is a fresh audit's; the link's target is untouched.
    @Test(arguments: ["truncated", "folder", "link-to-another-file"])
    func whateverIsInItsPlaceTheAnswerIsFresh(_ kind: String) throws {
        let folder = try scratchFolder("hostile-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("audit.sqlite").path
        let precious = folder.appendingPathComponent("precious.txt").path
        let fresh = try Run.vidorient(["audit", Self.media, "--jsonl"])
        switch kind {
        case "truncated":
            #expect(try Run.vidorient(["audit", Self.media, "--jsonl", "--cache-path", cache]).status == fresh.status)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: cache)[.size] as? Int)
            #expect(size > 8192)
            #expect(truncate(cache, 6000) == 0)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: cache + suffix) }
        case "folder":
            try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: false)
        default:
            try Data("not a cache\n".utf8).write(to: URL(fileURLWithPath: precious))
            try FileManager.default.createSymbolicLink(atPath: cache, withDestinationPath: precious)
        }
        for round in 0..<2 {
            let run = try Run.vidorient(["audit", Self.media, "--jsonl", "--cache-path", cache])
            #expect(run.status == fresh.status)
            #expect(sortedLines(run.stdout) == sortedLines(fresh.stdout), "\(kind), run \(round + 1)")
            #expect(run.stderrLines.count <= 1, "\(run.stderr)")
        }
        switch kind {
        case "folder":
            #expect(try FileManager.default.contentsOfDirectory(atPath: cache).isEmpty, "written into the folder")
        case "link-to-another-file":
            #expect(
                try String(contentsOfFile: precious, encoding: .utf8) == "not a cache\n", "written through the link")
        default: break
        }
    }

    /// Two audits sharing one cache at once, twice: each answers as a fresh run does.
    @Test func twoAuditsAtOnceShareOneCache() throws {
        let folder = try scratchFolder("shared-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("audit.sqlite").path
        let fresh = try Run.vidorient(["audit", Self.media, "--jsonl"])
        for round in 0..<2 {
            let outputs = Mutex<[Run]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                if let run = try? Run.vidorient(["audit", Self.media, "--jsonl", "--cache-path", cache, "--jobs", "2"])
                {
                    outputs.withLock { $0.append(run) }
                }
            }
            let runs = outputs.withLock { $0 }
            #expect(runs.count == 2)
            for run in runs {
                #expect(run.status == fresh.status)
                #expect(sortedLines(run.stdout) == sortedLines(fresh.stdout), "round \(round + 1)")
                #expect(run.stderr.isEmpty, "\(run.stderr)")
            }
        }
    }

    /// Two audits making one new cache at the same moment: each reads the new file's id, format
    /// and tables as one snapshot (read one by one, the other's commit could fall between them,
    /// and a healthy cache was set aside as "not a vidorient audit cache"), and waits out the
    /// other's switch to WAL ("database is locked" at once, not covered by the busy timeout).
    /// Twenty rounds on three files: the race came in about one round in ten.
    @Test func twoAuditsMakingOneNewCache() throws {
        let folder = try scratchFolder("new-cache-race")
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = folder.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        for name in ["orient-6.jpg", "orient-6.png", "no-exif.jpg"] {
            try FileManager.default.copyItem(
                atPath: Run.media(name), toPath: library.appendingPathComponent(name).path)
        }
        for round in 0..<20 {
            let cache = folder.appendingPathComponent("cache-\(round).sqlite").path
            let outputs = Mutex<[Run]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                if let run = try? Run.vidorient(["audit", library.path, "--jsonl", "--cache-path", cache]) {
                    outputs.withLock { $0.append(run) }
                }
            }
            for run in outputs.withLock({ $0 }) {
                #expect(run.stderr.isEmpty, "round \(round + 1): \(run.stderr)")
                #expect(run.stdout.split(separator: "\n").count == 3)
            }
        }
        let setAside = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.contains(".broken-")
        }
        #expect(setAside.isEmpty, "\(setAside)")
    }
}
