import Foundation
import Synchronization
import Testing
import VidorientAudit
import VidorientCore
import VidorientTestSupport

/// A watcher running on its own thread, and everything it said, with waits bounded in time.
/// Waits end when what is awaited arrives (each record or event signals), not after a guess.
final class WatchRun: Sendable {
    let watcher: Watcher
    let folder: URL
    let records = Mutex<[AuditRecord]>([])
    let events = Mutex<[Watcher.Event]>([])
    /// While set, the record callback blocks: the watcher stops reading events.
    let gate = Mutex<DispatchSemaphore?>(nil)
    /// Set once the record callback is blocked on `gate`.
    let held = Mutex(false)
    private let arrived = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(settle: Double = 0.1, prepare: (URL) throws -> Void = { _ in }) throws {
        folder = try scratchFolder("watch")
        try prepare(folder)
        watcher = try Watcher(roots: [folder.path], settle: settle)
    }

    func start(options: AuditOptions = AuditOptions()) {
        try! start(options: options, thenAtOnce: {})
    }

    func start(options: AuditOptions = AuditOptions(), thenAtOnce: () throws -> Void) throws {
        DispatchQueue.global().async {
            // A failed wait is the watch's error: a test that meets one fails on it.
            try! self.watcher.run(
                options: options,
                record: { record in
                    if let gate = self.gate.withLock({ $0 }) {
                        self.held.withLock { $0 = true }
                        self.arrived.signal()
                        gate.wait()
                    }
                    self.records.withLock { $0.append(record) }
                    self.arrived.signal()
                },
                event: { event in
                    self.events.withLock { $0.append(event) }
                    self.arrived.signal()
                })
            self.finished.signal()
        }
        try thenAtOnce()
    }

    /// Waits until `condition` holds, at most `seconds`.
    @discardableResult
    func wait(_ seconds: Double = 20, until condition: () -> Bool) -> Bool {
        let end = DispatchTime.now() + seconds
        while !condition() {
            if arrived.wait(timeout: end) == .timedOut { return condition() }
        }
        return true
    }

    func count(_ name: String) -> Int { records.withLock { $0.filter { $0.path.hasSuffix("/" + name) }.count } }
    func record(_ name: String) -> AuditRecord? { records.withLock { $0.first { $0.path.hasSuffix("/" + name) } } }
    var isReady: Bool { events.withLock { $0.contains { if case .ready = $0 { true } else { false } } } }

    /// A file dropped last and waited for: events are handled in order and files become due in
    /// the order they settle, so once it is reported, every earlier batch has been too. Files due
    /// in the same batch may still be on their way (a batch is audited in parallel): a test that
    /// needs one of those waits for it.
    func syncPoint(_ name: String) throws -> Bool {
        try copy("orient-1.mp4", to: name)
        return wait { count(name) == 1 }
    }

    func copy(_ media: String, to name: String) throws {
        let target = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Library.testMedia.appendingPathComponent(media), to: target)
    }

    func stop() {
        watcher.stop()
        _ = finished.wait(timeout: .now() + 20)
        try? FileManager.default.removeItem(at: folder)
    }
}

