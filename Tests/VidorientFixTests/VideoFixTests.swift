import Foundation
import Testing
import VidorientCore
import VidorientFix
import VidorientIO
import VidorientISOBMFF
import VidorientTestSupport

/// The two clip sets: H.264 MP4 with moov first, HEVC QuickTime with moov after mdat.
enum Clip: String, CaseIterable {
    case mp4, mov

    func name(_ orientation: Orientation) -> String {
        self == .mp4 ? "orient-\(orientation.exif).mp4" : "orient-\(orientation.exif)-hevc.mov"
    }

    func entry(_ orientation: Orientation) -> TestMedia.Entry { TestMedia.entry(name(orientation))! }

    /// Orientation `n`'s matrix for this clip, from the manifest's stored size (the tkhd size).
    func truth(_ n: Orientation, storedAs stored: Orientation) -> [Int32] {
        let entry = entry(stored)
        return Truth.matrix(n.exif, width: Int32(entry.storedWidth!), height: Int32(entry.storedHeight!))
    }
}

@Suite struct MatrixFixTests {
    /// 8 × 8 orientations (8 × 4 in the test run; `LargeRounds`), each on an MP4 and a MOV copy: the
    /// tkhd matrix read back by the box reader and by ffprobe is Apple's matrix for the new
    /// orientation, and no other byte moved.
    @Test(arguments: Orientation.allCases, LargeRounds.targets.compactMap(Orientation.init(exif:)))
    func everyOrientationToEveryOther(from: Orientation, to: Orientation) throws {
        let folder = try TemporaryFolder("fix-\(from.exif)-\(to.exif)")
        defer { folder.remove() }
        for clip in Clip.allCases {
            let path = try folder.copy(TestMedia.path(clip.name(from)), as: "clip.\(clip.rawValue)")
            let before = try bytes(path)
            let result = try MatrixFix.fix(path: path, change: .set(to))
            let after = try bytes(path)
            let expected = clip.truth(to, storedAs: from)

            let video = try #require(try MovieStructure(path: path).videoTracks.first)
            #expect(video.matrix.fixedPoint == expected, "\(clip)")
            #expect(result.after.exifOrientation == to.exif)
            #expect(result.before.exifOrientation == from.exif)

            #expect(after.count == before.count)
            let changed = differingOffsets(before, after)
            let matrixBytes = video.matrix.offset..<video.matrix.offset + 36
            #expect(changed.allSatisfy { matrixBytes.contains(Int64($0)) }, "\(clip): \(changed)")
            #expect(changed.count == result.bytesChanged)
            #expect(changed.isEmpty == (from == to))
            #expect(result.writtenPath == (from == to ? nil : path))
            #expect(result.verified == (from != to))

            // FFmpeg 5.1 prints no display matrix for the identity.
            #expect(try ffprobeDisplayMatrix(path) == (to == .up ? nil : expected), "\(clip)")
        }
    }

    /// exiftool reads the matrix too (mirror-blind: it prints the angle of the first row). One
    /// exiftool run for all 128 fixed files keeps this fast.
    @Test(.enabled(if: isInstalled("exiftool"), "exiftool is not installed"))
    func exiftoolReadsEveryFixedFile() throws {
        let folder = try TemporaryFolder("fix-exiftool")
        defer { folder.remove() }
        var expected: [String: Double] = [:]
        for clip in Clip.allCases {
            for from in Orientation.allCases {
                for to in Orientation.allCases {
                    let path = try folder.copy(
                        TestMedia.path(clip.name(from)), as: "\(from.exif)-to-\(to.exif).\(clip.rawValue)")
                    _ = try MatrixFix.fix(path: path, change: .set(to), mode: .inPlace)
                    expected[path] = Truth.exiftoolRotation(clip.truth(to, storedAs: from))
                }
            }
        }
        let result = try run("exiftool", ["-j", "-n", "-Rotation"] + expected.keys.sorted())
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        #expect(objects.count == 128)
        for object in objects {
            let file = try #require(object["SourceFile"] as? String)
            #expect((object["Rotation"] as? NSNumber)?.doubleValue == expected[file], "\(file)")
        }
    }

