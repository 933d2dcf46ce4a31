import FoundationEssentials
import Synchronization
public import VidorientCore
import VidorientIO

/// One line of a fix journal (docs/fix.md lists every key). A fix writes two lines: `writing`
/// before the file is touched (flushed first, so that a fix killed at any moment is on record),
/// then `written` once the file is written and read back, or `not_written` when the write was
/// refused or failed. Every line is whole: path, both states, orientations, and the splices.
public struct JournalEntry: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable, Codable {
        case writing, written
        case notWritten = "not_written"
    }

    /// Bumped when a key changes meaning or disappears.
    public static let schemaVersion = 1

    public var status: Status
    /// The same for a fix's `writing` and its `written` or `not_written` line; unique in a journal.
    public var id: String
    public var path: String
    /// The file the fix wrote: `path` with symbolic links resolved, at fix time. Undo writes only
    /// where `path` still leads to it (nil in journals written before it was recorded).
    public var target: String?
    /// `MediaFormat`'s name for the file: `jpeg`, `movie`, …
    public var format: String
    /// `in_place` or `replace`: how the fix was written, and how undo writes it back.
    public var mode: String
    /// EXIF orientations (1-8) shown before and after; nil when not one of the eight.
    public var orientationBefore: Int?
    public var orientationAfter: Int?
    public var before: FileState
    /// The size and checksum the fix makes (known before it writes, from the edit); the mtime
    /// once written.
    public var after: FileState
    public var edit: FileEdit
    /// `normalize`, which writes a whole new file: where the journal keeps a copy of the file as
    /// it was (`JournalFile.originalsFolder`), which undo writes back; `edit` is then empty. Nil
    /// for a fix, whose splices hold what it changed.
    public var original: String?
    /// For `not_written`: why.
    public var reason: String?

    public init(
        status: Status, id: String, path: String, target: String? = nil, format: String, mode: String,
        orientationBefore: Int?, orientationAfter: Int?, before: FileState, after: FileState, edit: FileEdit,
        original: String? = nil, reason: String? = nil
    ) {
        self.status = status
        self.id = id
        self.path = path
        self.target = target
        self.format = format
        self.mode = mode
        self.orientationBefore = orientationBefore
        self.orientationAfter = orientationAfter
        self.before = before
        self.after = after
        self.edit = edit
        self.original = original
        self.reason = reason
    }
}

extension JournalEntry: Codable {
    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", status, id, path, target, format, mode
        case orientationBefore = "orientation_before", orientationAfter = "orientation_after", before, after, splices
        case original, reason
    }

    enum StateKeys: String, CodingKey { case size, mtimeNanoseconds = "mtime_ns", crc32 }
    enum SpliceKeys: String, CodingKey { case offset, old, new }

    // Hand-written: checks `schema_version`, reads `path_bytes`, hex splices and crc32 into the edit and states.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decode(Int.self, forKey: .schemaVersion)
        guard version == JournalEntry.schemaVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .schemaVersion, in: c,
                debugDescription: "journal schema \(version) is not \(JournalEntry.schemaVersion)")
        }
        status = try c.decode(Status.self, forKey: .status)
        id = try c.decode(String.self, forKey: .id)
        path = try decoder.decodePath(forKey: CodingKeys.path)
        target = try decoder.decodePathIfPresent(forKey: CodingKeys.target)
        format = try c.decode(String.self, forKey: .format)
        mode = try c.decode(String.self, forKey: .mode)
        orientationBefore = try c.decodeIfPresent(Int.self, forKey: .orientationBefore)
        orientationAfter = try c.decodeIfPresent(Int.self, forKey: .orientationAfter)
        before = try JournalEntry.decodeState(c, .before)
        after = try JournalEntry.decodeState(c, .after)
        var splices: [ByteSplice] = []
        var list = try c.nestedUnkeyedContainer(forKey: .splices)
        while !list.isAtEnd {
            let s = try list.nestedContainer(keyedBy: SpliceKeys.self)
            guard let old = JournalEntry.bytes(hex: try s.decode(String.self, forKey: .old)),
                let new = JournalEntry.bytes(hex: try s.decode(String.self, forKey: .new))
            else {
                throw DecodingError.dataCorruptedError(
                    forKey: .old, in: s, debugDescription: "a splice's bytes are not hex")
            }
            splices.append(ByteSplice(offset: try s.decode(Int64.self, forKey: .offset), old: old, new: new))
        }
        do { edit = try FileEdit(splices) } catch {
            throw DecodingError.dataCorruptedError(forKey: .splices, in: c, debugDescription: error.reason)
        }
        // Absent in journals written before normalize kept one.
        original = try decoder.decodePathIfPresent(forKey: CodingKeys.original)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
    }

    private static func decodeState(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> FileState {
        let s = try c.nestedContainer(keyedBy: StateKeys.self, forKey: key)
        let text = try s.decode(String.self, forKey: .crc32)
        guard text.count == 8, let crc = UInt32(text, radix: 16) else {
            throw DecodingError.dataCorruptedError(forKey: .crc32, in: s, debugDescription: "crc32 is not 8 hex digits")
        }
        return FileState(
            size: try s.decode(Int64.self, forKey: .size),
            mtimeNanoseconds: try s.decodeIfPresent(Int64.self, forKey: .mtimeNanoseconds),
            crc32: crc)
    }

    // Hand-written for computed keys (`schema_version`, `path_bytes`) and a different shape (states, hex splices).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(JournalEntry.schemaVersion, forKey: .schemaVersion)
        try c.encode(status, forKey: .status)
        try c.encode(id, forKey: .id)
        try c.encodePath(path, forKey: .path)
        try c.encodePath(target, forKey: .target)
        try c.encode(format, forKey: .format)
        try c.encode(mode, forKey: .mode)
        try c.encode(orientationBefore, forKey: .orientationBefore)
        try c.encode(orientationAfter, forKey: .orientationAfter)
        for (key, state) in [(CodingKeys.before, before), (.after, after)] {
            var s = c.nestedContainer(keyedBy: StateKeys.self, forKey: key)
            try s.encode(state.size, forKey: .size)
            try s.encode(state.mtimeNanoseconds, forKey: .mtimeNanoseconds)
            try s.encode(state.crc32Hex, forKey: .crc32)
        }
        var list = c.nestedUnkeyedContainer(forKey: .splices)
        for splice in edit.splices {
            var s = list.nestedContainer(keyedBy: SpliceKeys.self)
            try s.encode(splice.offset, forKey: .offset)
            try s.encode(JournalEntry.hex(splice.old), forKey: .old)
            try s.encode(JournalEntry.hex(splice.new), forKey: .new)
        }
        try c.encodePath(original, forKey: .original)
        try c.encode(reason, forKey: .reason)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}

