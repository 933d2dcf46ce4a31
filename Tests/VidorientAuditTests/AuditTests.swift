import Foundation
import Synchronization
import Testing
import VidorientAudit
import VidorientCore
import VidorientIO
import VidorientTestSupport

/// A small library on disk: every TestMedia case, nested folders, a symbolic link loop, a link
/// to a file, a directory named like a video, and a file that is not media at all.
struct Library {
    let root: URL
    static let testMedia = TestMedia.folder

    init() throws {
        root = try scratchFolder("library")
        let fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent("trips/2024"), withIntermediateDirectories: true)
        try fm.createDirectory(at: root.appendingPathComponent("folder.mp4"), withIntermediateDirectories: true)
        for name in try fm.contentsOfDirectory(atPath: Library.testMedia.path)
        where MediaPaths.isMedia(name) || name.hasSuffix(".m4a") {
            let target = name.hasPrefix("orient-") ? "trips/2024/\(name)" : name
            try fm.copyItem(at: Library.testMedia.appendingPathComponent(name), to: root.appendingPathComponent(target))
        }
        try fm.copyItem(
            at: Library.testMedia.appendingPathComponent("orient-6.mp4"),
            to: root.appendingPathComponent("folder.mp4/inside.mp4"))
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("trips/loop").path, withDestinationPath: "..")
        try fm.createSymbolicLink(
            atPath: root.appendingPathComponent("link-to-clip.mp4").path, withDestinationPath: "trips/2024/orient-7.mp4"
        )
        try Data("not media".utf8).write(to: root.appendingPathComponent("notes.txt"))
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    /// The media files of TestMedia, by name.
    static let names: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: testMedia.path)) ?? [])
        .filter { MediaPaths.isMedia($0) }.sorted()

    /// Orientation `n`'s photo in every format TestMedia holds it in.
    static func photos(_ n: Int) -> [String] {
        [
            "orient-\(n).jpg", "orient-\(n).png", "orient-\(n)-ii.tif", "orient-\(n)-mm.tif", "orient-\(n).webp",
            "orient-\(n).heic", "orient-\(n).avif",
        ].filter(names.contains)
    }

    /// Every regular file's bytes, to show the audit changed none.
    func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root.path)!
        while let relative = enumerator.nextObject() as? String {
            let path = root.appendingPathComponent(relative).path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == nil
            else { continue }
            files[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return files
    }
}

/// Runs an audit and keeps every record, for inspection in tests.
func audit(_ source: Auditor.Source, _ configure: (inout AuditOptions) -> Void = { _ in }) -> (
    records: [AuditRecord], notes: [WalkNote], summary: AuditSummary
) {
    var options = AuditOptions()
    configure(&options)
    let records = Mutex<[AuditRecord]>([])
    let notes = Mutex<[WalkNote]>([])
    let summary = Auditor(options: options).run(
        source, record: { record in records.withLock { $0.append(record) } },
        note: { note in notes.withLock { $0.append(note) } })
    return (records.withLock { $0 }, notes.withLock { $0 }, summary)
}

@Suite struct AuditTests {
    /// A read that gives up at its time limit is a `timeout` finding, told apart from any other
    /// failure by the error's typed condition (FFmpeg's open, `--deep`, with no time to spare).
    @Test func aReadPastItsTimeLimitIsATimeout() {
        var options = AuditOptions()
        options.deep = true
        options.timeout = 0
        let record = Auditor.audit(TestMedia.path("orient-6.mp4"), options: options)
        #expect(record.findings.map(\.code) == ["timeout"], "\(record.findings)")
        #expect(record.findings.first?.message.hasPrefix("could not be probed: timed out after 0.0 s") == true)
        #expect(record.isUnreadable)
    }

    /// The summary's files per folder are the records' (its key is made once for a run of one
    /// folder's files, `AuditSummary.RecentFolder`), whichever worker took them.
    @Test(arguments: [1, 2]) func theFolderCountsAreTheRecords(jobs: Int) throws {
        let library = try Library()
        defer { library.remove() }
        let run = audit(.walk([library.root.path])) { $0.jobs = jobs }
        var expected: [String: Int] = [:]
        for record in run.records { expected[(record.path as NSString).deletingLastPathComponent, default: 0] += 1 }
        #expect(expected.count > 2)
        #expect(run.summary.folders.mapValues(\.files) == expected)
    }