    @Test(arguments: [
        ("90", false, OrientationChange.set(.right)), ("270", false, .set(.left)), ("-270", false, .compose(.right)),
        ("+90", false, .compose(.right)), ("-90", false, .compose(.left)), ("+0", true, .compose(.upMirrored)),
        ("180", true, .set(.downMirrored)), ("0", false, .set(.up)), ("450", false, .set(.right)),
    ])
    func rotateValues(text: String, mirrored: Bool, change: OrientationChange) {
        #expect(OrientationChange(rotate: text, mirrored: mirrored) == change)
    }

    @Test(arguments: ["45", "ninety", "", "+", "90.0", "1e2"])
    func rotateValuesThatAreNotQuarterTurns(text: String) {
        #expect(OrientationChange(rotate: text, mirrored: false) == nil)
    }

    /// `+90` turns the picture as shown a further quarter turn clockwise; `-90` back. The table
    /// is worked out by hand: a mirrored orientation stays mirrored and its rotation grows by 90.
    static let plusNinety: [Int: Int] = [1: 6, 2: 7, 3: 8, 4: 5, 5: 2, 6: 3, 7: 4, 8: 1]
    static let minusNinety: [Int: Int] = [1: 8, 2: 5, 3: 6, 4: 7, 5: 4, 6: 1, 7: 2, 8: 3]

    @Test(arguments: Orientation.allCases)
    func relativeTurnsComposeWithTheCurrentOrientation(from: Orientation) throws {
        let folder = try TemporaryFolder("relative")
        defer { folder.remove() }
        let path = try folder.copy(TestMedia.path(Clip.mov.name(from)), as: "clip.mov")
        let plus = try MatrixFix.fix(path: path, change: OrientationChange(rotate: "+90", mirrored: false)!)
        #expect(plus.after.exifOrientation == Self.plusNinety[from.exif])
        let back = try MatrixFix.fix(path: path, change: OrientationChange(rotate: "-90", mirrored: false)!)
        #expect(back.after.exifOrientation == from.exif)
        #expect(try bytes(path) == bytes(TestMedia.path(Clip.mov.name(from))))
        let minus = try MatrixFix.fix(path: path, change: .compose(.left), dryRun: true)
        #expect(minus.after.exifOrientation == Self.minusNinety[from.exif])
    }

    @Test func relativeTurnOfAnOddAngleIsRefused() throws {
        let movie = try MovieStructure(path: TestMedia.path("odd-angle-30.mp4"))
        let error = try #require(throws: ISOBMFFError.self) { try MatrixFix(movie, change: .compose(.right)) }
        #expect(error.reason.contains("rotates 30°"))
        // An absolute orientation replaces the odd matrix outright.
        let plan = try MatrixFix(movie, change: .set(.right))
        #expect(plan.patches.first?.after.fixedPoint == Truth.matrix(6, width: 160, height: 96))
    }

    @Test func scaleIsDroppedForApplesMatrix() throws {
        let movie = try MovieStructure(path: TestMedia.path("scaled-2x.mp4"))
        let plan = try MatrixFix(movie, change: .compose(.up))
        #expect(plan.patches.first?.after.fixedPoint == Truth.matrix(6, width: 96, height: 160))
    }

