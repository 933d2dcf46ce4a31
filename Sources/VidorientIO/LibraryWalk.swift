import Synchronization
public import VidorientCore

/// Which files count as media when a directory is walked.
public enum MediaPaths {
    /// Extensions of the videos and photos vidorient reads, lowercase.
    public static let mediaExtensions: Set<String> = [
        "mp4", "m4v", "mov", "qt", "3gp", "3g2", "mkv", "webm", "avi", "mts", "m2ts", "ts", "mpg", "mpeg", "wmv",
        "flv", "jpg", "jpeg", "jpe", "png", "heic", "heif", "hif", "avif", "webp", "tif", "tiff", "bmp", "gif",
        // Canon's video thumbnails (JPEG) and JPEG's other names.
        "thm", "jfif", "jif",
        // TIFF-based raws, read for their orientation tag and embedded previews.
        "dng", "gpr", "cr2", "nef", "nrw", "arw", "sr2", "srf", "srw", "orf", "ori", "pef", "rw2", "rwl", "kdc",
        "dcr", "k25", "3fr", "fff", "erf", "mef", "mos", "iiq",
        // Raws with containers of their own (RawContainerReader), and Sigma's X3F (through FFmpeg).
        "raf", "cr3", "crw", "mrw", "x3f",
        // Not read, but counted and named as unsupported (`MediaFormat.unsupportedReason`)
        // rather than passed over in silence.
        "jxl",
    ]

    public static func isMedia(_ path: String) -> Bool {
        // On the UTF-8 bytes: asked of every file a walk lists, and characters cost more.
        let bytes = path.utf8
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")),
            !bytes[dot...].contains(UInt8(ascii: "/"))
        else { return false }
        return mediaExtensions.contains(String(decoding: bytes[bytes.index(after: dot)...], as: UTF8.self).lowercased())
    }
}

/// Which files of a library to audit, and how to find them.
public struct WalkOptions: Sendable {
    /// Globs (fnmatch, `*` crossing `/`, letters in either case as `find -iname`) matched against
    /// the whole path and the file name; when any are given, a file must match one. Without them, files with a media extension.
    public var include: [String] = []
    /// Globs that drop a file, or prune a whole directory.
    public var exclude: [String] = []
    public var followSymlinks = false
    /// Only the files whose path hashes to this shard.
    public var shard: Shard?

    public init() {}
}

/// Part K of N of a library, by a hash of each path: N jobs with the same inputs split it
/// deterministically with nothing shared between them, and their results add up to the whole.
public struct Shard: Sendable, Hashable {
    public let index: Int
    public let count: Int

    /// `K/N` with 1 ≤ K ≤ N.
    public init?(_ text: String) {
        // Absent is fine: a failable init, the parse's reason is for `parse` callers.
        guard let shard = try? Shard.parse(text) else { return nil }
        self = shard
    }

    private init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// `K/N` with 1 ≤ K ≤ N, or the reason it is not.
    public static func parse(_ text: String) throws(ValueError) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let k = parts[0], let n = parts[1], n >= 1, (1...n).contains(k) else {
            throw ValueError("must be K/N with 1 <= K <= N")
        }
        return Shard(index: k, count: n)
    }

    public func contains(_ path: String) -> Bool {
        Int(Shard.hash(path) % UInt64(count)) == index - 1
    }

    /// FNV-1a of the path's bytes: stable across runs, machines and Swift versions, and the same
    /// for a name listed by the walk or read from a list.
    public static func hash(_ path: String) -> UInt64 { FNV1a(path.pathBytes).value }
}

/// Something the walk met that is not a file to audit but is worth telling.
public struct WalkNote: Sendable, Hashable {
    public enum Kind: String, Sendable {
        /// A directory that could not be opened.
        case unreadableDirectory = "unreadable-directory"
        /// A symbolic link to a directory already on the way down.
        case symlinkLoop = "symlink-loop"
        /// A symbolic link left alone because links are not followed.
        case symlinkSkipped = "symlink-skipped"
        /// A path given that does not exist.
        case missing
        /// A list of paths (`--files-from`) not read to its end: a line too long, a read that failed.
        case unreadableList = "unreadable-list"
    }