    @Test func everyFindingIsTheExpectedOne() throws {
        let library = try Library()
        defer { library.remove() }
        let before = try library.snapshot()
        let run = audit(.walk([library.root.path]))
        let byName = Dictionary(uniqueKeysWithValues: run.records.map { (($0.path as NSString).lastPathComponent, $0) })

        // Every media file once; links not followed, so neither the loop nor the linked clip.
        #expect(run.records.count == Set(run.records.map(\.path)).count)
        #expect(byName["link-to-clip.mp4"] == nil)
        #expect(byName["audio-only.m4a"] == nil, "audio is not in the default extensions")
        #expect(byName["notes.txt"] == nil)
        #expect(byName["inside.mp4"] != nil, "a directory named like a video is walked into")
        #expect(run.notes.map(\.kind).contains(.symlinkSkipped))

        func codes(_ name: String) -> [String] { byName[name]?.findings.map(\.code) ?? ["<missing>"] }
        for n in 1...8 {
            let mirrored = Orientation(exif: n)!.isMirrored
            for name in ["orient-\(n).mp4", "orient-\(n)-hevc.mov"] + Library.photos(n) {
                #expect(codes(name) == (mirrored ? ["mirrored"] : []), "\(name)")
                #expect((byName[name]?.photo?.exifOrientation ?? byName[name]?.video?.exifOrientation) == n, "\(name)")
            }
        }
        #expect(codes("odd-angle-30.mp4") == ["odd-angle"])
        #expect(codes("scaled-2x.mp4") == ["matrix-scale"])
        #expect(codes("anamorphic-6.mp4") == ["sar-rotated"])
        #expect(codes("audio-first.mov") == [])
        #expect(byName["audio-first.mov"]?.video?.index == 1)
        // The box layer reads the first sample's SEI (MovieDescription), so the fast pass sees it.
        #expect(codes("sei-90.mp4") == ["codec-orientation"])
        let bad = Library.names.filter { $0.hasPrefix("bad-") }
        #expect(bad.count >= 4)
        // Cut after their header (an IDAT, a tile's extent past the end): read, and said truncated (issue 24).
        let cut: Set = ["bad-png-length.png", "bad-iloc-past-end.heic"]
        for name in bad {
            #expect(codes(name) == [cut.contains(name) ? "file-truncated" : "unreadable"], "\(name)")
        }
        #expect(run.summary.unreadable == bad.count - cut.count)
        #expect(run.summary.exitStatus == 1)
        #expect(try library.snapshot() == before, "the audit must not change a byte")
    }

