public import VidorientCore

/// An exclusive advisory lock (`flock`) on the file a path names, held from `init` until the
/// lock is released by `deinit`. Every `fix` that writes takes it for the whole read, plan,
/// write and check, so that runs on one file take turns: without it, of eight `--in-place` runs
/// at once one could report "verified" while another, failing, rolled the file back under it.
///
/// The lock is on the file, not the name: a run that replaced the file (rename over it) leaves
/// the next one holding a lock on the old file, so after waiting, the lock is taken again
/// until the path still names the file locked. Programs that do not take the lock are not held
/// back by it (advisory); a change they make meanwhile is still caught by the check.
public final class FileLock {
    private var descriptor: Int32
    /// Locks taken on files that replace the locked one (see `adopt`).
    private var adopted: [Int32] = []

    public init(path: String) throws(VidorientError) {
        descriptor = -1
        // Bounded: each retry means another run replaced the file in the meantime.
        for _ in 0..<1000 {
            descriptor = try RegularFile.open(path).descriptor
            let locked: stat
            do throws(VidorientError) {
                try System.call("could not lock the file") { flock(descriptor, LOCK_EX) }
                locked = try System.status(descriptor)
            } catch {
                // `deinit` runs for a throwing `init` too: the descriptor is closed once, here.
                close(descriptor)
                descriptor = -1
                throw error
            }
            // The path names the locked file still (nil: it was removed, so take the lock again).
            if let named = System.status(path), locked.st_dev == named.st_dev, locked.st_ino == named.st_ino {
                return
            }
            close(descriptor)
            descriptor = -1
        }
        throw .io("could not lock the file: it keeps being replaced")
    }

    /// Locks `newFile`, an open descriptor of the file about to be renamed over the locked one,
    /// and keeps it until this lock ends: a run that starts after the rename then waits for this
    /// one's read-back, as one that started before it does. Takes ownership of the descriptor.
    package func adopt(_ newFile: Int32) {
        adopted.append(newFile)
        // Nobody else can know a temporary file yet, so the lock is taken at once; should it
        // fail, the run still holds the lock on the file it replaces, which guards the rename.
        _ = try? System.call { flock(newFile, LOCK_EX) }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        for file in adopted { close(file) }
    }
}
