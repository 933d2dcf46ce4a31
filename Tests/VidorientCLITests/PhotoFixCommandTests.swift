import Foundation
import Testing
import VidorientCore
import VidorientISOBMFF
import VidorientTestSupport

/// `vidorient fix` on photos, run as a user runs it, on copies in a temporary folder.
@Suite
struct PhotoFixCommandTests {
    static func exifOrientation(_ path: String) throws -> Int? {
        let text = String(decoding: try run("exiftool", ["-s3", "-n", "-Orientation", path]).stdout, as: UTF8.self)
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func namesEachPlaceAndTheBytesChanged() throws {
        let folder = try FixFixture.folder("photo-set")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("orient-6.jpg", to: folder)
        let run = try Run.vidorient(["fix", path, "--orientation", "1"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        #expect(run.stdout.contains("jpeg      EXIF 6: rotate 90° clockwise -> EXIF 1: no rotation"))
        #expect(run.stdout.contains("changes   APP1 EXIF IFD0 Orientation: 6 -> 1"))
        #expect(run.stdout.contains("written   \(path) (1 byte changed, verified)"))
        #expect(try Self.exifOrientation(path) == 1)
        #expect(try FixFixture.leftovers(folder).isEmpty)
    }

    @Test func jsonHasEveryKey() throws {
        let folder = try FixFixture.folder("photo-json")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("no-exif.jpg", to: folder)
        let run = try Run.vidorient(["fix", path, "--orientation", "6", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(run.json as? [String: Any])
        let keys: Set<String> = [
            "schema_version", "path", "path_bytes", "kind", "format", "dry_run", "mode", "written_path",
            "written_path_bytes",
            "verified", "bytes_changed", "size_change", "bytes_written", "before", "after", "places", "splices",
            "warnings",
        ]
        #expect(Set(object.keys) == keys)
        #expect(object["kind"] as? String == "photo")
        #expect(object["format"] as? String == "jpeg")
        #expect(object["mode"] as? String == "replace")
        #expect(object["verified"] as? Bool == true)
        #expect(object["size_change"] as? Int == 36)
        #expect(object["path_bytes"] is NSNull)
        let before = try #require(object["before"] as? [String: Any])
        #expect(Set(before.keys) == ["exif_orientation", "rotation", "mirrored"])
        #expect(before["exif_orientation"] as? Int == 1)
        let after = try #require(object["after"] as? [String: Any])
        #expect(after["exif_orientation"] as? Int == 6)
        #expect(after["rotation"] as? Int == 90)
        let places = try #require(object["places"] as? [String])
        #expect(places.count == 1 && places[0].hasPrefix("new APP1 EXIF"))
        let splices = try #require(object["splices"] as? [[String: Any]])
        #expect(splices.count == 1)
        #expect(Set(splices[0].keys) == ["offset", "old_length", "new_length", "bytes_changed"])
        #expect(splices[0]["old_length"] as? Int == 0 && splices[0]["new_length"] as? Int == 36)
    }

    /// As for videos: `+90` turns the picture as shown a further quarter clockwise.
    @Test(arguments: [(1, 6), (2, 7), (3, 8), (4, 5), (5, 2), (6, 3), (7, 4), (8, 1)])
    func relativeRotationComposesWithWhatTheFileShows(from: Int, expected: Int) throws {
        let folder = try FixFixture.folder("photo-rotate")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("orient-\(from).webp", to: folder)
        let original = try FixFixture.contents(path)
        #expect(try Run.vidorient(["fix", path, "--rotate", "+90"]).status == 0)
        #expect(try Self.exifOrientation(path) == expected)
        #expect(try Run.vidorient(["fix", path, "--rotate", "-90", "--in-place"]).status == 0)
        #expect(try FixFixture.contents(path) == original)
    }

    @Test func inPlaceIsRefusedWhenBytesMustBeInsertedAndWorksOtherwise() throws {
        let folder = try FixFixture.folder("photo-inplace")
        defer { try? FileManager.default.removeItem(at: folder) }
        let bare = try FixFixture.copy("no-exif.jpg", to: folder)
        let original = try FixFixture.contents(bare)
        let refused = try Run.vidorient(["fix", bare, "--orientation", "6", "--in-place"])
        #expect(refused.status == 2)
        #expect(refused.stderrLines.count == 1)
        #expect(refused.stderr.contains("could not fix '\(bare)': this fix must insert 36 bytes"))
        #expect(refused.stderr.contains("leave out --in-place"))
        #expect(try FixFixture.contents(bare) == original)

        let tagged = try FixFixture.copy("orient-6-mm.tif", to: folder)
        var before = stat()
        #expect(stat(tagged, &before) == 0)
        let run = try Run.vidorient(["fix", tagged, "--reset", "--in-place", "--json"])
        #expect(run.status == 0)
        var after = stat()
        #expect(stat(tagged, &after) == 0)
        #expect(before.st_ino == after.st_ino, "in place keeps the file")
        #expect((run.json as? [String: Any])?["mode"] as? String == "in_place")
        #expect(try Self.exifOrientation(tagged) == 1)
    }

    @Test func dryRunAndCopyLeaveTheInputAlone() throws {
        let folder = try FixFixture.folder("photo-dry")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy("orient-3.png", to: folder)
        let original = try FixFixture.contents(path)
        let dry = try Run.vidorient(["fix", path, "--orientation", "8", "--dry-run"])
        #expect(dry.status == 0)
        #expect(dry.stdout.contains("bytes would change; nothing written"))
        #expect(try FixFixture.contents(path) == original)
        let output = folder.appendingPathComponent("out.png").path
        let copy = try Run.vidorient(["fix", path, "--orientation", "8", "-o", output])
        #expect(copy.status == 0, "\(copy.stderr)")
        #expect(try FixFixture.contents(path) == original)
        #expect(try Self.exifOrientation(output) == 8)
        let same = try Run.vidorient(["fix", path, "--orientation", "3"])
        #expect(same.stdout.contains("unchanged already as asked; nothing written"))
    }

    @Test func photosAndVideosTogetherGiveOneArray() throws {
        let folder = try FixFixture.folder("photo-mixed")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = try FixFixture.copy("orient-5.jpg", to: folder)
        let video = try FixFixture.copy("orient-5.mp4", to: folder)
        let run = try Run.vidorient(["fix", photo, video, "--reset", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let list = try #require(run.json as? [[String: Any]])
        #expect(list.count == 2)
        #expect(list[0]["kind"] as? String == "photo")
        #expect(list[1]["changes"] is [Any])
        #expect(try Self.exifOrientation(photo) == 1)
    }

    @Test func preserveMtimeKeepsTheModificationTime() throws {
        let folder = try FixFixture.folder("photo-mtime")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, preserve) in [("orient-6.png", true), ("orient-6.mp4", true), ("orient-6.webp", false)] {
            let path = try FixFixture.copy(name, to: folder)
            var times = [timespec(tv_sec: 1_200_000_000, tv_nsec: 5), timespec(tv_sec: 1_300_000_000, tv_nsec: 7)]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
            let run = try Run.vidorient(["fix", path, "--orientation", "3"] + (preserve ? ["--preserve-mtime"] : []))
            #expect(run.status == 0, "\(run.stderr)")
            var status = stat()
            #expect(stat(path, &status) == 0)
            #expect((status.st_mtim.tv_sec == 1_300_000_000 && status.st_mtim.tv_nsec == 7) == preserve, "\(name)")
        }
    }

    /// SIGKILL while a photo's fixed copy is being written: the path holds the whole original
    /// or the whole fixed file, never a mix, and a later run cleans up.
    @Test func killedMidWriteLeavesAWholePhoto() throws {
        let folder = try FixFixture.folder("photo-kill")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A valid JPEG of 128 MiB: orient-6.jpg followed by bytes after its end-of-image marker,
        // as motion photos carry their video.
        let pristine = folder.appendingPathComponent("pristine.jpg").path
        #expect(
            FileManager.default.createFile(
                atPath: pristine, contents: try FixFixture.contents(Run.media("orient-6.jpg"))))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: pristine))
        try handle.seekToEnd()
        let block = Data(repeating: 0x5A, count: 8 << 20)
        for _ in 0..<16 { handle.write(block) }
        try handle.close()
        let original = try FixFixture.contents(pristine)

        let path = folder.appendingPathComponent("big.jpg").path
        var killedMidWrite = 0
        for delay in [0, 2, 10, 40] {
            let killed = try FixFixture.killFixWhileWriting(pristine, at: path, in: folder, delay: delay)

            let now = try FixFixture.contents(path)
            #expect(now.count == original.count, "delay \(delay)")
            // The tag is in the first bytes; the rest is compared whole (memcmp, not byte by byte).
            #expect(now.count == original.count && now.dropFirst(4096) == original.dropFirst(4096), "delay \(delay)")
            let differing = zip(now.prefix(4096), original.prefix(4096)).enumerated().filter {
                $0.element.0 != $0.element.1
            }.map(\.offset)
            // The old file, or the new one: exactly the Orientation value byte differs.
            #expect(
                differing.isEmpty || (differing.count == 1 && original[differing[0]] == 6 && now[differing[0]] == 3),
                "delay \(delay)")
            let others = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                !["big.jpg", "pristine.jpg"].contains($0) && !$0.hasSuffix(".partial")
            }
            #expect(others.isEmpty, "\(others)")
            let partials = try FixFixture.leftovers(folder)
            #expect(partials.allSatisfy { $0.hasPrefix(".big.jpg.vidorient-") }, "\(partials)")
            if killed && differing.isEmpty && !partials.isEmpty { killedMidWrite += 1 }
        }
        #expect(killedMidWrite > 0, "no kill landed while the copy was being written")
        let finish = try Run.vidorient(["fix", path, "--orientation", "3"])
        #expect(finish.status == 0, "\(finish.stderr)")
        #expect(try Self.exifOrientation(path) == 3)
        #expect(try FixFixture.leftovers(folder).isEmpty)
    }

    @Test func unreadablePhotosGiveOneLineEach() throws {
        let folder = try FixFixture.folder("photo-bad")
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = folder.appendingPathComponent("empty.jpg").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let truncated = folder.appendingPathComponent("cut.png").path
        #expect(
            FileManager.default.createFile(
                atPath: truncated, contents: try FixFixture.contents(Run.media("orient-6.png")).prefix(100)))
        let good = try FixFixture.copy("orient-6.jpg", to: folder)
        let run = try Run.vidorient(["fix", empty, truncated, good, "--orientation", "1"])
        #expect(run.status == 2)
        // One line per bad file, then the batch's summary.
        #expect(run.stderrLines.count == 3, "\(run.stderr)")
        #expect(run.stderrLines.prefix(2).allSatisfy { $0.hasPrefix("vidorient: could not fix '") })
        #expect(run.stderrLines.last == "vidorient: fixed 1, already right 0, refused 0, failed 2")
        #expect(try Self.exifOrientation(good) == 1, "a bad file does not stop the others")
        #expect(try FixFixture.contents(truncated).count == 100)
    }
}