    /// A movie whose last box runs past the end of the file: its description is read and the
    /// audit says why it is short (the `try?` that once hid the box layer's errors made a
    /// malformed file look like any other; issue 24 made a cut one `file-truncated`).
    @Test func aBoxLayerErrorIsReported() throws {
        let folder = try TemporaryFolder("audit-box-error")
        defer { folder.remove() }
        let path = try folder.copy(TestMedia.path("orient-3-hevc.mov"), as: "orient-3-hevc.mov")
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0, 0, 0x10, 0, 0x66, 0x72, 0x65, 0x65]))
        try handle.close()
        let run = audit(.list([path].makeIterator()))
        let record = try #require(run.records.first)
        #expect(record.findings.map(\.code) == ["file-truncated"])
        #expect(record.findings.first?.severity == .error)
        #expect(record.findings.first?.message.contains("'free' box at") == true)
        #expect(record.video?.exifOrientation == 3)
    }

    @Test func deepAuditDecodesAndFindsTheSEI() throws {
        let library = try Library()
        defer { library.remove() }
        let run = audit(.walk([library.root.path])) { $0.deep = true }
        let sei = try #require(run.records.first { $0.path.hasSuffix("/sei-90.mp4") })
        #expect(sei.findings.map(\.code) == ["codec-orientation"])
        #expect(sei.video?.exifOrientation == 6)
        // The fast pass (boxes, and the first sample's SEI) and the deep pass agree on every file.
        let fast = audit(.walk([library.root.path]))
        for record in run.records {
            let other = try #require(fast.records.first { $0.path == record.path })
            // A file cut short has a picture that does not decode, which only the deep pass sees.
            let deepOnly = other.findings.contains { $0.code == "file-truncated" } ? ["first-frame-unreadable"] : []
            #expect(
                record.findings.map(\.code).filter { !deepOnly.contains($0) } == other.findings.map(\.code),
                "\(record.path)")
            #expect(record.video?.exifOrientation == other.video?.exifOrientation, "\(record.path)")
            #expect(record.video?.displayWidth == other.video?.displayWidth, "\(record.path)")
        }
    }

    /// Each listed folder is kept open for its files' `lstat`s while they wait (`OpenFolder`), up to
    /// a limit; a tree deeper than the limit, its folders listed before their files, keeps more
    /// waiting than that, and the rest are asked by their whole path: every file is audited.
    @Test func aTreeDeeperThanTheOpenFoldersLimitIsAuditedWhole() throws {
        let folder = try TemporaryFolder("deep-tree")
        defer { folder.remove() }
        let photo = try Data(contentsOf: URL(fileURLWithPath: TestMedia.path("orient-6.jpg")))
        var level = ""
        for _ in 0..<300 {
            // "a" sorts before "z.jpg": each folder's subfolder is taken before its file.
            level += "a/"
            try FileManager.default.createDirectory(atPath: folder.path(level), withIntermediateDirectories: true)
            try photo.write(to: URL(fileURLWithPath: folder.path(level + "z.jpg")))
        }
        let run = audit(.walk([folder.path])) { $0.jobs = 1 }
        #expect(run.notes.isEmpty, "\(run.notes.prefix(3))")
        #expect(run.records.count == 300)
        #expect(run.records.allSatisfy { $0.file != nil && !$0.isUnreadable })
    }

    @Test func followingLinksDetectsTheLoop() throws {
        let library = try Library()
        defer { library.remove() }
        let run = audit(.walk([library.root.path])) { $0.walk.followSymlinks = true }
        #expect(run.notes.contains { $0.kind == .symlinkLoop && $0.path.hasSuffix("trips/loop") })
        #expect(run.records.contains { $0.path.hasSuffix("/link-to-clip.mp4") })
        #expect(run.records.count == Set(run.records.map(\.path)).count)
    }

    @Test func shardsAddUpToTheWhole() throws {
        let library = try Library()
        defer { library.remove() }
        let whole = Set(audit(.walk([library.root.path])).records.map(\.path))
        var parts: [Set<String>] = []
        for k in 1...3 {
            parts.append(Set(audit(.walk([library.root.path])) { $0.walk.shard = Shard("\(k)/3") }.records.map(\.path)))
        }
        #expect(parts.reduce(Set<String>()) { $0.union($1) } == whole)
        #expect(parts.map(\.count).reduce(0, +) == whole.count, "no file in two shards")
        #expect(parts.allSatisfy { !$0.isEmpty })
    }

    @Test func filesWithoutPicturesWhenIncluded() throws {
        let library = try Library()
        defer { library.remove() }
        let records = audit(.walk([library.root.path])) { $0.walk.include = ["*.m4a"] }.records
        #expect(records.count == 2)
        #expect(records.allSatisfy { $0.findings.map(\.code) == ["no-video"] && $0.video == nil })
    }

    @Test func includeAndExclude() throws {
        let library = try Library()
        defer { library.remove() }
        let jpegs = audit(.walk([library.root.path])) { $0.walk.include = ["*.jpg"] }.records
        #expect(jpegs.count == Library.names.filter { $0.hasSuffix(".jpg") }.count)
        #expect(jpegs.count >= 9 && jpegs.allSatisfy { $0.path.hasSuffix(".jpg") })
        let noTrips = audit(.walk([library.root.path])) { $0.walk.exclude = ["*/trips"] }.records
        #expect(!noTrips.contains { $0.path.contains("/trips/") })
        #expect(noTrips.contains { $0.path.hasSuffix("/odd-angle-30.mp4") })
    }

    /// The audit walks every file `inspect` reads (issue 20): Canon's `.THM` video thumbnails (a
    /// JPEG), the TIFF raws GoPro GPR, Kodak KDC and Phase One IIQ, and, with exiftool's own test
    /// images fetched (`TestMedia/corpus/fetch.py`), a real CR3, CRW, MRW and X3F. Before, these
    /// extensions were not in the default set, and a folder walk passed over them in silence.
    @Test func everyCameraFormatInspectReadsIsWalked() throws {
        let root = try scratchFolder("camera-formats")
        defer { try? FileManager.default.removeItem(at: root) }
        let fm = FileManager.default
        let turned: [String: String] = [
            "MVI_0001.THM": "orient-6.jpg", "GOPR0001.gpr": "orient-6-ii.tif", "DCS_0001.KDC": "orient-6-ii.tif",
            "P0001.IIQ": "orient-6-mm.tif",
        ]
        for (name, source) in turned {
            try fm.copyItem(
                at: Library.testMedia.appendingPathComponent(source), to: root.appendingPathComponent(name))
        }
        let corpus =
            ProcessInfo.processInfo.environment["VIDORIENT_CORPUS"].map { URL(fileURLWithPath: $0) }
            ?? PackageFolder.root.appendingPathComponent(".build/corpus")
        let images = corpus.appendingPathComponent("exiftool/t/images")
        let raws = ["CanonRaw.cr3", "CanonRaw.crw", "Minolta.mrw", "SigmaDP2.x3f"]
            .filter { fm.fileExists(atPath: images.appendingPathComponent($0).path) }
        for name in raws {
            try fm.copyItem(at: images.appendingPathComponent(name), to: root.appendingPathComponent(name))
        }
        try Data("not media".utf8).write(to: root.appendingPathComponent("MVI_0001.txt"))

        let records = audit(.walk([root.path])).records
        let byName = Dictionary(uniqueKeysWithValues: records.map { (($0.path as NSString).lastPathComponent, $0) })
        #expect(Set(byName.keys) == Set(turned.keys).union(raws))
        for name in turned.keys {
            #expect(byName[name]?.photo?.exifOrientation == 6, "\(name)")
        }
        for name in raws {
            #expect(byName[name]?.isUnreadable == false, "\(name): \(byName[name]?.findings.map(\.code) ?? [])")
        }
    }

    @Test func pathListsWithNewlinesOrNULs() throws {
        let library = try Library()
        defer { library.remove() }
        let paths = ["trips/2024/orient-2.mp4", "bad-text.mp4", "odd-angle-30.mp4"].map {
            library.root.appendingPathComponent($0).path
        }
        for nul in [false, true] {
            let list = library.root.appendingPathComponent(nul ? "list0" : "list")
            try Data(paths.joined(separator: nul ? "\0" : "\n").utf8).write(to: list)
            let run = audit(.list(try PathList(path: list.path, nulSeparated: nul)))
            #expect(Set(run.records.map(\.path)) == Set(paths))
        }
    }

    @Test func exitStatusFollowsFailOn() throws {
        let library = try Library()
        defer { library.remove() }
        let root = library.root.path
        #expect(audit(.walk([root + "/trips/2024/orient-6.mp4"])).summary.exitStatus == 0)
        #expect(audit(.walk([root + "/trips/2024/orient-2.mp4"])).summary.exitStatus == 1)
        #expect(audit(.walk([root + "/trips/2024/orient-2.mp4"])) { $0.failOn = .error }.summary.exitStatus == 0)
        #expect(audit(.walk([root + "/anamorphic-6.mp4"])) { $0.failOn = .info }.summary.exitStatus == 1)
        #expect(audit(.walk([root + "/bad-random.mp4"])).summary.exitStatus == 2)
        #expect(audit(.walk([root + "/bad-random.mp4", root + "/trips/2024/orient-2.mp4"])).summary.exitStatus == 1)
        #expect(audit(.walk([root + "/no-such-file.mp4"])).summary.exitStatus == 2)
    }

    @Test func writersProduceWhatTheyPromise() throws {
        let library = try Library()
        defer { library.remove() }
        let run = audit(.walk([library.root.path]))
        // JSONL: one parseable object per line, each with path, video and findings.
        let jsonl = AuditWriter(format: .jsonl)
        for record in run.records {
            let line = jsonl.record(record, first: false)
            #expect(line.hasSuffix("\n") && !line.dropLast().contains("\n"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(
                Set(object.keys) == [
                    "schema_version", "path", "path_bytes", "video", "photo", "content", "findings", "file",
                ])
        }
        // JSON: one document whatever the number of files.
        let json = AuditWriter(format: .json)
        var document = json.begin()
        for (index, record) in run.records.enumerated() { document += json.record(record, first: index == 0) }
        document += json.end(run.summary)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any])
        #expect((object["files"] as? [Any])?.count == run.records.count)
        #expect((object["summary"] as? [String: Any])?["files"] as? Int == run.records.count)
        // CSV: a header and one row per finding, commas and quotes escaped.
        let csv = AuditWriter(format: .csv)
        let rows = run.records.map { csv.record($0, first: false) }.joined()
        #expect(rows.split(separator: "\n").count == run.records.map(\.findings.count).reduce(0, +))
        #expect(AuditWriter(format: .csv).begin() == "path,severity,code,message,action,path_bytes\n")
        let tricky = AuditRecord(
            path: "a, \"b\".mp4", video: nil, findings: [Finding(code: "x", severity: .info, message: "m")])
        #expect(csv.record(tricky, first: true) == "\"a, \"\"b\"\".mp4\",info,x,m,,\n")
        // A name that is not UTF-8: shown with \xHH, its bytes in the last column.
        let latin1 = AuditRecord(
            path: String(pathBytes: Array("caf".utf8) + [0xE9] + Array(".mp4".utf8)), video: nil,
            findings: [Finding(code: "x", severity: .info, message: "m")])
        #expect(csv.record(latin1, first: true) == "caf\\xE9.mp4,info,x,m,,636166e92e6d7034\n")
        // JSONL: `path` for display, `path_bytes` exact, and a reader (the cache, `report`) gets the name back.
        let line = AuditWriter(format: .jsonl).record(latin1, first: true)
        let bytesObject = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(bytesObject["path"] as? String == "caf\\xE9.mp4")
        #expect(bytesObject["path_bytes"] as? String == "636166e92e6d7034")
        #expect(
            try JSONDecoder().decode(AuditRecord.self, from: Data(line.utf8)).path.pathBytes == latin1.path.pathBytes)
    }
}

