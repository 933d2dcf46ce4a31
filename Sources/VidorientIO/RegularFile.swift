#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Opening a file that must be a regular file, without ever blocking: a FIFO, a terminal or a
/// device named as an input would otherwise hang `open` or the first `read` (a FIFO with no
/// writer blocks forever, beyond any timeout). Every reader of a path opens it here.
public enum RegularFile {
    /// Why a path could not be opened, as one lowercase phrase (`not a regular file`, `is a
    /// directory`, or the system's reason).
    public struct OpenError: Error, Sendable, Hashable, CustomStringConvertible {
        public let reason: String
        /// The errno behind it, when the system refused (ENOENT, EACCES, …); 0 otherwise.
        public let code: Int32

        public init(reason: String, code: Int32 = 0) {
            self.reason = reason
            self.code = code
        }

        public var description: String { reason }
    }

    /// A descriptor for reading (or reading and writing) the regular file at `path`, in
    /// blocking mode once it is known to be one. The type is checked on the descriptor, so a
    /// path swapped for a FIFO between a `stat` and the `open` is refused too.
    /// - Returns: the descriptor and the file's size when opened; the caller closes it.
    public static func open(_ path: String, writable: Bool = false) throws(OpenError) -> (
        descriptor: Int32, size: Int64
    ) {
        let flags = (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        let descriptor = path.withPathCString { systemOpen($0, flags) }
        guard descriptor >= 0 else { throw reason(errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let error = reason(errno)
            close(descriptor)
            throw error
        }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else {
            close(descriptor)
            throw OpenError(reason: type == S_IFDIR ? "is a directory" : "not a regular file")
        }
        // Reads of a regular file never block anyway; clearing the flag keeps later code simple.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return (descriptor, Int64(status.st_size))
    }

    static func reason(_ code: Int32) -> OpenError {
        // A directory opened for writing says EISDIR: the same words as the read-only case.
        if code == EISDIR { return OpenError(reason: "is a directory", code: code) }
        return OpenError(reason: String(cString: strerror(code)).lowercased(), code: code)
    }
}

/// The C `open`, which `RegularFile.open` hides by its name.
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 { open(path, flags) }
