public import VidorientCore
public import VidorientISOBMFF

extension MatrixFix {
    /// The plan's bytes as splices against the file it was planned on: each matrix that changes,
    /// its 36 old bytes and its 36 new ones.
    public var fileEdit: FileEdit {
        let splices = patches.map { ByteSplice(offset: $0.before.offset, old: $0.before.bytes, new: $0.after.bytes) }
        // Matrices are 36 bytes apart at least and never overlap: a plan always makes a valid edit.
        return (try? FileEdit(splices)) ?? .none
    }
}
