public import VidorientCore

/// Opening a file that must be a regular file, without ever blocking: a FIFO, a terminal or a
/// device named as an input would otherwise hang `open` or the first `read` (a FIFO with no
/// writer blocks forever, beyond any timeout). Every reader of a path opens it here.
public enum RegularFile {
    /// A descriptor for reading (or reading and writing) the regular file at `path`, in
    /// blocking mode once it is known to be one. The type is checked on the descriptor, so a
    /// path swapped for a FIFO between a `stat` and the `open` is refused too. Refusals are
    /// `.io` errors: `not a regular file`, `is a directory`, or the system's reason with its code.
    /// - Returns: the descriptor and the file's size when opened; the caller closes it.
    public static func open(_ path: String, writable: Bool = false) throws(VidorientError) -> (
        descriptor: Int32, size: Int64
    ) {
        let flags = (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        let descriptor: Int32
        do throws(VidorientError) {
            descriptor = try System.call { path.withPathCString { systemOpen($0, flags) } }
        } catch {
            throw refusal(error.code)
        }
        let status: stat
        do throws(VidorientError) { status = try System.status(descriptor) } catch {
            close(descriptor)
            throw refusal(error.code)
        }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else {
            close(descriptor)
            throw .io(type == S_IFDIR ? "is a directory" : "not a regular file")
        }
        // Reads of a regular file never block anyway; clearing the flag keeps later code simple.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return (descriptor, Int64(status.st_size))
    }

    static func refusal(_ code: Int32) -> VidorientError {
        // A directory opened for writing says EISDIR: the same words as the read-only case.
        if code == EISDIR { return .io("is a directory", code: code) }
        return System.error(code: code)
    }
}

/// The C `open`, which `RegularFile.open` hides by its name.
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 { open(path, flags) }