    @Test func filesThatCannotBeFixedAreRefusedUnchanged() throws {
        let folder = try TemporaryFolder("refuse")
        defer { folder.remove() }
        let fragmented = folder.path("fragmented.mp4")
        #expect(try writeFragmented(TestMedia.path("orient-6.mp4"), to: fragmented) == 0)
        let cases: [(String, String)] = [
            (fragmented, "fragmented mp4 (moof) is not supported"),
            (try folder.copy(TestMedia.path("audio-only.m4a"), as: "audio.m4a"), "no video track"),
            (try folder.copy(TestMedia.path("orient-6.jpg"), as: "photo.mov"), "not an mp4 or quicktime file (jpeg)"),
        ]
        for (path, reason) in cases {
            let before = try bytes(path)
            let error = try #require(throws: ISOBMFFError.self) { try MatrixFix.fix(path: path, change: .reset) }
            #expect(error.reason == reason)
            #expect(try bytes(path) == before)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.url.path).allSatisfy {
                    !$0.hasSuffix(".partial")
                })
        }
    }

    @Test func aRotatingMovieMatrixIsReportedAndResetOnlyWhenAsked() throws {
        let folder = try TemporaryFolder("mvhd")
        defer { folder.remove() }
        let path = try folder.copy(TestMedia.path("orient-1.mp4"), as: "movie-rotates.mp4")
        // Make the movie matrix rotate 180° (translation for 160x96), leaving the track's alone.
        let movie = try MovieStructure(path: path)
        var file = try bytes(path)
        let mvhd = Int(movie.movieHeader.matrix.offset)
        let rotate180 = Truth.matrix(3, width: 160, height: 96)
        file.replaceSubrange(
            mvhd..<mvhd + 36, with: rotate180.flatMap { withUnsafeBytes(of: $0.bigEndian, Array.init) })
        try Data(file).write(to: URL(fileURLWithPath: path))
        // FFmpeg shows only the product of the two.
        #expect(try ffprobeDisplayMatrix(path) == rotate180)

        let kept = try MatrixFix.fix(path: path, change: .set(.right))
        #expect(kept.warnings.count == 1)
        #expect(kept.movieMatrixAfter == kept.movieMatrixBefore)
        #expect(try MovieStructure(path: path).movieHeader.matrix.fixedPoint == rotate180)

        let reset = try MatrixFix.fix(path: path, change: .set(.right), resetMovieMatrix: true)
        #expect(reset.warnings.isEmpty)
        #expect(reset.changes.map(\.trackID) == [1, nil])
        #expect(reset.movieMatrixAfter == DisplayMatrix.identity.entries)
        let read = try MovieStructure(path: path)
        #expect(read.movieHeader.matrix.fixedPoint == DisplayMatrix.identity.fixedPoint)
        #expect(try ffprobeDisplayMatrix(path) == Truth.matrix(6, width: 160, height: 96))
    }

    @Test func writeModes() throws {
        let folder = try TemporaryFolder("modes")
        defer { folder.remove() }
        let original = TestMedia.path("orient-6-hevc.mov")
        let manager = FileManager.default

        // Replace: a new file (new inode) renamed over the old, with the old permissions.
        let replaced = try folder.copy(original, as: "replace.mov")
        try manager.setAttributes([.posixPermissions: 0o640], ofItemAtPath: replaced)
        let oldInode = try manager.attributesOfItem(atPath: replaced)[.systemFileNumber] as? Int
        let replace = try MatrixFix.fix(path: replaced, change: .reset)
        #expect(replace.bytesWritten == Int64(try bytes(original).count))
        #expect(try manager.attributesOfItem(atPath: replaced)[.posixPermissions] as? Int == 0o640)
        #expect(try manager.attributesOfItem(atPath: replaced)[.systemFileNumber] as? Int != oldInode)

        // In place: the same inode, 36 bytes written.
        let patched = try folder.copy(original, as: "in-place.mov")
        let inode = try manager.attributesOfItem(atPath: patched)[.systemFileNumber] as? Int
        let inPlace = try MatrixFix.fix(path: patched, change: .reset, mode: .inPlace)
        #expect(inPlace.bytesWritten == 36)
        #expect(inPlace.verified)
        #expect(try manager.attributesOfItem(atPath: patched)[.systemFileNumber] as? Int == inode)
        #expect(try bytes(patched) == bytes(replaced))

        // Copy: the input untouched, the output fixed; refused onto a folder or onto the input.
        let output = folder.path("copy.mov")
        let copy = try MatrixFix.fix(path: original, change: .reset, mode: .copy(to: output))
        #expect(copy.writtenPath == output)
        #expect(try bytes(output) == bytes(replaced))
        #expect(try bytes(original) == bytes(TestMedia.path("orient-6-hevc.mov")))
        let ontoFolder = try #require(throws: ISOBMFFError.self) {
            try MatrixFix.fix(path: original, change: .reset, mode: .copy(to: folder.url.path))
        }
        #expect(ontoFolder.reason.hasSuffix("is a directory"))
        let ontoItself = try #require(throws: ISOBMFFError.self) {
            try MatrixFix.fix(path: patched, change: .reset, mode: .copy(to: patched))
        }
        #expect(ontoItself.reason.contains("is the input itself"))

        // Dry run and already-as-asked: nothing written, not even the modification time.
        let untouched = try folder.copy(original, as: "untouched.mov")
        let modified = try manager.attributesOfItem(atPath: untouched)[.modificationDate] as? Date
        let dry = try MatrixFix.fix(path: untouched, change: .reset, dryRun: true)
        #expect(dry.dryRun && dry.writtenPath == nil && dry.bytesChanged > 0 && dry.bytesWritten == 0)
        let same = try MatrixFix.fix(path: untouched, change: .set(.right))
        #expect(same.bytesChanged == 0 && same.writtenPath == nil)
        #expect(try manager.attributesOfItem(atPath: untouched)[.modificationDate] as? Date == modified)
        #expect(try bytes(untouched) == bytes(original))

        #expect(try manager.contentsOfDirectory(atPath: folder.url.path).allSatisfy { !$0.hasSuffix(".partial") })
    }

    @Test func linksStayWhatTheyAre() throws {
        let folder = try TemporaryFolder("links")
        defer { folder.remove() }
        let manager = FileManager.default
        // A symbolic link: the file it names is replaced, the link stays a link.
        let real = try folder.copy(TestMedia.path("orient-6.mp4"), as: "real.mp4")
        let link = folder.path("link.mp4")
        try manager.createSymbolicLink(atPath: link, withDestinationPath: "real.mp4")
        let result = try MatrixFix.fix(path: link, change: .reset)
        #expect(result.writtenPath == link)
        #expect(try manager.destinationOfSymbolicLink(atPath: link) == "real.mp4")
        #expect(
            try MovieStructure(path: real).videoTracks.first?.matrix.fixedPoint == DisplayMatrix.identity.fixedPoint)
        // A hard link: a replacement would leave the other name with the old content, so only
        // in place is allowed, and both names see the change.
        let other = folder.path("other.mp4")
        try manager.linkItem(atPath: real, toPath: other)
        let refused = try #require(throws: ISOBMFFError.self) { try MatrixFix.fix(path: real, change: .set(.down)) }
        #expect(refused.reason == "the file has 2 hard links, which a replacement would split; use --in-place")
        _ = try MatrixFix.fix(path: real, change: .set(.down), mode: .inPlace)
        #expect(
            try MovieStructure(path: other).videoTracks.first?.matrix.fixedPoint
                == Truth.matrix(3, width: 96, height: 160))
        #expect(try manager.contentsOfDirectory(atPath: folder.url.path).allSatisfy { !$0.hasSuffix(".partial") })
    }

    @Test func readOnlyFileIsRefusedEvenForRoot() throws {
        let folder = try TemporaryFolder("read-only")
        defer { folder.remove() }
        let path = try folder.copy(TestMedia.path("orient-6.mp4"), as: "locked.mp4")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        for mode in [FileWriteMode.replace, .inPlace] {
            let error = try #require(throws: ISOBMFFError.self) {
                try MatrixFix.fix(path: path, change: .reset, mode: mode)
            }
            #expect(error.reason.hasPrefix("file is read-only"))
            let dry = try #require(throws: ISOBMFFError.self) {
                try MatrixFix.fix(path: path, change: .reset, mode: mode, dryRun: true)
            }
            #expect(dry == error)
        }
        #expect(try bytes(path) == bytes(TestMedia.path("orient-6.mp4")))
    }

    @Test func partialFilesOfDeadProcessesAreRemovedAndOthersKept() throws {
        let folder = try TemporaryFolder("partials")
        defer { folder.remove() }
        let path = try folder.copy(TestMedia.path("orient-6.mp4"), as: "clip.mp4")
        // A process that has exited: its pid names a partial nobody will finish.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let abandoned = folder.path(".clip.mp4.vidorient-\(gone.processIdentifier)-1.partial")
        let live = folder.path(".clip.mp4.vidorient-\(getpid())-2.partial")
        let otherFile = folder.path(".other.mp4.vidorient-\(gone.processIdentifier)-3.partial")
        for partial in [abandoned, live, otherFile] {
            #expect(FileManager.default.createFile(atPath: partial, contents: Data([1, 2, 3])))
        }
        _ = try MatrixFix.fix(path: path, change: .reset)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: folder.url.path))
        #expect(left == ["clip.mp4", (live as NSString).lastPathComponent, (otherFile as NSString).lastPathComponent])
    }
}
