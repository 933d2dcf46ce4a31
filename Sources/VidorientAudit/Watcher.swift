import Synchronization
public import VidorientCore
public import VidorientIO

/// Watches ingest folders with inotify and audits each new or changed file once it is complete:
/// after the writer closed it (`IN_CLOSE_WRITE`) or moved it in (`IN_MOVED_TO`), and nothing
/// happened to it for `settle` seconds. Subfolders are watched as they appear; a queue overflow
/// rescans for what changed meanwhile.
public final class Watcher: Sendable {
    public let roots: [String]
    /// Seconds of quiet after a file's last close before it is audited.
    public let settle: Double
    private let inotify: Int32
    private let stopPipe: (read: Int32, write: Int32)

    /// Fails with one line naming the first root that is not a readable directory.
    public init(roots: [String], settle: Double = 1) throws(InputError) {
        for root in roots {
            var status = stat()
            guard root.withPathCString({ stat($0, &status) }) == 0 else {
                throw InputError(path: root, reason: LibraryWalk.errnoReason())
            }
            guard (status.st_mode & S_IFMT) == S_IFDIR else {
                throw InputError(path: root, reason: "not a directory: --watch takes folders")
            }
        }
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw InputError(path: roots.first ?? "", reason: "inotify: " + LibraryWalk.errnoReason())
        }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            close(descriptor)
            throw InputError(path: roots.first ?? "", reason: LibraryWalk.errnoReason())
        }
        for end in fds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        self.roots = roots
        self.settle = settle
        inotify = descriptor
        stopPipe = (fds[0], fds[1])
    }

    deinit {
        close(inotify)
        close(stopPipe.read)
        close(stopPipe.write)
    }

    /// The descriptor whose writing ends `run`: async-signal-safe, for a SIGINT handler.
    public var stopDescriptor: Int32 { stopPipe.write }

    /// Ends `run` from any thread.
    public func stop() {
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
    }

    /// What the watch did besides auditing, for stderr.
    public enum Event: Sendable, Hashable {
        /// The startup audit of what was already there is done; events are reported from now.
        case ready(files: Int)
        /// A watch could not be added (`fs.inotify.max_user_watches`, permissions).
        case unwatched(path: String, reason: String)
        /// A watched folder went away (deleted, or moved out of the tree).
        case gone(path: String)
        /// The kernel's queue overflowed: the tree is walked again for what changed.
        case overflow
        /// The walk passed something over.
        case walkNote(WalkNote)

        /// The line said on stderr for it (`roots`: the folders watched); nil for none.
        public func message(roots: [String]) -> String? {
            switch self {
            case .ready(let files):
                "watching \(roots.count == 1 ? "'\(roots[0])'" : "\(roots.count) folders") (\(files.counting("file")) already there)"
            case .unwatched(let path, let reason): "not watching '\(path)': \(reason)"
            case .gone(let path): "'\(path)' went away: no longer watched"
            case .overflow: "the inotify queue overflowed: looking again for what changed"
            case .walkNote(let note): note.kind == .symlinkSkipped ? nil : note.message
            }
        }
    }

    /// Audits what is there (with the cache, cheap when unchanged), then each file as it
    /// completes, until `stop()`. `record` and `event` are called one at a time. Throws when the
    /// wait for events fails (it used to end the watch as if stopped, in silence).
    public func run(
        options: AuditOptions, record: @escaping (AuditRecord) -> Void, event: @escaping (Event) -> Void
    ) throws(VidorientError) {
        var state = WatchState(walk: options.walk)
        // File times come from the kernel's coarse clock, up to a tick (4–10 ms) behind this one:
        // a file changed just after this moment may carry a ctime just before it.
        let before = realtimeNanoseconds() - 50_000_000
        for root in roots { state.addWatches(root, inotify: inotify, event: event) }

        // Files changed since the watch began may still be being written: they are not reported
        // by this walk but queued like files with events, so that they are reported once, when
        // complete. Every other file is reported here, in the state the walk saw.
        let recent = Mutex<[String]>([])
        let summary = Auditor(options: options).run(
            .walk(roots),
            record: { auditRecord in
                guard let key = FileKey(path: auditRecord.path) else { return }
                if key.ctimeNanoseconds >= before {
                    recent.withLock { $0.append(auditRecord.path) }
                    return
                }
                record(auditRecord)
            }, note: { event(.walkNote($0)) })
        for path in recent.withLock({ $0 }) { state.touch(path, complete: true, settle: settle, walked: false) }
        event(.ready(files: summary.files))

        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let timeout =
                state.nextDeadline().map { max(0, Int32((($0 - MonotonicClock.now) * 1000).rounded(.up))) } ?? -1
            var fds = [
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0),
            ]
            // An interrupted wait is tried again; any other failure ends the watch, said.
            _ = try System.call("waiting for changes") { poll(&fds, 2, timeout) }
            if fds[1].revents != 0 { break }
            if fds[0].revents & Int16(POLLERR | POLLNVAL) != 0 {
                throw .io("waiting for changes: the kernel's event queue failed")
            }
            if fds[0].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                if count < 0 && errno != EAGAIN && errno != EINTR { throw System.error("reading the kernel's events") }
                if count > 0 { state.handle(buffer[0..<count], inotify: inotify, settle: settle, event: event) }
            }
            if state.overflowed {
                state.overflowed = false
                event(.overflow)
                for root in roots { state.rescan(root, inotify: inotify, settle: settle, event: event) }
            }
            let due = state.takeDue()
            guard !due.isEmpty else { continue }
            var changed: [String] = []
            for (path, walked) in due {
                // Gone already, or the same state of the file as last reported: nothing to say.
                guard let key = FileKey(path: path), state.reported[path] != key else { continue }
                // Unchanged since before the watch began: the first walk reported it in this very
                // state (the close of a write that ended just before the watch comes late).
                if walked && state.reported[path] == nil && key.ctimeNanoseconds < before { continue }
                state.reported[path] = key
                changed.append(path)
            }
            guard !changed.isEmpty else { continue }
            _ = Auditor(options: options).run(
                .list(changed.makeIterator()), record: record, note: { event(.walkNote($0)) })
        }
    }
}