    public let kind: Kind
    public let path: String
    public let reason: String

    /// The line a command says on stderr: what was passed over, and why.
    public var message: String {
        kind == .unreadableList
            ? "could not read the list \(path == "-" ? "on standard input" : "'\(path)'") to its end: \(reason)"
            : "skipped '\(path)': \(reason)"
    }
}

/// Walks paths depth-first in sorted order, calling `file` for each file to audit. Memory is
/// bounded by the depth of the tree and the size of one directory, not by the library.
///
/// The walk is made of steps that threads can share (the audit's workers list folders side by
/// side): `start` turns the roots into entries, `list` one folder into entries, in name order.
public struct LibraryWalk: Sendable {
    public let options: WalkOptions

    public init(options: WalkOptions) {
        self.options = options
    }

    /// A folder still to be listed, with the folders above it (a link back up would loop).
    package struct Folder: Sendable {
        package let path: String
        let ancestors: [DirectoryID]
    }

    /// What a step of the walk found, in name order.
    package enum Entry: Sendable {
        /// A file to audit, with what the walk's `lstat` (or, for a link followed, its `stat`)
        /// said; nil when the folder's own listing said it is a regular file and nothing was asked
        /// (`key(ofWalked:note:)` asks, on the thread that audits it).
        case file(String, FileKey?)
        case folder(Folder)
    }

