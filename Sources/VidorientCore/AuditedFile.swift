/// What identifies a file as the audit read it, so that `fix --from-audit` can tell, later, that
/// the path still names that very file and not one put there since: its inode, size and
/// modification time, and a checksum of its first 4 KiB (where a photo's orientation tag is,
/// and what an in-place rewrite keeping the size and the time would still change). Cheap: one
/// `fstat` and one page read per file.
public struct AuditedFile: Sendable, Hashable, Codable {
    public var inode: UInt64
    public var size: Int64
    public var mtimeNanoseconds: Int64
    /// FNV-1a's 64-bit hash, taken over little-endian 64-bit words, of the first
    /// `AuditedFile.headSize` bytes (fewer for a smaller file), as sixteen lowercase hex digits.
    public var headChecksum: String

    /// The bytes the checksum covers.
    public static let headSize = 4096

    public init(inode: UInt64, size: Int64, mtimeNanoseconds: Int64, head: some Collection<UInt8>) {
        self.inode = inode
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        // Word-wise: an eighth of the steps of the byte-wise hash, for one page read per audited file.
        var hash = FNV1a()
        hash.addWords(Array(head.prefix(Self.headSize)))
        headChecksum = hash.hex
    }

    /// What differs in `now`, for a refusal: `size 120 (was 96), first 4 KiB`; nil when nothing does.
    public func differences(now: AuditedFile) -> String? {
        var changed: [String] = []
        if now.inode != inode { changed.append("inode \(now.inode) (was \(inode))") }
        if now.size != size { changed.append("size \(now.size) (was \(size))") }
        if now.mtimeNanoseconds != mtimeNanoseconds { changed.append("modification time") }
        if now.headChecksum != headChecksum { changed.append("its first 4 KiB") }
        return changed.isEmpty ? nil : changed.joined(separator: ", ")
    }

    enum CodingKeys: String, CodingKey {
        case inode, size, mtimeNanoseconds = "mtime_ns", headChecksum = "head_checksum"
    }
}
