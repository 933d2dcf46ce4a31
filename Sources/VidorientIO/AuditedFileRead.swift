public import VidorientCore

extension AuditedFile {
    /// The identity of the file `path` names itself: a symbolic link is refused, not followed
    /// (`O_NOFOLLOW`), as the audit's walk does not follow it; so is anything but a regular file.
    public init(path: String) throws(VidorientError) {
        let descriptor: Int32
        do throws(VidorientError) {
            descriptor = try System.call {
                path.withPathCString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
            }
        } catch {
            if error.code == ELOOP { throw .io("it is a symbolic link (links are not followed)", code: ELOOP) }
            throw error
        }
        defer { close(descriptor) }
        let status = try System.status(descriptor)
        guard status.st_mode & S_IFMT == S_IFREG else { throw .io("not a regular file") }
        let head = try System.read(descriptor, count: min(AuditedFile.headSize, Int(max(0, status.st_size))), at: 0)
        self.init(
            inode: UInt64(status.st_ino), size: Int64(status.st_size),
            mtimeNanoseconds: nanoseconds(status.st_mtim),
            head: head)
    }
}