@Suite struct WatcherTests {
    @Test func droppedMovedAndNestedFilesAreReportedOnce() throws {
        let run = try WatchRun()
        run.start()
        defer { run.stop() }
        #expect(run.wait { run.isReady })
        try run.copy("orient-2.mp4", to: "dropped.mp4")
        // Moved in from outside the tree: no close event in the folder, only IN_MOVED_TO.
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("vidorient-outside-\(getpid()).mp4")
        try? FileManager.default.removeItem(at: outside)
        try FileManager.default.copyItem(at: Library.testMedia.appendingPathComponent("orient-6.mp4"), to: outside)
        try FileManager.default.moveItem(at: outside, to: run.folder.appendingPathComponent("moved.mp4"))
        // A new folder two deep, with a file written at once: it may come before the watch does.
        try run.copy("orient-8.jpg", to: "new/deeper/photo.jpg")
        try run.copy("orient-3.mp4", to: "new/deeper/later.mp4")
        #expect(run.wait { ["dropped.mp4", "moved.mp4", "photo.jpg", "later.mp4"].allSatisfy { run.count($0) >= 1 } })
        #expect(try run.syncPoint("sync.mp4"))
        for name in ["dropped.mp4", "moved.mp4", "photo.jpg", "later.mp4"] { #expect(run.count(name) == 1, "\(name)") }
        #expect(run.record("dropped.mp4")?.video?.exifOrientation == 2)
        #expect(run.record("moved.mp4")?.video?.exifOrientation == 6)
        #expect(run.record("photo.jpg")?.photo?.exifOrientation == 8)
        #expect(run.record("notes.txt") == nil)
    }

    @Test func filesAlreadyThereAndArrivingAtStartAreReportedOnce() throws {
        let run = try WatchRun { folder in
            for n in [1, 3, 6] {
                try FileManager.default.copyItem(
                    at: Library.testMedia.appendingPathComponent("orient-\(n).mp4"),
                    to: folder.appendingPathComponent("before-\(n).mp4"))
            }
        }
        // Written while the watcher starts: before, during or after its first walk.
        try run.start { for n in [2, 5, 7] { try run.copy("orient-\(n).mp4", to: "during-\(n).mp4") } }
        defer { run.stop() }
        let names = [1, 3, 6].map { "before-\($0).mp4" } + [2, 5, 7].map { "during-\($0).mp4" }
        #expect(run.wait { run.isReady && names.allSatisfy { run.count($0) >= 1 } })
        #expect(try run.syncPoint("sync.mp4"))
        for name in names { #expect(run.count(name) == 1, "\(name)") }
    }

    /// Names that are not UTF-8, there at the start and dropped later, are reported by their
    /// bytes: the event's name is decoded losslessly, like the walk's.
    @Test func namesThatAreNotUTF8AreReportedByTheirBytes() throws {
        func place(_ media: String, in folder: URL, named name: [UInt8]) throws -> [UInt8] {
            let contents = try Array(Data(contentsOf: Library.testMedia.appendingPathComponent(media)))
            let path = Array(folder.path.utf8) + [UInt8(ascii: "/")] + name
            let descriptor = String(pathBytes: path).withPathCString { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            try #require(contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == contents.count)
            return path
        }
        var before: [UInt8] = []
        let run = try WatchRun { folder in
            before = try place("orient-6.mp4", in: folder, named: [0xFF, 0x2E, 0x6D, 0x70, 0x34])
        }
        run.start()
        defer { run.stop() }
        #expect(run.wait { run.isReady })
        let dropped = try place("orient-8.jpg", in: run.folder, named: Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        #expect(try run.syncPoint("sync.mp4"))
        // A file written within the start's clock tick is queued, not walked, and either file can
        // become due in the same batch as the sync file; a batch is audited in parallel, so wait for
        // both (bounded).
        #expect(
            run.wait {
                run.records.withLock { records in
                    [before, dropped].allSatisfy { name in records.contains { $0.path.pathBytes == name } }
                }
            })
        let records = run.records.withLock { $0 }
        #expect(records.first { $0.path.pathBytes == before }?.video?.exifOrientation == 6)
        #expect(records.first { $0.path.pathBytes == dropped }?.photo?.exifOrientation == 8)
        #expect(records.count == 3)
    }

    @Test func aSlowWriteIsReportedOnceWhenClosed() throws {
        let run = try WatchRun()
        run.start()
        defer { run.stop() }
        #expect(run.wait { run.isReady })
        let bytes = try Data(contentsOf: Library.testMedia.appendingPathComponent("orient-7.mp4"))
        let path = run.folder.appendingPathComponent("slow.mp4")
        #expect(FileManager.default.createFile(atPath: path.path, contents: nil))
        let handle = try FileHandle(forWritingTo: path)
        try handle.write(contentsOf: bytes.prefix(bytes.count / 2))
        // Another file settles while the slow one is open: had the half file been taken, it would
        // have been reported before this one.
        #expect(try run.syncPoint("sync.mp4"))
        #expect(run.count("slow.mp4") == 0, "a file still open for writing is not audited")
        try handle.write(contentsOf: bytes.suffix(from: bytes.count / 2))
        try handle.close()
        #expect(run.wait { run.count("slow.mp4") == 1 })
        #expect(try run.syncPoint("sync-2.mp4"))
        #expect(run.count("slow.mp4") == 1)
        #expect(run.record("slow.mp4")?.video?.exifOrientation == 7, "the complete file, not the half")
    }

    @Test func survivesItsFoldersGoingAway() throws {
        let run = try WatchRun { folder in
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("gone/inner"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("renamed"), withIntermediateDirectories: true)
        }
        run.start()
        defer { run.stop() }
        #expect(run.wait { run.isReady })
        try FileManager.default.removeItem(at: run.folder.appendingPathComponent("gone"))
        try FileManager.default.moveItem(
            at: run.folder.appendingPathComponent("renamed"), to: run.folder.appendingPathComponent("now-called"))
        #expect(
            run.wait {
                run.events.withLock { $0.contains(.gone(path: run.folder.appendingPathComponent("gone").path)) }
            })
        // A folder renamed within the tree is still watched, under its new name.
        try run.copy("orient-4.mp4", to: "now-called/inside.mp4")
        #expect(run.wait { run.record("inside.mp4") != nil })
        #expect(run.record("inside.mp4")?.path == run.folder.appendingPathComponent("now-called/inside.mp4").path)
        #expect(try run.syncPoint("after.mp4"))
    }

    @Test func anOverflowedQueueIsRescanned() throws {
        let run = try WatchRun()
        run.start()
        defer { run.stop() }
        #expect(run.wait { run.isReady })
        // Hold the watcher in its record callback, then make more events than the kernel queues
        // (fs.inotify.max_queued_events, 16384 by default): two files written in turn, so that no
        // two neighbouring events are alike and merged.
        let gate = DispatchSemaphore(value: 0)
        run.gate.withLock { $0 = gate }
        try run.copy("orient-1.mp4", to: "hold.mp4")
        #expect(run.wait { run.held.withLock { $0 } })
        let limit =
            (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16384
        let a = try FileHandle(
            forWritingTo: {
                try run.copy("orient-5.mp4", to: "a.mp4")
                return run.folder.appendingPathComponent("a.mp4")
            }())
        let b = try FileHandle(
            forWritingTo: {
                try run.copy("orient-8.mp4", to: "b.mp4")
                return run.folder.appendingPathComponent("b.mp4")
            }())
        try a.seekToEnd()
        try b.seekToEnd()
        for _ in 0...(limit / 2 + 10) {
            try a.write(contentsOf: Data([0]))
            try b.write(contentsOf: Data([0]))
        }
        try a.close()
        try b.close()
        run.gate.withLock { $0 = nil }
        gate.signal()
        #expect(run.wait { run.events.withLock { $0.contains(.overflow) } })
        #expect(run.wait { run.count("a.mp4") >= 1 && run.count("b.mp4") >= 1 })
        #expect(try run.syncPoint("after.mp4"))
        #expect(run.count("a.mp4") == 1 && run.count("b.mp4") == 1)
    }

    @Test func aFileIsNotAFolderToWatch() throws {
        let file = Library.testMedia.appendingPathComponent("orient-1.mp4").path
        #expect(throws: InputError(path: file, reason: "not a directory: --watch takes folders")) {
            try Watcher(roots: [file])
        }
        #expect(throws: InputError.self) { try Watcher(roots: ["/nonexistent/folder"]) }
    }
}