@Suite struct FastPathAgreementTests {
    static let shared = SharedMedia.folder

    /// The header-only readers (box layer, JPEG markers) must say what FFmpeg says.
    @Test func fastAndDeepAgreeOnEveryRealFile() throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Self.shared.path)) ?? []
        let media = names.filter { MediaPaths.isMedia($0) }.sorted()
        try #require(!media.isEmpty || !FileManager.default.fileExists(atPath: Self.shared.path))
        var deep = AuditOptions()
        deep.deep = true
        for name in media {
            let path = Self.shared.appendingPathComponent(name).path
            let fast = Auditor.audit(path, options: AuditOptions())
            let slow = Auditor.audit(path, options: deep)
            #expect(fast.findings.map(\.code) == slow.findings.map(\.code), "\(name)")
            #expect(fast.photo == slow.photo, "\(name)")
            let (f, s) = (fast.video, slow.video)
            #expect(f?.exifOrientation == s?.exifOrientation, "\(name)")
            #expect(f?.rotation == s?.rotation && f?.mirrored == s?.mirrored, "\(name)")
            #expect(f?.displayWidth == s?.displayWidth && f?.displayHeight == s?.displayHeight, "\(name)")
            #expect(f?.codedWidth == s?.codedWidth && f?.codedHeight == s?.codedHeight, "\(name)")
            #expect(f?.orientationSource == s?.orientationSource, "\(name)")
            #expect(f?.matrix == s?.matrix, "\(name)")
            #expect(f?.camera == s?.camera, "\(name)")
        }
    }

    /// The walk is split across the workers (issue 32): folders are listed on the worker threads,
    /// not on the calling thread ahead of them (which made `--jobs 1` two busy threads and the one
    /// walk the limit of a warm cache), and every `--jobs` reports exactly the walk's files and notes.
    @Test(arguments: [1, 2, 5])
    func foldersAreListedByTheWorkers(jobs: Int) throws {
        let folder = try TemporaryFolder("audit-split-walk")
        defer { folder.remove() }
        let photo = try Data(contentsOf: URL(fileURLWithPath: TestMedia.path("orient-1.jpg")))
        for a in 0..<6 {
            for b in 0..<3 {
                let inner = "d\(a)/e\(b)"
                try FileManager.default.createDirectory(atPath: folder.path(inner), withIntermediateDirectories: true)
                for c in 0..<(a * 3 + b) {
                    try photo.write(to: URL(fileURLWithPath: folder.path("\(inner)/f\(c).jpg")))
                }
            }
            #expect(symlink(folder.path("d0"), folder.path("d\(a)/link")) == 0)
        }
        let caller = pthread_self()
        let noteThreads = Mutex<[pthread_t]>([])
        var options = AuditOptions()
        options.jobs = jobs
        let records = Mutex<[String]>([])
        let notes = Mutex<[WalkNote]>([])
        let summary = Auditor(options: options).run(
            .walk([folder.path]), record: { record in records.withLock { $0.append(record.path) } },
            note: { note in
                noteThreads.withLock { $0.append(pthread_self()) }
                notes.withLock { $0.append(note) }
            })
        let walked = LibraryWalk(options: options.walk).files([folder.path])
        #expect(records.withLock { $0.sorted() } == walked.files.sorted())
        #expect(summary.files == walked.files.count)
        #expect(
            notes.withLock { $0.map(\.path).sorted() } == walked.notes.map(\.path).sorted())
        #expect(summary.skipped == ["symlink-skipped": 6])
        // The links are inside the folders: only a worker that lists them can say so.
        #expect(noteThreads.withLock { $0.count } == 6)
        #expect(noteThreads.withLock { $0.allSatisfy { pthread_equal($0, caller) == 0 } })
    }
}

