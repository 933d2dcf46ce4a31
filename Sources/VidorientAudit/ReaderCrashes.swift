import Synchronization
import VidorientCore
public import VidorientIO

/// What keeps one file that kills the process from killing every audit after it (issue 28): each
/// worker writes the file it is reading into its own slot of a small shared mapping before it
/// reads, and clears the slot after. The process dying (a reader's crash, SIGKILL, the OOM
/// killer) leaves the slot as it was, in the page cache, so the next audit finds the file that
/// was being read, reports it as `reader-crashed` and skips it until it changes, as a database
/// skips a poisoned record.
///
/// Kept beside the audit cache (`--cache`, `--cache-path C`): `C.reading/`, one slot file per
/// running audit (locked while it runs, so a file nobody holds the lock of is a dead run's), and
/// `C.crashed`, the files known to kill a reader, one line each (path bytes in hex, inode,
/// size, mtime in nanoseconds). An audit without a cache writes nothing, so remembers nothing.
public final class ReaderCrashes: @unchecked Sendable {
    /// A file that killed a reader, as it was then.
    struct Entry: Hashable {
        var path: String
        var inode: UInt64
        var size: Int64
        var mtimeNanoseconds: Int64

        func matches(_ key: FileKey) -> Bool {
            key.inode == inode && key.size == size && key.mtimeNanoseconds == mtimeNanoseconds
        }
    }

    /// Bytes a slot takes: its state, the key, the path's length and up to 4,060 bytes of path.
    static let slotSize = 4096
    private static let pathCapacity = slotSize - 36

    private let folder: String
    private let slotCount: Int
    /// This run's slots, made by the first file that is read (`begin`): a run that reads no file
    /// (a warm cache, nothing changed) makes no file and writes nothing.
    private let slots = Mutex(SlotFile.State.notMade)
    private let listPath: String
    /// The files known to kill a reader, by path; taken out when one turns out changed.
    private let known: Mutex<[String: Entry]>
    /// Whether any file was known at the start: when none was (the usual run), no file's lookup
    /// takes the lock, which every worker would otherwise take for every file.
    private let anyKnown: Bool
    private let changed = Atomic<Bool>(false)
    /// Test-only: a reader of a file of this name kills its own process (SIGKILL), so that the
    /// tests kill a real audit mid-read without depending on a real bug.
    private static let killReading = getenv("VIDORIENT_TEST_KILL_READING").map { String(cString: $0) }

    /// Reads what dead runs left beside the cache at `cachePath` (their slots, taken over into the
    /// list) and the list; this run's own `workers` slots are made when the first file is read
    /// (where they cannot be, the audit goes on without them).
    public init(cachePath: String, workers: Int) {
        folder = cachePath + ".reading"
        listPath = cachePath + ".crashed"
        var entries = Self.readList(listPath)
        let harvested = Self.harvest(folder)
        for entry in harvested { entries[entry.path] = entry }
        slotCount = max(1, workers)
        known = Mutex(entries)
        anyKnown = !entries.isEmpty
        if !harvested.isEmpty { Self.writeList(listPath, Array(entries.values)) }
    }

    deinit {
        slots.withLock { if case .made(let file) = $0 { file.remove() } }
    }

    /// The record of a file known to kill a reader, unchanged since: skipped, said. A file that
    /// changed since (inode, size or mtime) is forgotten and read again (nil).
    public func knownCrash(_ path: String, key: FileKey?) -> AuditRecord? {
        guard anyKnown, let entry = known.withLock({ $0[path] }) else { return nil }
        if let key = key ?? FileKey(path: path), entry.matches(key) {
            return AuditRecord(
                path: path, video: nil,
                findings: [
                    Finding(
                        .readerCrashed, severity: .error,
                        message:
                            "an earlier audit died while reading this file, so it is skipped until it changes "
                            + "(its size, modification time or inode)",
                        action: "vidorient inspect \(MediaReport.shellQuoted(path)) (alone, to see why)")
                ])
        }
        known.withLock { _ = $0.removeValue(forKey: path) }
        changed.store(true, ordering: .relaxed)
        return nil
    }

