import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientTestSupport

/// The one writer, on its own: every way a change reaches the disk, and every check on the way.
@Suite struct EditWriterTests {
    struct Refused: Error {}

    /// A file of `count` bytes 0, 1, 2… in a fresh folder.
    static func file(_ folder: TemporaryFolder, _ name: String = "f.bin", count: Int = 4096) throws -> String {
        let path = folder.path(name)
        try Data((0..<count).map { UInt8(truncatingIfNeeded: $0) }).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    static let edit = try! FileEdit([ByteSplice(offset: 100, old: [100, 101], new: [7, 7])])

    @Test(arguments: [FileWriteMode.inPlace, .replace])
    func anEditIsWrittenAndReadBack(mode: FileWriteMode) throws {
        let folder = try TemporaryFolder("writer")
        defer { folder.remove() }
        let path = try Self.file(folder)
        var checked: [String] = []
        let outcome = try EditWriter.write(Self.edit, path: path, mode: mode) { checked.append($0) }
        #expect(outcome.writtenPath == path)
        #expect(try Self.bytes(path)[98..<104] == [98, 99, 7, 7, 102, 103])
        // In place: one read-back; replaced: the copy, then the file under its name.
        #expect(checked.count == (mode == .inPlace ? 1 : 2))
        #expect(checked.last == path)
    }

    @Test func aFailedCheckInPlacePutsTheOldBytesBack() throws {
        let folder = try TemporaryFolder("writer")
        defer { folder.remove() }
        let path = try Self.file(folder)
        let before = try Self.bytes(path)
        #expect(throws: VidorientError.self) {
            try EditWriter.write(Self.edit, path: path, mode: .inPlace) { _ in throw Refused() }
        }
        #expect(try Self.bytes(path) == before)
    }

    /// The check fails, and then so does putting the old bytes back (every descriptor of the file
    /// now writes to /dev/full): the error says that the file may hold some of each. It used to be
    /// the check's reason alone, as if the file were the original again.
    @Test func aFailedRollbackIsSaid() throws {
        let folder = try TemporaryFolder("writer")
        defer { folder.remove() }
        let path = try Self.file(folder)
        let full = open("/dev/full", O_WRONLY)
        try #require(full >= 0)
        defer { close(full) }
        do {
            _ = try EditWriter.write(Self.edit, path: path, mode: .inPlace) { written in
                for descriptor in try Self.descriptors(of: written) { dup2(full, descriptor) }
                throw Refused()
            }
            Issue.record("the write succeeded")
        } catch {
            #expect(error.reason.contains("the old bytes could not be put back"), "\(error.reason)")
            #expect(error.reason.contains("some old and some new bytes"))
        }
    }

    /// This process's descriptors open on `path`.
    static func descriptors(of path: String) throws -> [Int32] {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { name in
            guard let descriptor = Int32(name),
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")
            else { return nil }  // the listing's own descriptor is gone once listed: not ours
            return target == resolved ? descriptor : nil
        }
    }

    @Test func aWholeNewFileReplacesTheOldOneWithItsPermissions() throws {
        let folder = try TemporaryFolder("writer")
        defer { folder.remove() }
        let path = try Self.file(folder)
        #expect(chmod(path, 0o640) == 0)
        let new: [UInt8] = Array(repeating: 9, count: 10)
        let outcome = try EditWriter.write(.contents([.bytes(new[...])]), path: path, mode: .replace) { _ in }
        #expect(outcome.bytesWritten == 10)
        #expect(try Self.bytes(path) == new)
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o7777 == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["f.bin"])
    }

    /// A new file in pieces: bytes from memory and runs of the original, copied by the kernel.
    @Test func piecesOfTheOriginalAreCopied() throws {
        let folder = try TemporaryFolder("writer")
        defer { folder.remove() }
        let path = try Self.file(folder)
        let out = folder.path("out.bin")
        let head: [UInt8] = [1, 2, 3]
        _ = try EditWriter.write(
            .contents([.bytes(head[...]), .original(4000..<4096), .original(0..<10)]), path: path,
            mode: .copy(to: out)
        ) { _ in }
        let original = try Self.bytes(path)
        #expect(try Self.bytes(out) == head + original[4000..<4096] + original[0..<10])
        #expect(throws: VidorientError.self) {
            try EditWriter.write(.contents([.original(4000..<5000)]), path: path, mode: .copy(to: out)) { _ in }
        }
    }

    @Test func aWholeNewFileIsNeverWrittenInPlace() throws {
        let folder = try TemporaryFolder("writer")
        defer { folder.remove() }
        let path = try Self.file(folder)
        let new: [UInt8] = [1]
        #expect(throws: VidorientError.unsupported("a whole new file cannot be written in place")) {
            try EditWriter.write(.contents([.bytes(new[...])]), path: path, mode: .inPlace) { _ in }
        }
    }

    /// `--preserve-mtime` keeps the access time too, for a fix and for a whole new file alike: the
    /// times are set again after the last read-back (normalize's writer used to stop before it).
    @Test(arguments: [false, true])
    func preservedTimesSurviveTheReadBack(wholeFile: Bool) throws {
        let folder = try TemporaryFolder("writer")
        defer { folder.remove() }
        let path = try Self.file(folder)
        var old = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_100, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &old, 0) == 0)
        let times = try FileTimes(path: path)
        let new: [UInt8] = [5, 5, 5]
        let change: EditWriter.Change = wholeFile ? .contents([.bytes(new[...])]) : .edit(Self.edit)
        _ = try EditWriter.write(change, path: path, mode: .replace, preservingTimes: times) { written in
            // A read-back that reads, as the real ones do (relatime moves an old access time).
            _ = try Data(contentsOf: URL(fileURLWithPath: written))
        }
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mtim.tv_sec == 1_000_000_100)
        #expect(status.st_atim.tv_sec == 1_000_000_000)
    }

    @Test func hardLinksAreRefusedForAReplacement() throws {
        let folder = try TemporaryFolder("writer")
        defer { folder.remove() }
        let path = try Self.file(folder)
        #expect(link(path, folder.path("other")) == 0)
        #expect(
            throws: VidorientError.unsupported(
                "the file has 2 hard links, which a replacement would split; use --in-place")
        ) { try EditWriter.write(Self.edit, path: path, mode: .replace) { _ in } }
        let new: [UInt8] = [1]
        #expect(throws: VidorientError.unsupported("the file has 2 hard links, which a replacement would split")) {
            try EditWriter.write(.contents([.bytes(new[...])]), path: path, mode: .replace) { _ in }
        }
        _ = try EditWriter.write(Self.edit, path: path, mode: .inPlace) { _ in }
        #expect(try Self.bytes(folder.path("other")) == Self.bytes(path))
    }

    @Test func aFileChangedSinceThePlanIsLeftAlone() throws {
        let folder = try TemporaryFolder("writer")
        defer { folder.remove() }
        let path = try Self.file(folder)
        let stale = try FileEdit([ByteSplice(offset: 100, old: [1, 1], new: [7, 7])])
        for mode in [FileWriteMode.inPlace, .replace] {
            #expect(throws: VidorientError.self) { try EditWriter.write(stale, path: path, mode: mode) { _ in } }
        }
        #expect(try Self.bytes(path)[100] == 100)
    }
}