/// A sorted audit of a walk is written as it goes (`Auditor.run`'s `ordered`, `SortedRecords`):
/// no record comes after a chunk said no record below it was still to come, and most of the text
/// is out before the run ends, in the order of the paths' bytes, where a walk in name order
/// differs from it (a folder `a` and a file `a.jpg`: `a.jpg` comes first; a Latin-1 name).
@Suite struct AuditPathOrderTests {
    static func library() throws -> TemporaryFolder {
        let folder = try TemporaryFolder("audit-path-order")
        let manager = FileManager.default
        let photo = try Data(contentsOf: Library.testMedia.appendingPathComponent("orient-6.jpg"))
        var names: [String] = []
        for sub in ["a", "a/b", "a-b", "a0", "z/y/x"] {
            try manager.createDirectory(atPath: folder.path(sub), withIntermediateDirectories: true)
            names += (0..<60).map { "\(sub)/f\($0).jpg" }
        }
        names += ["a.jpg", "a b.jpg", "a-1.jpg", "a0.jpg", "café.jpg", "z.jpg"]
        for name in names { try photo.write(to: URL(fileURLWithPath: folder.path(name))) }
        // "caf\xE9.jpg": Latin-1, after "café.jpg" (0xC3 0xA9) in byte order.
        let latin = folder.path(String(pathBytes: Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)))
        let descriptor = latin.withPathCString { open($0, O_WRONLY | O_CREAT, 0o644) }
        try #require(descriptor >= 0)
        _ = photo.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        return folder
    }

    /// At one, two and four jobs, and with more workers than cores whatever the machine (the ones
    /// beyond the cores wait for a place: `CorePlaces`).
    @Test(arguments: [1, 2, 4, 2 * Processors.available + 1])
    func aWalkIsWrittenInPathOrderAsItGoes(jobs: Int) throws {
        let folder = try Self.library()
        defer { folder.remove() }
        let writer = AuditWriter(format: .jsonl)
        var options = AuditOptions()
        options.jobs = jobs
        var held = SortedRecords()
        var text: [UInt8] = []
        var writtenDuringTheRun = 0
        // The greatest path a chunk said every record still to come is at or above.
        var promised: [UInt8] = []
        var broken: [String] = []
        var chunks = 0
        let summary = Auditor(options: options).run(
            .walk([folder.path]), render: { record, chunk in writer.render(record, into: &chunk, marked: true) },
            ordered: true,
            deliver: { chunk in
                chunks += 1
                for mark in chunk.marks where mark.path.pathBytes.lexicographicallyPrecedes(promised) {
                    broken.append(mark.path)
                }
                switch chunk.pathsToCome {
                case .atLeast(let bound): if promised.lexicographicallyPrecedes(bound) { promised = bound }
                case .none: promised = [0xFF, 0xFF]
                case .unknown: broken.append("a walk's chunk said nothing of the paths to come")
                }
                held.add(chunk) { block in
                    text += block
                    writtenDuringTheRun += block.count
                }
            })
        held.finish { text += $0 }
        #expect(broken.isEmpty, "records that came after a chunk said none below them would: \(broken.prefix(5))")
        let paths = text.split(separator: UInt8(ascii: "\n")).map {
            try? JSONDecoder().decode(AuditRecord.self, from: Data($0)).path.pathBytes
        }
        #expect(paths.count == 307 && summary.files == 307)
        let bytes = paths.compactMap { $0 }
        #expect(bytes.count == 307)
        let disorder = bytes.indices.dropFirst().first { !bytes[$0 - 1].lexicographicallyPrecedes(bytes[$0]) }
        #expect(disorder == nil, "\(disorder.map { String(pathBytes: bytes[$0]) } ?? "") is out of order")
        let relative = bytes.map { Array($0.dropFirst(folder.path.utf8.count + 1)) }
        let a = try #require(relative.firstIndex(of: Array("a/b/f0.jpg".utf8)))
        #expect(try #require(relative.firstIndex(of: Array("a.jpg".utf8))) < a)
        #expect(try #require(relative.firstIndex(of: Array("café.jpg".utf8))) == relative.count - 63)
        #expect(relative[relative.count - 62] == Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        // Written as it went: at most the last 64 KiB, and what waited on a slower file, at the end.
        #expect(chunks > 3)
        #expect(writtenDuringTheRun * 2 > text.count, "\(writtenDuringTheRun) of \(text.count) bytes before the end")
    }

    /// One worker hands its records over a unit or more at a time, each before any still to come:
    /// a chunk is then written as it is, nothing held and copied. (Two and four workers take the
    /// same path where nothing held comes before their chunk; the order itself: the test above.)
    /// A warm cache's stored lines, so that no unit outlasts the tenth of a second after which a
    /// worker hands over what it has whatever it is.
    @Test func aChunkOfWholeUnitsIsWrittenAsItIs() throws {
        let folder = try TemporaryFolder("audit-whole-units")
        defer { folder.remove() }
        let photo = try Data(contentsOf: Library.testMedia.appendingPathComponent("orient-6.jpg"))
        for sub in ["2019/01", "2019/02", "2020/01"] {
            try FileManager.default.createDirectory(atPath: folder.path(sub), withIntermediateDirectories: true)
            for i in 0..<150 { try photo.write(to: URL(fileURLWithPath: folder.path("\(sub)/IMG_\(1000 + i).jpg"))) }
        }
        let cache = try CacheFixture()
        defer { cache.remove() }
        _ = renderedRun(.walk([folder.path]), format: .jsonl, cache: cache.open(), replaying: true)
        let writer = AuditWriter(format: .jsonl)
        var options = AuditOptions()
        options.cache = cache.open()
        options.jobs = 1
        var held = SortedRecords()
        var chunks = 0
        var asTheyAre = 0
        var text: [UInt8] = []
        _ = Auditor(options: options).run(
            .walk([folder.path]), render: { record, chunk in writer.render(record, into: &chunk, marked: true) },
            replay: writer.replay(marked: true), ordered: true,
            deliver: { chunk in
                chunks += 1
                var blocks: [[UInt8]] = []
                held.add(chunk) { blocks.append($0) }
                if blocks.last == chunk.text { asTheyAre += 1 }
                text += blocks.joined()
            })
        held.finish { text += $0 }
        #expect(text.split(separator: UInt8(ascii: "\n")).count == 450)
        // Three folders of 150 files, each in units of 37 or 38 files (`WalkQueue.units`): a chunk a unit.
        #expect(chunks >= 6)
        // Every one on a quiet machine; one a tenth of a second cuts short, and the next, are held.
        #expect(asTheyAre * 2 > chunks, "\(asTheyAre) of \(chunks) chunks written as they are")
    }

    /// A list can name any path next: its chunks say nothing, and the records are held to the end.
    @Test func aListIsHeldToTheEnd() throws {
        let folder = try Self.library()
        defer { folder.remove() }
        let writer = AuditWriter(format: .jsonl)
        let listed = ["z.jpg", "a.jpg", "a/f1.jpg", "a0.jpg"].map { folder.path($0) }
        var held = SortedRecords()
        var duringTheRun = 0
        var text: [UInt8] = []
        _ = Auditor(options: AuditOptions()).run(
            .list(listed.makeIterator()),
            render: { record, chunk in writer.render(record, into: &chunk, marked: true) },
            ordered: true,
            deliver: { chunk in
                #expect(chunk.pathsToCome == .unknown)
                held.add(chunk) { duringTheRun += $0.count }
            })
        held.finish { text += $0 }
        #expect(duringTheRun == 0)
        let paths = text.split(separator: UInt8(ascii: "\n")).compactMap {
            try? JSONDecoder().decode(AuditRecord.self, from: Data($0)).path
        }
        #expect(paths == ["a.jpg", "a/f1.jpg", "a0.jpg", "z.jpg"].map { folder.path($0) })
    }
}
