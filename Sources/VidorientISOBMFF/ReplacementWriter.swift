import VidorientCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes a whole new file in place of another (or beside it, with `-o`), with `fix`'s safety:
/// a temporary file in the destination's folder, permissions (and, as root, owner) kept, flushed,
/// checked by reading it back, renamed over, the folder flushed. Killed at any moment, the path
/// holds the whole old file or the whole new one. `normalize` uses it: a rotation rewrites
/// everything, so there is no in-place mode.
public enum ReplacementWriter {
    /// The original as it was read, for the checks before and while writing.
    public struct Original: Sendable {
        public let path: String
        let status: stat
        public var size: Int64 { Int64(status.st_size) }
    }

    /// Checks, before any work, that `path` may be replaced (or `output` written): the same
    /// refusals as `fix` (read-only file or folder, hard links, an output that is a directory,
    /// a device or the input itself).
    public static func check(path: String, output: String?) throws(ISOBMFFError) -> Original {
        let file = try FileBytes(path: path)
        let status = try file.status()
        if let output {
            try SafeWrite.checkOutput(output, input: status)
        } else {
            try SafeWrite.checkWritable(path, status)
            guard status.st_nlink <= 1 else {
                throw .unsupported("the file has \(status.st_nlink) hard links, which a replacement would split")
            }
            try SafeWrite.checkFolderWritable(of: SafeWrite.resolved(path))
        }
        return Original(path: path, status: status)
    }

    /// Writes `bytes` to a temporary file beside the destination (`output`, or the original's
    /// path), with the original's permissions and, with `preserveModificationTime`, its access
    /// and modification times; flushes; runs `verify` on it (nil: good; else the reason); then
    /// renames it into place, flushes the folder and runs `verify` on the result again. When
    /// replacing, a change of the original since `check` makes it give up, leaving the original.
    public static func write(
        _ bytes: [UInt8], replacing original: Original, output: String?, preserveModificationTime: Bool,
        lock: FileLock? = nil, verify: (String) -> String?
    ) throws(ISOBMFFError) {
        let replacing = output == nil
        let destination = SafeWrite.resolved(output ?? original.path)
        let (folder, temporary, descriptor) = try SafeWrite.createTemporary(for: destination)
        var renamed = false
        var descriptorOpen = true
        defer {
            if descriptorOpen { close(descriptor) }
            if !renamed { _ = temporary.withPathCString { unlink($0) } }
        }
        try SafeWrite.write(bytes, to: descriptor, at: 0)
        let status = original.status
        guard fchmod(descriptor, status.st_mode & 0o7777) == 0 else { throw ISOBMFFError(.io, SafeWrite.errnoReason()) }
        if geteuid() == 0 { _ = fchown(descriptor, status.st_uid, status.st_gid) }
        if preserveModificationTime {
            let times = [status.st_atim, status.st_mtim]
            guard futimens(descriptor, times) == 0 else {
                throw ISOBMFFError(.io, "could not keep the modification time: \(SafeWrite.errnoReason())")
            }
        }
        guard fsync(descriptor) == 0 else {
            throw ISOBMFFError(.io, "could not flush the copy: \(SafeWrite.errnoReason())")
        }
        if let lock { lock.adopt(descriptor) } else { close(descriptor) }
        descriptorOpen = false

        if let problem = verify(temporary) {
            throw ISOBMFFError(.io, "the written file does not read back as planned: \(problem)")
        }
        if replacing && !SafeWrite.isUnchanged(destination, since: status) {
            throw ISOBMFFError(.io, "the file changed while it was being normalized; it was left as it is")
        }
        try SafeWrite.moveIntoPlace(temporary, over: destination, folder: folder, what: "the new file")
        renamed = true
        if let problem = verify(destination) {
            throw ISOBMFFError(.io, "the file was written but does not read back as planned: \(problem)")
        }
    }

    /// The whole file at `path`, at most `limit` bytes.
    public static func readAll(_ path: String, limit: Int64) throws(ISOBMFFError) -> [UInt8] {
        let file = try FileBytes(path: path)
        guard file.size <= limit else {
            throw ISOBMFFError(.unsupported, "the file is \(file.size) bytes, more than the \(limit) read whole")
        }
        return try file.read(at: 0, count: Int(file.size))
    }
}
