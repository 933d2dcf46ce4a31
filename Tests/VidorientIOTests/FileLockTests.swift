import Foundation
import Synchronization
import Testing
import VidorientCore
import VidorientIO
import VidorientTestSupport

@Suite struct FileLockTests {
    /// A second lock on the same file waits until the first one ends.
    @Test func locksOnOneFileTakeTurns() throws {
        let folder = try TemporaryFolder("lock")
        defer { folder.remove() }
        let path = folder.path("f")
        try Data([1]).write(to: URL(fileURLWithPath: path))
        let order = Mutex<[String]>([])
        var first: FileLock? = try FileLock(path: path)
        let waiter = Thread {
            let second = try? FileLock(path: path)
            order.withLock { $0.append(second == nil ? "failed" : "second") }
        }
        waiter.start()
        usleep(200_000)
        order.withLock { $0.append("first released") }
        first = nil
        while order.withLock({ $0.count }) < 2 { usleep(10_000) }
        withExtendedLifetime(first) {}
        #expect(order.withLock { $0 } == ["first released", "second"])
    }

    /// A run that replaced the file (renamed a new one over it) leaves the next one waiting on the
    /// old file: once that lock is free, the lock is taken again on the file the path names now.
    @Test func aLockFollowsTheNameAfterAReplacement() throws {
        let folder = try TemporaryFolder("lock")
        defer { folder.remove() }
        let path = folder.path("f")
        try Data([1]).write(to: URL(fileURLWithPath: path))
        var first: FileLock? = try FileLock(path: path)
        let taken = Atomic<Bool>(false)
        let waiter = Thread {
            if let lock = try? FileLock(path: path) {
                // Held on the new file: a third lock must wait.
                withExtendedLifetime(lock) { taken.store(true, ordering: .relaxed) }
            }
        }
        waiter.start()
        usleep(100_000)
        try Data([2]).write(to: URL(fileURLWithPath: folder.path("new")))
        #expect(rename(folder.path("new"), path) == 0)
        first = nil
        withExtendedLifetime(first) {}
        var waited = 0
        while !taken.load(ordering: .relaxed), waited < 500 {
            usleep(10_000)
            waited += 1
        }
        let wasTaken = taken.load(ordering: .relaxed)
        #expect(wasTaken)
    }

    @Test(arguments: [("missing", "no such file or directory"), ("folder", "is a directory")])
    func whatCannotBeLockedSaysWhy(name: String, reason: String) throws {
        let folder = try TemporaryFolder("lock")
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path("folder"), withIntermediateDirectories: false)
        #expect(throws: VidorientError.self) { try FileLock(path: folder.path(name)) }
        do { _ = try FileLock(path: folder.path(name)) } catch { #expect(error.reason == reason) }
    }

    /// A FIFO is refused at once, never opened in a way that waits for a writer.
    @Test func aFIFOIsRefusedWithoutWaiting() throws {
        let folder = try TemporaryFolder("lock")
        defer { folder.remove() }
        let fifo = folder.path("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(throws: VidorientError.io("not a regular file")) { try FileLock(path: fifo) }
    }
}

@Suite struct ParallelTests {
    @Test(arguments: [0, 1, 7, 100])
    func everyIndexRunsOnce(count: Int) {
        let seen = Mutex([Int](repeating: 0, count: count))
        forEachConcurrently(count, jobs: 4) { index in seen.withLock { $0[index] += 1 } }
        #expect(seen.withLock { $0 }.allSatisfy { $0 == 1 })
    }

    /// `--jobs 12` on a machine with fewer cores still has twelve under way at once (files waiting on
    /// a disk): each job is its own thread. With `concurrentPerform` it was about the core count.
    @Test func moreJobsThanCoresRunAtOnce() {
        let jobs = max(12, processorCount + 4)
        let running = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        forEachConcurrently(jobs, jobs: jobs) { _ in
            let now = running.add(1, ordering: .relaxed).newValue
            _ = most.max(now, ordering: .relaxed)
            // Wait (at most two seconds) until every job has started.
            var waited = 0
            while running.load(ordering: .relaxed) < jobs && most.load(ordering: .relaxed) < jobs && waited < 200 {
                usleep(10_000)
                waited += 1
            }
        }
        let reached = most.load(ordering: .relaxed)
        #expect(reached == jobs)
    }
}

@Suite struct SystemCallTests {
    @Test func aWriteThatFailsSaysWhyWithItsCode() throws {
        let full = open("/dev/full", O_WRONLY)
        try #require(full >= 0)
        defer { close(full) }
        let bytes: [UInt8] = [1, 2, 3]
        do {
            try System.write(full, bytes, at: nil)
            Issue.record("/dev/full took the bytes")
        } catch {
            #expect(error.kind == .io)
            #expect(error.code == ENOSPC)
            #expect(error.reason == "could not write: no space left on device")
        }
    }

    @Test func aReadPastTheEndOfAFileSaysWhere() throws {
        let folder = try TemporaryFolder("system")
        defer { folder.remove() }
        let path = folder.path("f")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        let file = try RegularFile.open(path)
        defer { close(file.descriptor) }
        #expect(try System.read(file.descriptor, count: 3, at: 0) == [1, 2, 3])
        #expect(throws: VidorientError.malformed("file ended at 3 while it was being read")) {
            try System.read(file.descriptor, count: 4, at: 0)
        }
    }

    @Test func anEmptyFileIsRefusedByFileBytes() throws {
        let folder = try TemporaryFolder("system")
        defer { folder.remove() }
        let path = folder.path("empty")
        try Data().write(to: URL(fileURLWithPath: path))
        #expect(throws: VidorientError.malformed("file is empty")) { try FileBytes(path: path) }
    }
}