/// Nanoseconds since the epoch, the clock file ctimes are on.
func realtimeNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// The watch's bookkeeping, used by the one thread that runs the loop.
private struct WatchState {
    let walk: LibraryWalk
    /// Watch descriptor to folder path.
    var folders: [Int32: String] = [:]
    /// Watch descriptor to the folder's device and inode, to tell a rename from a move away.
    var identities: [Int32: DirectoryID] = [:]
    /// Files seen changing, with when they may be audited and whether the writer has closed them.
    /// `walked`: the first walk may have reported the file (false for files found in a folder
    /// that came into the tree later, which keep their old ctimes).
    var pending: [String: (deadline: Double, complete: Bool, walked: Bool)] = [:]
    /// The key each file had when it was last reported.
    var reported: [String: FileKey] = [:]
    var overflowed = false

    init(walk: WalkOptions) {
        self.walk = LibraryWalk(options: walk)
    }

    static let folderMask: UInt32 =
        UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE) | UInt32(IN_MODIFY) | UInt32(IN_DELETE_SELF)
        | UInt32(IN_MOVE_SELF) | UInt32(IN_ONLYDIR)

    /// Watches `folder` and every folder below it; returns the files found there.
    @discardableResult
    mutating func addWatches(_ folder: String, inotify: Int32, event: (Watcher.Event) -> Void) -> [String] {
        let descriptor = folder.withPathCString { inotify_add_watch(inotify, $0, WatchState.folderMask) }
        if descriptor < 0 {
            let reason =
                errno == ENOSPC
                ? "the inotify watch limit is reached (raise fs.inotify.max_user_watches)" : LibraryWalk.errnoReason()
            event(.unwatched(path: folder, reason: reason))
            return []
        }
        // A folder moved within the tree keeps its descriptor: the path is updated.
        folders[descriptor] = folder
        var status = stat()
        if folder.withPathCString({ stat($0, &status) }) == 0 { identities[descriptor] = DirectoryID(status) }
        var files: [String] = []
        guard let names = LibraryWalk.sortedNames(in: folder) else { return [] }
        for name in names {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var status = stat()
            guard path.withPathCString({ lstat($0, &status) }) == 0 else { continue }
            if (status.st_mode & S_IFMT) == S_IFDIR {
                if !walk.options.exclude.contains(where: { LibraryWalk.matches($0, path) }) {
                    files += addWatches(path, inotify: inotify, event: event)
                }
            } else if (status.st_mode & S_IFMT) == S_IFREG, walk.accepts(path, explicitly: false) {
                files.append(path)
            }
        }
        return files
    }

    /// After an overflow: watches again (new folders), and every file changed since the last
    /// report is queued; the keys already reported keep unchanged files quiet.
    mutating func rescan(_ root: String, inotify: Int32, settle: Double, event: (Watcher.Event) -> Void) {
        for path in addWatches(root, inotify: inotify, event: event) {
            if let key = FileKey(path: path), reported[path] == key { continue }
            touch(path, complete: true, settle: settle)
        }
    }

    /// Every event starts the quiet time again; only a close or a move in makes a file complete.
    mutating func touch(_ path: String, complete: Bool, settle: Double, walked: Bool = true) {
        pending[path] = (MonotonicClock.now + settle, complete, walked && (pending[path]?.walked ?? true))
    }

    mutating func handle(_ bytes: ArraySlice<UInt8>, inotify: Int32, settle: Double, event: (Watcher.Event) -> Void) {
        var offset = bytes.startIndex
        // struct inotify_event: int wd; uint32_t mask, cookie, len; char name[len].
        while offset + 16 <= bytes.endIndex {
            func word(_ at: Int) -> UInt32 {
                UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3])
                    << 24
            }
            let descriptor = Int32(bitPattern: word(offset))
            let mask = word(offset + 4)
            let length = Int(word(offset + 12))
            let nameBytes = bytes[(offset + 16)..<min(bytes.endIndex, offset + 16 + length)]
            let name = String(pathBytes: nameBytes.prefix(while: { $0 != 0 }))
            offset += 16 + length

            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                overflowed = true
                continue
            }
            guard let folder = folders[descriptor] else { continue }
            if mask & UInt32(IN_MOVE_SELF) != 0 {
                // Moved within the tree, the parent's IN_MOVED_TO (queued first) has already
                // renamed it here, and it is still found there. Moved out: no longer ours.
                var status = stat()
                if folder.withPathCString({ stat($0, &status) }) == 0, DirectoryID(status) == identities[descriptor] {
                    continue
                }
                event(.gone(path: folder))
                inotify_rm_watch(inotify, descriptor)
                folders[descriptor] = nil
                continue
            }
            if mask & UInt32(IN_DELETE_SELF) != 0 {
                event(.gone(path: folder))
                folders[descriptor] = nil
                continue
            }
            if mask & UInt32(IN_IGNORED) != 0 {
                folders[descriptor] = nil
                continue
            }
            guard !name.isEmpty else { continue }
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            if mask & UInt32(IN_ISDIR) != 0 {
                // A new folder, made here or moved in: watch it, and take the files already in
                // it, which came before its watch did.
                if mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0,
                    !walk.options.exclude.contains(where: { LibraryWalk.matches($0, path) })
                {
                    for file in addWatches(path, inotify: inotify, event: event) {
                        touch(file, complete: true, settle: settle, walked: false)
                    }
                }
                continue
            }
            guard walk.accepts(path, explicitly: false) else { continue }
            if mask & (UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO)) != 0 {
                touch(path, complete: true, settle: settle)
            } else if mask & (UInt32(IN_CREATE) | UInt32(IN_MODIFY)) != 0 {
                // Being written: not audited before the writer closes it.
                touch(path, complete: false, settle: settle)
            }
        }
    }

    func nextDeadline() -> Double? {
        pending.values.filter(\.complete).map(\.deadline).min()
    }

    /// The complete files whose quiet time is over, in path order.
    mutating func takeDue() -> [(path: String, walked: Bool)] {
        let now = MonotonicClock.now
        let due = pending.filter { $0.value.complete && $0.value.deadline <= now }.map { ($0.key, $0.value.walked) }
            .sorted { $0.0 < $1.0 }
        for (path, _) in due { pending[path] = nil }
        return due
    }
}

