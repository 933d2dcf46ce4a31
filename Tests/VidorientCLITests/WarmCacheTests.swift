import Foundation
import Testing
import VidorientTestSupport

/// What an audit does when its cache answers for every file (issue 32): per file one `lstat` and
/// a lookup; no audited file opened, nothing made, written or flushed.
@Suite struct WarmCacheTests {
    /// The system calls of a warm run over TestMedia, traced with `strace -f -y` (each descriptor
    /// shown with its path). Before issue 32's second round every run made, locked, sized and
    /// removed a crash-slot file beside the cache (`mkdir`, `open(O_CREAT)`, `ftruncate`,
    /// `unlink`), though no file was read.
    @Test func aWarmRunOpensNoAuditedFileAndWritesNothing() throws {
        try #require(isInstalled("strace"), "strace is installed by .ci/setup")
        let folder = try TemporaryFolder("warm-cache")
        defer { folder.remove() }
        let media = PackageFolder.root.appendingPathComponent("TestMedia").path
        let cache = folder.path("audit.sqlite")
        let audit = ["audit", media, "--jsonl", "--no-progress", "--jobs", "2", "--cache-path", cache]
        let cold = try Run.vidorient(audit)
        #expect(!cold.stdout.isEmpty, "\(cold.stderr)")
        // A first warm run settles what SQLite keeps beside the file; the second is traced.
        _ = try Run.vidorient(audit)
        let log = folder.path("trace")
        let warm = try Run.vidorient(
            audit,
            prefix: [
                "strace", "-f", "-y", "-o", log, "-e",
                "trace=open,openat,creat,mkdir,mkdirat,unlink,unlinkat,rename,renameat,ftruncate,pwrite64,pwritev,fsync,fdatasync",
            ])
        #expect(warm.status == cold.status, "\(warm.stderr)")
        #expect(sortedLines(warm.stdout) == sortedLines(cold.stdout))
        let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map {
            // "PID  call(…) = result": the call, after the process ID and its padding.
            String($0.drop { !$0.isWhitespace }.drop { $0.isWhitespace })
        }.filter { !$0.hasPrefix("+++") && !$0.hasPrefix("---") }
            // A call another thread interrupted is two lines: `openat(… <unfinished ...>`, which holds
            // its arguments and is checked, and `<... openat resumed>) = 7`, which holds only the result.
            .filter { !$0.hasPrefix("<...") }
        // Folders are listed (`O_DIRECTORY`); no file of the library is opened.
        let opened = calls.filter {
            ($0.hasPrefix("open(") || $0.hasPrefix("openat(")) && $0.contains(media + "/")
                && !$0.contains("O_DIRECTORY")
        }
        #expect(opened.isEmpty, "\(opened.prefix(5))")
        // SQLite's own housekeeping is allowed: it opens the cache and its `-wal` and `-shm` with
        // `O_CREAT`, sizes and touches the shared-memory index (`-shm`), and removes both at its
        // last close. A row written would be a `pwrite` to the `-wal`, a commit its `fdatasync`.
        let sqliteFiles = [cache, cache + "-wal", cache + "-shm"].map { "\"\($0)\"" }
        let written = calls.filter { call in
            if call.hasSuffix("EEXIST (File exists)") { return false }  // the cache's folder, there already
            if call.hasPrefix("open(") || call.hasPrefix("openat(") {
                return call.contains("O_CREAT") && !sqliteFiles.contains { call.contains($0) }
            }
            if call.hasPrefix("unlink") { return !sqliteFiles.dropFirst().contains { call.contains($0) } }
            if call.hasPrefix("ftruncate(") || call.hasPrefix("pwrite") { return !call.contains(cache + "-shm>") }
            return true
        }
        #expect(written.isEmpty, "\(written.prefix(8))")
    }
}