    /// The files a per-file command (`inspect`, `thumbnail`) is given: each file as given, each
    /// directory walked for media as `audit` walks it. A missing or unreadable file stays in the
    /// list, for the command to report in its place.
    public static func expand(_ inputs: [String]) -> (files: [String], notes: [WalkNote]) {
        var files: [String] = []
        var notes: [WalkNote] = []
        let walk = LibraryWalk(options: WalkOptions())
        for input in inputs {
            var status = stat()
            if input.withPathCString({ stat($0, &status) }) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
                let found = walk.files([input])
                files += found.files
                notes += found.notes
            } else {
                files.append(input)
            }
        }
        return (files, notes)
    }

    /// Every file the walk finds, in order, with what it passed over.
    public func files(_ roots: [String]) -> (files: [String], notes: [WalkNote]) {
        var files: [String] = []
        var notes: [WalkNote] = []
        walk(roots, file: { files.append($0) }, note: { notes.append($0) })
        return (files, notes)
    }

    /// The whole walk on this thread, depth-first in name order.
    public func walk(_ roots: [String], file: (String) -> Void, note: (WalkNote) -> Void) {
        for entry in start(roots, note: note) { visit(entry, file: file, note: note) }
    }

    private func visit(_ entry: Entry, file: (String) -> Void, note: (WalkNote) -> Void) {
        switch entry {
        case .file(let path, _): file(path)
        case .folder(let folder):
            for inner in list(folder, note: note) { visit(inner, file: file, note: note) }
        }
    }

    /// The roots as entries: a folder to list, or a file named explicitly (audited whatever its
    /// extension: the user chose it). Paths given by name are taken as meant, links included.
    package func start(_ roots: [String], note: (WalkNote) -> Void) -> [Entry] {
        var entries: [Entry] = []
        for root in roots {
            var status = stat()
            guard root.withPathCString({ lstat($0, &status) }) == 0 else {
                note(WalkNote(kind: .missing, path: root, reason: LibraryWalk.errnoReason()))
                continue
            }
            var target = status
            if (status.st_mode & S_IFMT) == S_IFLNK { _ = root.withPathCString({ stat($0, &target) }) }
            if (target.st_mode & S_IFMT) == S_IFDIR {
                entries.append(.folder(Folder(path: root, ancestors: [DirectoryID(target)])))
            } else if accepts(root, explicitly: true) {
                entries.append(.file(root, FileKey(target)))
            }
        }
        return entries
    }

    /// One folder's entries, in name order. A name the folder lists as a regular file is not
    /// asked about here (its key is taken where it is audited, so that the `lstat`s of a big
    /// folder spread over the threads); links, folders and names of unknown type are.
    package func list(_ folder: Folder, note: (WalkNote) -> Void) -> [Entry] {
        list(folder, keepingOpen: false, note: note).entries
    }

    /// `list`, the folder kept open for its files' keys (`key(ofWalked:in:note:)`), when fewer than
    /// `OpenFolder.limit` are open.
    package func listKeepingOpen(_ folder: Folder, note: (WalkNote) -> Void) -> (entries: [Entry], open: OpenFolder?) {
        list(folder, keepingOpen: true, note: note)
    }

    private func list(
        _ folder: Folder, keepingOpen: Bool, note: (WalkNote) -> Void
    ) -> (entries: [Entry], open: OpenFolder?) {
        guard let (names, open) = LibraryWalk.sortedEntries(in: folder.path, keepingOpen: keepingOpen) else {
            note(WalkNote(kind: .unreadableDirectory, path: folder.path, reason: LibraryWalk.errnoReason()))
            return ([], nil)
        }
        var entries: [Entry] = []
        entries.reserveCapacity(names.count)
        let directory = folder.path
        for (name, type) in names {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            if type == UInt8(DT_REG) {
                if accepts(path, explicitly: false) { entries.append(.file(path, nil)) }
                continue
            }
            var status = stat()
            guard path.withPathCString({ lstat($0, &status) }) == 0 else {
                // Gone since the directory was read, or unreadable: said, not dropped.
                note(WalkNote(kind: .missing, path: path, reason: LibraryWalk.errnoReason()))
                continue
            }
            var kind = status.st_mode & S_IFMT
            if kind == S_IFLNK {
                guard options.followSymlinks else {
                    note(WalkNote(kind: .symlinkSkipped, path: path, reason: "symbolic link not followed"))
                    continue
                }
                guard path.withPathCString({ stat($0, &status) }) == 0 else {
                    note(WalkNote(kind: .missing, path: path, reason: "dangling symbolic link"))
                    continue
                }
                kind = status.st_mode & S_IFMT
            }
            if kind == S_IFDIR {
                if excluded(path) { continue }
                let id = DirectoryID(status)
                // A link back up the tree would walk forever.
                if folder.ancestors.contains(id) {
                    note(
                        WalkNote(kind: .symlinkLoop, path: path, reason: "symbolic link loops back to a parent folder"))
                    continue
                }
                entries.append(.folder(Folder(path: path, ancestors: folder.ancestors + [id])))
            } else if kind == S_IFREG, accepts(path, explicitly: false) {
                entries.append(.file(path, FileKey(status)))
            }
        }
        return (entries, open)
    }

    /// The key of a file `list` handed over without one: its `lstat`, asked by the thread that
    /// audits it. Nil when it is gone (said, as the walk says it) or is no longer a regular file.
    /// `folder`: the folder `list` found it in, still open: the `lstat` is then of the name in it
    /// (`fstatat`), and the kernel does not walk the whole path again for every file.
    package func key(ofWalked path: String, in folder: OpenFolder? = nil, note: (WalkNote) -> Void) -> FileKey? {
        var status = stat()
        let asked = path.withPathCString { path in
            guard let folder, let slash = strrchr(path, Int32(UInt8(ascii: "/"))) else { return lstat(path, &status) }
            return fstatat(folder.descriptor, slash + 1, &status, AT_SYMLINK_NOFOLLOW)
        }
        guard asked == 0 else {
            note(WalkNote(kind: .missing, path: path, reason: LibraryWalk.errnoReason()))
            return nil
        }
        return status.st_mode & S_IFMT == S_IFREG ? FileKey(status) : nil
    }

    /// Walks a list of paths (from `--files-from`): each is a file to audit, as given.
    public func filter(_ path: String) -> Bool { accepts(path, explicitly: true) }

    package func accepts(_ path: String, explicitly: Bool) -> Bool {
        if excluded(path) { return false }
        if let shard = options.shard, !shard.contains(path) { return false }
        if !options.include.isEmpty { return options.include.contains { LibraryWalk.matches($0, path) } }
        return explicitly || MediaPaths.isMedia(path)
    }

    private func excluded(_ path: String) -> Bool {
        options.exclude.contains { LibraryWalk.matches($0, path) }
    }

    /// The glob (`Glob`, letters in either case as `find -iname`: `*.heic` finds `IMG_0001.HEIC`,
    /// as the media extensions are matched) against the whole path and against the last component.
    package static func matches(_ pattern: String, _ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return Glob.matches(pattern, path) || Glob.matches(pattern, name)
    }

    package static func errnoReason() -> String { System.reason() }
}

