#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
public import VidorientCore

/// Writes a `FileEdit` to a file: in place when it keeps the length and the caller asks, else
/// a copy in the same folder with the splices applied, flushed and renamed over the file.
/// (Undo's writer until the fix writer that takes any `FileEdit` lands; then that one is used.)
public enum EditWriter {
    public static func write(path: String, edit: FileEdit, inPlace: Bool) throws(FixError) {
        let file: (descriptor: Int32, size: Int64)
        do { file = try RegularFile.open(path, writable: inPlace) } catch { throw FixError(error.reason) }
        defer { close(file.descriptor) }
        if inPlace && edit.keepsLength {
            for splice in edit.splices {
                var old = [UInt8](repeating: 0, count: splice.old.count)
                try read(file.descriptor, into: &old, at: splice.offset)
                guard old == splice.old else { throw FixError("the file changed while it was being written; it was left as it is") }
            }
            for splice in edit.splices { try writeAll(file.descriptor, splice.new, at: splice.offset) }
            guard fsync(file.descriptor) == 0 else { throw FixError("could not flush the file: \(errnoReason())") }
            return
        }
        var status = stat()
        guard fstat(file.descriptor, &status) == 0 else { throw FixError(errnoReason()) }
        let slash = path.pathBytes.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { String(pathBytes: path.pathBytes[..<$0]) } ?? "."
        let name = slash.map { String(pathBytes: path.pathBytes[($0 + 1)...]) } ?? path
        let temporary = (folder.isEmpty ? "" : folder) + "/." + name + ".vidorient-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).partial"
        let output = temporary.withPathCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard output >= 0 else { throw FixError("cannot create a temporary file in '\(folder)': \(errnoReason())") }
        var renamed = false
        defer {
            close(output)
            if !renamed { _ = temporary.withPathCString { unlink($0) } }
        }
        var position: Int64 = 0, written: Int64 = 0
        func copy(upTo end: Int64) throws(FixError) {
            while position < end {
                let count = Int(min(end - position, 1 << 20))
                var chunk = [UInt8](repeating: 0, count: count)
                try read(file.descriptor, into: &chunk, at: position)
                try writeAll(output, chunk, at: written)
                position += Int64(count)
                written += Int64(count)
            }
        }
        for splice in edit.splices {
            try copy(upTo: splice.offset)
            var old = [UInt8](repeating: 0, count: splice.old.count)
            try read(file.descriptor, into: &old, at: position)
            guard old == splice.old else { throw FixError("the file changed while it was being written; it was left as it is") }
            position += Int64(old.count)
            try writeAll(output, splice.new, at: written)
            written += Int64(splice.new.count)
        }
        try copy(upTo: file.size)
        guard fchmod(output, status.st_mode & 0o7777) == 0 else { throw FixError(errnoReason()) }
        if geteuid() == 0 { _ = fchown(output, status.st_uid, status.st_gid) }
        guard fsync(output) == 0 else { throw FixError("could not flush the copy: \(errnoReason())") }
        guard temporary.withPathCString({ from in path.withPathCString { rename(from, $0) } }) == 0 else {
            throw FixError("could not rename the copy into place: \(errnoReason())")
        }
        renamed = true
        let directory = folder.withPathCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    private static func read(_ descriptor: Int32, into bytes: inout [UInt8], at offset: Int64) throws(FixError) {
        var done = 0
        while done < bytes.count {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(offset) + off_t(done)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw FixError(got == 0 ? "the file ended while it was being read" : errnoReason()) }
            done += got
        }
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], at offset: Int64) throws(FixError) {
        var done = 0
        while done < bytes.count {
            let result = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
            if result < 0 {
                if errno == EINTR { continue }
                throw FixError("could not write: \(errnoReason())")
            }
            done += result
        }
    }

    private static func errnoReason() -> String { String(cString: strerror(errno)).lowercased() }
}