/// A journal being written: appended to (never truncated), one whole line per `write(2)`, each
/// flushed to the disk before `append` returns, so a batch killed at any moment leaves every
/// line it reported, and at worst a last line cut short, which reading skips. Shared by a
/// batch's workers; owns its descriptor.
public final class JournalFile: Sendable {
    public let path: String
    private let descriptor: Int32
    private let lock = Mutex(())
    private let encoder = JSONText(pretty: false)

    /// Opens `path` for appending, making it when missing. Something there that is not a regular
    /// file (a folder, a FIFO, a device) is refused, never written into.
    public init(path: String) throws(VidorientError) {
        self.path = path
        var status = stat()
        if path.withPathCString({ stat($0, &status) }) == 0 && (status.st_mode & S_IFMT) != S_IFREG {
            throw .io("could not write the journal '\(path)': not a regular file")
        }
        // O_NONBLOCK: a FIFO put there since the check must not hang the open.
        let opened: Int32
        do throws(VidorientError) {
            opened = try System.call {
                path.withPathCString { open($0, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o644) }
            }
        } catch { throw error.context("could not write the journal '\(path)'") }
        guard fstat(opened, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(opened)
            throw .io("could not write the journal '\(path)': not a regular file")
        }
        // Appends to a regular file never wait; blocking mode keeps the writes whole.
        _ = fcntl(opened, F_SETFL, fcntl(opened, F_GETFL) & ~O_NONBLOCK)
        descriptor = opened
    }

    deinit { close(descriptor) }

    /// Writes the entry as one line and flushes it to the disk.
    public func append(_ entry: JournalEntry) throws(VidorientError) {
        let line: [UInt8]
        do { line = Array((try encoder.encode(entry) + "\n").utf8) } catch {
            throw .malformed("could not write the journal '\(path)': \(error)")
        }
        // One write per line, under the lock: lines of parallel fixes never interleave.
        let written = lock.withLock { _ in
            Result { () throws(VidorientError) in
                try System.write(descriptor, line, at: nil)
                try System.call { fdatasync(descriptor) }
            }
        }
        do { try written.get() } catch { throw error.context("could not write the journal '\(path)'") }
    }

    /// A fresh id for one fix: this process, the time, and a count.
    public func nextID() -> String {
        let count = counter.add(1, ordering: .relaxed).oldValue
        return "\(getpid())-\(JournalFile.startTime)-\(count)"
    }

    private let counter = Atomic<Int>(1)
    private static let startTime: Int = {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int(time.tv_sec) * 1000 + Int(time.tv_nsec / 1_000_000)
    }()

    /// Every entry of a journal, in the order written. A last line cut short (a killed write) is
    /// skipped, and said so in `warnings`; any other line that is not an entry is an error.
    public static func read(path: String) throws(VidorientError) -> (entries: [JournalEntry], warnings: [String]) {
        let file: (descriptor: Int32, size: Int64)
        do { file = try RegularFile.open(path) } catch { throw error.context("could not read the journal '\(path)'") }
        defer { close(file.descriptor) }
        var bytes = [UInt8](repeating: 0, count: Int(file.size))
        let done: Int
        do throws(VidorientError) {
            done = try bytes.withUnsafeMutableBytes { raw in
                Result { () throws(VidorientError) in try System.read(file.descriptor, into: raw, at: 0) }
            }.get()
        } catch { throw error.context("could not read the journal '\(path)'") }
        // A journal shorter than its size said was cut while it was read: its lines so far are whole.
        bytes.removeSubrange(done...)
        var entries: [JournalEntry] = []
        var warnings: [String] = []
        let decoder = JSONDecoder()
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() where !line.isEmpty {
            do {
                entries.append(try decoder.decode(JournalEntry.self, from: Data(line)))
            } catch {
                if index == lines.count - 1 {
                    warnings.append(
                        "the journal '\(path)' ends in a line cut short (a fix killed while writing it); skipped")
                    continue
                }
                throw .malformed(
                    "could not read the journal '\(path)': line \(index + 1) is not a journal entry (\((error as? DecodingError)?.summary ?? "\(error)"))"
                )
            }
        }
        return (entries, warnings)
    }
}