/// A directory's identity, to notice a link that leads back up the tree.
package struct DirectoryID: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    package init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}

/// Paths from a file or standard input, one a line (or NUL-separated), read as they come so a
/// pipeline can feed millions without holding them. Each is bytes, decoded losslessly.
///
/// Bounded against hostile input: a line longer than `longestLine` is skipped and counted
/// (`overlongLines`), never held whole, and the search for a line's end never rescans what it
/// has seen (a huge line once cost time quadratic in its length). A folder is refused when it
/// is opened (reading one gave an empty list, and exit 0); a read that fails ends the list and
/// says why (`failure`); `problems` says both in words.
///
/// A class: it owns its descriptor (closed when the list ends or is let go), and whoever reads
/// `problems` after the paths sees the one list that was read, never a copy of it.
public final class PathList: IteratorProtocol {
    /// 64 MiB: far above any path or audit record, far below what would exhaust memory.
    public static let longestLine = 64 << 20

    private let descriptor: Int32
    private let separator: UInt8
    private var buffer: [UInt8] = []
    private var position = 0
    /// Where the search for the next separator goes on from: everything before is not one.
    private var searched = 0
    /// Skipping the rest of an overlong line, up to its separator.
    private var skipping = false
    private var ended = false
    /// Lines skipped for being longer than `longestLine`.
    public private(set) var overlongLines = 0
    /// Why reading stopped early, when it did.
    public private(set) var failure: String?
    /// The list's path as given, `-` for standard input.
    public let path: String
    /// The list as named in messages: `'path'`, or standard input.
    public var name: String { path == "-" ? "standard input" : "'\(path)'" }

    /// What could not be read, in words, once the list has ended: lines too long to hold, a read
    /// that failed. Empty when every line was read.
    public var problems: [String] {
        var problems: [String] = []
        if overlongLines > 0 {
            problems.append("\(overlongLines) line(s) longer than \(PathList.longestLine >> 20) MiB skipped")
        }
        if let failure { problems.append(failure) }
        return problems
    }

    /// `problems`, as the audit reports them beside the walk's own notes.
    public var notes: [WalkNote] { problems.map { WalkNote(kind: .unreadableList, path: path, reason: $0) } }