    /// Before `worker` reads `path`: its slot names it (state written last). The first call makes
    /// the run's slots (one lock per file read, none per file answered from the cache).
    public func begin(worker: Int, path: String, key: FileKey?) {
        guard worker >= 0, worker < slotCount, let base = slotsBase() else { return }
        let slot = base + worker * Self.slotSize
        let key = key ?? FileKey(path: path)
        slot.storeBytes(of: UInt64(0), toByteOffset: 0, as: UInt64.self)
        slot.storeBytes(of: key?.inode ?? 0, toByteOffset: 8, as: UInt64.self)
        slot.storeBytes(of: key?.size ?? -1, toByteOffset: 16, as: Int64.self)
        slot.storeBytes(of: key?.mtimeNanoseconds ?? 0, toByteOffset: 24, as: Int64.self)
        let bytes = path.pathBytes.prefix(Self.pathCapacity)
        slot.storeBytes(of: UInt32(bytes.count), toByteOffset: 32, as: UInt32.self)
        bytes.withUnsafeBytes { (slot + 36).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        slot.storeBytes(of: UInt64(1), toByteOffset: 0, as: UInt64.self)
        if let name = Self.killReading, path.hasSuffix("/" + name) || path == name { kill(getpid(), SIGKILL) }
    }

    /// After `worker` read its file.
    public func end(worker: Int) {
        guard worker >= 0, worker < slotCount, let base = slotsBase() else { return }
        (base + worker * Self.slotSize).storeBytes(of: UInt64(0), toByteOffset: 0, as: UInt64.self)
    }

    /// Reads `path` with `read`, `worker`'s slot naming it meanwhile.
    public func reading<T>(worker: Int, path: String, key: FileKey?, _ read: () -> T) -> T {
        begin(worker: worker, path: path, key: key)
        defer { end(worker: worker) }
        return read()
    }

    /// The slots' first byte, made on first use; nil when they could not be made.
    private func slotsBase() -> UnsafeMutableRawPointer? {
        slots.withLock { state in
            if case .notMade = state {
                state = SlotFile(folder: folder, count: slotCount).map { .made($0) } ?? .failed
            }
            if case .made(let file) = state { return file.base }
            return nil
        }
    }

    /// At the end of the run: the list without the files that changed since they killed a reader.
    public func finish() {
        guard changed.load(ordering: .relaxed) else { return }
        Self.writeList(listPath, Array(known.withLock { $0.values }))
    }

    /// The files dead runs were reading: each slot file in `folder` whose lock nobody holds.
    private static func harvest(_ folder: String) -> [Entry] {
        guard let directory = folder.withPathCString({ opendir($0) }) else { return [] }
        defer { closedir(directory) }
        var found: [Entry] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            guard name != ".", name != ".." else { continue }
            let path = folder + "/" + name
            let descriptor = path.withPathCString { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            // A live run holds its file's lock. Absent is fine: a file that cannot be examined is
            // left as it is (not unlinked), for a later run to harvest.
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, let status = try? System.status(descriptor),
                status.st_mode & S_IFMT == S_IFREG
            else { continue }
            let count = Int(status.st_size) / slotSize
            // Absent is fine: slots that cannot be read name no crash; the file is removed all the same.
            if count > 0, count <= 1 << 16, let bytes = try? System.read(descriptor, count: count * slotSize, at: 0) {
                bytes.withUnsafeBytes { raw in
                    for index in 0..<count {
                        let slot = raw.baseAddress! + index * slotSize
                        guard slot.loadUnaligned(as: UInt64.self) == 1 else { continue }
                        let length = min(Int(slot.loadUnaligned(fromByteOffset: 32, as: UInt32.self)), pathCapacity)
                        found.append(
                            Entry(
                                path: String(pathBytes: UnsafeRawBufferPointer(start: slot + 36, count: length)),
                                inode: slot.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                                size: slot.loadUnaligned(fromByteOffset: 16, as: Int64.self),
                                mtimeNanoseconds: slot.loadUnaligned(fromByteOffset: 24, as: Int64.self)))
                    }
                }
            }
            _ = path.withPathCString { unlink($0) }
        }
        return found
    }

    /// `C.crashed`: a line a file, `HEX-PATH INODE SIZE MTIME`; a line that does not read is dropped.
    private static func readList(_ path: String) -> [String: Entry] {
        // Absent is fine: no list yet, or one that cannot be read, means every file is read; one
        // that kills the reader again is found in its slot by the next audit, as the first time.
        guard let bytes = try? FileBytes.readAll(path, limit: 16 << 20) else { return [:] }
        var entries: [String: Entry] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 4, let file = String(pathBytesHex: String(words[0])), let inode = UInt64(words[1]),
                let size = Int64(words[2]), let mtime = Int64(words[3])
            else { continue }
            entries[file] = Entry(path: file, inode: inode, size: size, mtimeNanoseconds: mtime)
        }
        return entries
    }

    /// Writes the list whole, through a temporary file and a rename.
    private static func writeList(_ path: String, _ entries: [Entry]) {
        guard !entries.isEmpty else {
            _ = path.withPathCString { unlink($0) }
            return
        }
        let text = entries.sorted { $0.path.pathBytes.lexicographicallyPrecedes($1.path.pathBytes) }.map {
            let hex = $0.path.pathBytes.map { byte in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }.joined()
            return "\(hex) \($0.inode) \($0.size) \($0.mtimeNanoseconds)\n"
        }.joined()
        // Absent is fine: the list is kept best effort, as the audit cache is; unwritten, the next
        // audit reads those files again, and one that kills the reader again is found in its slot
        // and listed by the audit after it.
        _ = try? OutputFile.write(Array(text.utf8), to: path)
    }
}

/// One run's slot file, `C.reading/PID-RANDOM`: mapped, locked while the run lives, removed at
/// its end.
private struct SlotFile {
    enum State {
        case notMade, made(SlotFile), failed
    }

    let path: String
    let descriptor: Int32
    let base: UnsafeMutableRawPointer
    let bytes: Int

    init?(folder: String, count: Int) {
        if folder.withPathCString({ mkdir($0, 0o700) }) != 0 && errno != EEXIST { return nil }
        path = folder + "/\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
        descriptor = path.withPathCString { open($0, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { return nil }
        bytes = count * ReaderCrashes.slotSize
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, ftruncate(descriptor, off_t(bytes)) == 0,
            let mapped = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), mapped != MAP_FAILED
        else {
            close(descriptor)
            _ = path.withPathCString { unlink($0) }
            return nil
        }
        base = mapped
    }

    func remove() {
        munmap(base, bytes)
        _ = path.withPathCString { unlink($0) }
        close(descriptor)
    }
}
