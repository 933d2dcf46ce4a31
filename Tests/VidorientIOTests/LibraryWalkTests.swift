import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientTestSupport

/// The walk every batch shares (audit, thumbnail folders): order, links, loops, names as bytes.
@Suite struct LibraryWalkTests {
    /// A small library: media and other files, a sub-folder, a name that is not UTF-8.
    static func library() throws -> TemporaryFolder {
        let folder = try TemporaryFolder("walk")
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder.path("b/c"), withIntermediateDirectories: true)
        for name in ["a.jpg", "b/z.mp4", "b/c/y.heic", "b/notes.txt", "B.MOV"] {
            try Data([1]).write(to: URL(fileURLWithPath: folder.path(name)))
        }
        // "caf\xE9.png": Latin-1, not UTF-8; kept as bytes, never dropped.
        let latin = folder.path(String(pathBytes: Array("caf".utf8) + [0xE9] + Array(".png".utf8)))
        let descriptor = latin.withPathCString { open($0, O_WRONLY | O_CREAT, 0o644) }
        try #require(descriptor >= 0)
        close(descriptor)
        return folder
    }

    @Test func mediaFilesInSortedByteOrder() throws {
        let folder = try Self.library()
        defer { folder.remove() }
        let (files, notes) = LibraryWalk(options: WalkOptions()).files([folder.path])
        let names = files.map { String($0.dropFirst(folder.path.count + 1)) }
        let latin = String(pathBytes: Array("caf".utf8) + [0xE9] + Array(".png".utf8))
        #expect(names == ["B.MOV", "a.jpg", "b/c/y.heic", "b/z.mp4", latin])
        #expect(files.last?.pathBytes.contains(0xE9) == true)
        #expect(notes.isEmpty)
    }

    @Test func excludePrunesAFolderAndIncludeChoosesFiles() throws {
        let folder = try Self.library()
        defer { folder.remove() }
        var options = WalkOptions()
        options.exclude = ["*/c"]
        options.include = ["*.txt", "*.mp4"]
        let files = LibraryWalk(options: options).files([folder.path]).files
        #expect(files.map { String($0.dropFirst(folder.path.count + 1)) } == ["b/notes.txt", "b/z.mp4"])
    }

    @Test func linksAreSkippedAndSaidOrFollowedWithoutLooping() throws {
        let folder = try Self.library()
        defer { folder.remove() }
        #expect(symlink(folder.path, folder.path("b/up")) == 0)
        let skipped = LibraryWalk(options: WalkOptions()).files([folder.path])
        #expect(skipped.notes.map(\.kind) == [.symlinkSkipped])
        var options = WalkOptions()
        options.followSymlinks = true
        let followed = LibraryWalk(options: options).files([folder.path])
        #expect(followed.files.count == skipped.files.count)
        #expect(followed.notes.map(\.kind) == [.symlinkLoop])
    }

    @Test func aMissingRootIsNotedAndAFileNamedIsTakenWhateverItsName() throws {
        let folder = try Self.library()
        defer { folder.remove() }
        let (files, notes) = LibraryWalk(options: WalkOptions()).files([
            folder.path("nothing"), folder.path("b/notes.txt"),
        ])
        #expect(files == [folder.path("b/notes.txt")])
        #expect(notes.map(\.kind) == [.missing])
        #expect(notes.first?.path == folder.path("nothing"))
        #expect(notes.first?.reason == "no such file or directory")
    }

    @Test func shardsSplitTheLibraryWithoutOverlap() throws {
        let folder = try Self.library()
        defer { folder.remove() }
        let whole = LibraryWalk(options: WalkOptions()).files([folder.path]).files
        var parts: [String] = []
        for index in 1...3 {
            var options = WalkOptions()
            options.shard = try Shard.parse("\(index)/3")
            parts += LibraryWalk(options: options).files([folder.path]).files
        }
        #expect(parts.sorted() == whole.sorted())
    }

    /// The walk in steps that threads share: a folder's regular files come without a key (taken
    /// by the thread that audits them), and one removed in between is said as the walk says it.
    @Test func aFolderListsItsFilesForTheirAuditorsToAsk() throws {
        let folder = try Self.library()
        defer { folder.remove() }
        let walk = LibraryWalk(options: WalkOptions())
        var notes: [WalkNote] = []
        let roots = walk.start([folder.path], note: { notes.append($0) })
        guard roots.count == 1, case .folder(let top) = roots[0] else {
            Issue.record("the root is not one folder: \(roots)")
            return
        }
        var files: [String: FileKey?] = [:]
        var folders: [String] = []
        for entry in walk.list(top, note: { notes.append($0) }) {
            switch entry {
            case .file(let path, let key): files[path] = key
            case .folder(let inner): folders.append(inner.path)
            }
        }
        #expect(folders == [folder.path("b")])
        #expect(Set(files.keys) == [folder.path("B.MOV"), folder.path("a.jpg"), walk.files([folder.path]).files.last!])
        // tmpfs and ext4 name a regular file's type in the folder: no lstat was made for it.
        #expect(files.values.allSatisfy { $0 == nil })
        let key = try #require(walk.key(ofWalked: folder.path("a.jpg"), note: { notes.append($0) }))
        #expect(key.size == 1)
        #expect(unlink(folder.path("B.MOV")) == 0)
        #expect(walk.key(ofWalked: folder.path("B.MOV"), note: { notes.append($0) }) == nil)
        #expect(notes.map(\.kind) == [.missing])
        #expect(notes.first?.path == folder.path("B.MOV"))
    }
}