extension Watcher {
    /// Runs `--exec`'s hook for each finding of `record` at or above `failOn`, with `$1` the file,
    /// `$2` its suggested fix (empty when none), `$3` the finding's code, `$4` its action. Returns
    /// why each run that could not start did not.
    public static func runHooks(_ command: String, for record: AuditRecord, failOn: Severity) -> [String] {
        record.findings.filter { $0.severity >= failOn }.compactMap { finding in
            runHook(
                command,
                arguments: [
                    record.path, MediaReport.fixCommand(finding, path: record.path) ?? "", finding.code,
                    finding.action ?? "",
                ])
        }
    }

    /// Runs watch mode's `--exec` hook, `/bin/sh -c command sh arguments…`, and waits for it; its
    /// output goes where ours goes, its exit status is its own. `arguments` are paths, handed
    /// over as their bytes. Returns why it could not start.
    public static func runHook(_ command: String, arguments: [String]) -> String? {
        // The paths as their bytes (`withPathCString`), not as their display form: a name that is
        // not UTF-8 reaches the hook as the name on the disk.
        let words: [String] = ["/bin/sh", "-c", command, "sh"]
        let shell: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
        let paths: [UnsafeMutablePointer<CChar>?] = arguments.map { argument in
            argument.withPathCString { strdup($0) }
        }
        var cArguments = shell + paths + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/bin/sh", nil, nil, &cArguments, environ)
        guard status == 0 else { return System.reason(status) }
        var exit: Int32 = 0
        // Absent is fine: the hook's exit status is not ours; it is only waited for.
        _ = try? System.call { waitpid(pid, &exit, 0) }
        return nil
    }
}
