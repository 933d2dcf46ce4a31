import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientTestSupport

/// Issue 24, item 2, as a user meets it: `fix IMG.HEIC --orientation 1` turned the primary item
/// and left the thumbnail item turned the old way (heif-info showed the thumbnail in the other
/// shape, exiftool -a -Rotation two values) and inspect said nothing.
@Suite struct HEIFThumbnailCommandTests {
    static var files: [String] {
        [TestMedia.path("heic-thumbnail-6.heic"), TestMedia.path("heic-thumbnail-shared-5.heic")]
            + (SharedMedia.isPresent ? ["IMG_2682.heic", "samsung-one-ui-6.heic"].map(SharedMedia.path) : [])
    }

    static func findingCodes(_ path: String) throws -> [String] {
        let inspect = try Run.vidorient(["inspect", "--json", path])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let object = try #require(inspect.json as? [String: Any])
        return (object["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    /// heif-info's primary and thumbnail sizes, as shown.
    static func shownSizes(_ path: String) throws -> (primary: [Int], thumbnail: [Int]) {
        let text = String(decoding: try run("heif-info", [path]).stdout, as: UTF8.self)
        func size(after label: String) -> [Int] {
            guard let range = text.range(of: label) else { return [] }
            return text[range.upperBound...].prefix { $0.isNumber || $0 == "x" }.split(separator: "x").compactMap {
                Int($0)
            }
        }
        return (size(after: "image: "), size(after: "thumbnail: "))
    }

    @Test(.enabled(if: isInstalled("heif-info") && isInstalled("exiftool")))
    func fixTurnsTheThumbnailAndUndoGivesEveryByteBack() throws {
        let folder = try FixFixture.folder("heif-thumbnail")
        defer { try? FileManager.default.removeItem(at: folder) }
        for source in Self.files {
            let path = folder.appendingPathComponent(URL(fileURLWithPath: source).lastPathComponent).path
            try FileManager.default.copyItem(atPath: source, toPath: path)
            // ../shared/media is read-only, and so are copies of it.
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            let original = try FixFixture.contents(path)
            let journal = folder.appendingPathComponent("fixes.jsonl").path
            try? FileManager.default.removeItem(atPath: journal)
            #expect(!(try Self.findingCodes(path)).contains("thumbnail-shape-differs"))

            for target in [1, 8, 2] {
                let fix = try Run.vidorient(["fix", path, "--orientation", "\(target)", "--journal", journal])
                #expect(fix.status == 0, "\(fix.stderr)")
                let shown = try Self.shownSizes(path)
                #expect(shown.primary.count == 2 && shown.thumbnail.count == 2, "\(path)")
                if shown.primary.count == 2 && shown.thumbnail.count == 2 {
                    #expect(
                        (shown.primary[0] > shown.primary[1]) == (shown.thumbnail[0] > shown.thumbnail[1]),
                        "\(path) -> \(target): \(shown)")
                }
                let tool = try run("exiftool", ["-a", "-n", "-s3", "-Rotation", path])
                let rotations = String(decoding: tool.stdout, as: UTF8.self).split(separator: "\n").compactMap {
                    Int($0)
                }
                // One value for every irot box; without a mirror, the target's anticlockwise turn.
                let orientation = try #require(Orientation(exif: target))
                let turn = (360 - orientation.rotation) % 360
                #expect(Set(rotations).count == 1, "\(path) -> \(target): \(rotations)")
                if !orientation.isMirrored { #expect(rotations.allSatisfy { $0 == turn }, "\(path) -> \(target)") }
                #expect(!(try Self.findingCodes(path)).contains("thumbnail-shape-differs"))
            }

            let undo = try Run.vidorient(["fix", "--undo", journal])
            #expect(undo.status == 0, "\(undo.stderr)")
            #expect(try FixFixture.contents(path) == original, "\(path)")
        }
    }

    /// A thumbnail left turned the old way (its own irot made 0, as a fix of the primary item
    /// alone leaves it): inspect says so, and heif-info shows the same disagreement.
    @Test(.enabled(if: isInstalled("heif-info")))
    func inspectFlagsAThumbnailLeftTurnedTheOldWay() throws {
        let folder = try FixFixture.folder("heif-thumbnail-stale")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sources =
            [TestMedia.path("heic-thumbnail-6.heic")]
            + (SharedMedia.isPresent ? [SharedMedia.path("samsung-one-ui-6.heic")] : [])
        for source in sources {
            var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: source)))
            let layout = try HEIFLayout(MemoryBytes(bytes)), structure = try HEIFStructure(MemoryBytes(bytes))
            let thumbnail = try #require(structure.referring(to: structure.primaryItemID, type: "thmb").first)
            let own = layout.associationBoxes.flatMap(\.entries).filter { $0.itemID == thumbnail }
                .flatMap(\.associations).map(\.propertyIndex).filter { layout.properties[$0 - 1].type == "irot" }
            let irot = try #require(own.first)
            bytes[Int(layout.properties[irot - 1].payloadOffset)] = 0
            let path = folder.appendingPathComponent("stale.heic").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))

            let shown = try Self.shownSizes(path)
            #expect((shown.primary[0] > shown.primary[1]) != (shown.thumbnail[0] > shown.thumbnail[1]))
            #expect(try Self.findingCodes(path).contains("thumbnail-shape-differs"), "\(source)")
            let text = try Run.vidorient(["inspect", path])
            #expect(text.stdout.contains("\(shown.thumbnail[0])x\(shown.thumbnail[1])"), "\(text.stdout)")
        }
    }
}