    /// - Parameters:
    ///   - path: a file, or `-` for standard input.
    ///   - nulSeparated: split on NUL (`find -print0`) instead of newlines.
    public init(path: String, nulSeparated: Bool) throws(InputError) {
        self.path = path
        if path == "-" {
            descriptor = STDIN_FILENO
        } else {
            descriptor = path.withPathCString { open($0, O_RDONLY | O_CLOEXEC) }
            guard descriptor >= 0 else { throw InputError(path: path, reason: LibraryWalk.errnoReason()) }
            var status = stat()
            if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                close(descriptor)
                throw InputError(path: path, reason: "is a directory, not a file of lines")
            }
        }
        separator = nulSeparated ? 0 : UInt8(ascii: "\n")
    }

    deinit {
        if !ended && descriptor != STDIN_FILENO { close(descriptor) }
    }

    public func next() -> String? {
        while true {
            if let end = buffer[max(position, searched)...].firstIndex(of: separator) {
                defer {
                    position = end + 1
                    searched = position
                }
                if skipping {
                    skipping = false
                    continue
                }
                var line = buffer[position..<end]
                if separator != 0, line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                return String(pathBytes: line)
            }
            searched = buffer.count
            if ended {
                guard position < buffer.count, !skipping else { return nil }
                defer { position = buffer.count }
                return String(pathBytes: buffer[position...])
            }
            if skipping || buffer.count - position > PathList.longestLine {
                // Never held whole: what is read of an overlong line is dropped as it comes.
                if !skipping { overlongLines += 1 }
                skipping = true
                position = buffer.count
            }
            buffer.removeFirst(position)
            searched -= position
            position = 0
            var chunk = [UInt8](repeating: 0, count: 65536)
            let attempt = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(VidorientError) in
                    try System.call { read(descriptor, buffer.baseAddress, buffer.count) }
                }
            }
            var count = 0
            switch attempt {
            case .success(let got): count = got
            case .failure(let error): failure = "reading stopped: \(error.reason)"
            }
            if count == 0 {
                ended = true
                if descriptor != STDIN_FILENO { close(descriptor) }
            } else {
                buffer += chunk.prefix(count)
            }
        }
    }
}

extension LibraryWalk {
    /// The names in `directory` but `.` and `..`, sorted (so that a walk is reproducible); nil when
    /// it cannot be opened (errno says why). Names are bytes and need not be UTF-8: decoded
    /// losslessly (PathBytes.swift), so every file is listed and opens again from its String.
    package static func sortedNames(in directory: String) -> [String]? {
        sortedEntries(in: directory)?.map(\.name)
    }

    /// The same names with the type the folder gives each (`d_type`: `DT_REG`, `DT_DIR`, …, or
    /// `DT_UNKNOWN` where the file system does not say), sorted by name.
    package static func sortedEntries(in directory: String) -> [(name: String, type: UInt8)]? {
        sortedEntries(in: directory, keepingOpen: false)?.entries
    }

    /// The same, and the folder kept open (`OpenFolder`) when asked and fewer than the limit are.
    package static func sortedEntries(
        in directory: String, keepingOpen: Bool
    ) -> (entries: [(name: String, type: UInt8)], open: OpenFolder?)? {
        guard let handle = directory.withPathCString({ opendir($0) }) else { return nil }
        defer { closedir(handle) }
        var entries: [(name: String, type: UInt8)] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                let bytes = UnsafeRawBufferPointer(rebasing: raw.prefix(while: { $0 != 0 }))
                // Most names are ASCII, which is its own decoding (and holds no escaped byte).
                return bytes.allSatisfy({ $0 < 0x80 })
                    ? String(decoding: bytes, as: UTF8.self) : String(pathBytes: bytes)
            }
            if name != "." && name != ".." { entries.append((name, entry.pointee.d_type)) }
        }
        return (entries.sorted { $0.name < $1.name }, keepingOpen ? OpenFolder(dirfd(handle)) : nil)
    }
}

/// A folder the walk listed, kept open while its files wait to be audited: each file's `lstat` is
/// taken in it (`fstatat` of the name), not through the whole path again (a twelfth of a warm
/// audit went to the kernel's walk of the same folders' names). Closed when the last of its files
/// lets go of it. At most `limit` are open at once (a deep tree keeps a folder open per level);
/// past that a folder's files are asked by their whole path.
package final class OpenFolder: Sendable {
    package let descriptor: Int32
    static let limit = 256
    private static let open = Atomic<Int>(0)

    /// A copy of `descriptor` (a listing's), or nil when `limit` are open or it cannot be copied.
    init?(_ descriptor: Int32) {
        guard OpenFolder.open.add(1, ordering: .relaxed).newValue <= OpenFolder.limit else {
            OpenFolder.open.subtract(1, ordering: .relaxed)
            return nil
        }
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else {
            OpenFolder.open.subtract(1, ordering: .relaxed)
            return nil
        }
        self.descriptor = copy
    }

    deinit {
        close(descriptor)
        OpenFolder.open.subtract(1, ordering: .relaxed)
    }
}
