import Foundation
import Testing
import VidorientTestSupport

/// Issue 29: what exiftool users script with. `--print` has the date (ISO 8601), make, model, GPS
/// coordinates, duration and the content verdict; a photo's JSON has its position and an ISO date;
/// `--where FIELD OP VALUE` selects files on inspect and audit, as exiftool's `-if`.
@Suite(.enabled(if: isInstalled("exiftool") && isInstalled("ffprobe"), "exiftool or ffprobe is not installed"))
struct ReportFieldCommandTests {
    /// A folder with a photo whose EXIF has a date, a maker and a position (written by exiftool),
    /// one whose GPS block has no coordinates, and a clip.
    static func library() throws -> TemporaryFolder {
        let folder = try TemporaryFolder("report-fields")
        let placed = try folder.copy(Run.media("no-exif.jpg"), as: "placed.jpg")
        let tagged = try run(
            "exiftool",
            [
                "-q", "-overwrite_original", "-DateTimeOriginal=2019:03:21 11:04:22", "-OffsetTimeOriginal=-05:00",
                "-Make=Apple", "-Model=iPhone 7", "-GPSLatitude=41.2203", "-GPSLatitudeRef=N",
                "-GPSLongitude=96.071625", "-GPSLongitudeRef=W", "-GPSAltitude=330", "-GPSAltitudeRef=0", placed,
            ])
        try #require(tagged.status == 0, "\(tagged.stderr)")
        let empty = try folder.copy(Run.media("no-exif.jpg"), as: "empty-gps.jpg")
        let emptied = try run(
            "exiftool",
            ["-q", "-overwrite_original", "-Make=Nikon", "-GPSVersionID=2.3.0.0", "-GPSMapDatum=WGS-84", empty])
        try #require(emptied.status == 0, "\(emptied.stderr)")
        _ = try folder.copy(Run.media("orient-6.mp4"), as: "clip.mp4")
        return folder
    }

    @Test func printHasDateMakeModelGPSAndDuration() throws {
        let folder = try Self.library()
        defer { folder.remove() }
        let fields = "path,date,make,model,gps,duration"
        let run = try Run.vidorient(
            [
                "inspect", "--print", fields, folder.path("placed.jpg"), folder.path("empty-gps.jpg"),
                folder.path("clip.mp4"),
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let probe = try VidorientTestSupport.run(
            "ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", folder.path("clip.mp4")])
        let duration = try #require(
            Double(String(decoding: probe.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        let lines = run.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        try #require(lines.count == 3, "\(run.stdout)")
        #expect(
            lines[0] == [
                folder.path("placed.jpg"), "2019-03-21T11:04:22-05:00", "Apple", "iPhone 7", "41.2203,-96.071625", "-",
            ])
        // A GPS block that holds no coordinates is no position.
        #expect(lines[1] == [folder.path("empty-gps.jpg"), "-", "Nikon", "-", "-", "-"])
        #expect(lines[2].prefix(5) == [folder.path("clip.mp4"), "-", "-", "-", "-"])
        #expect(abs((Double(lines[2][5]) ?? -1) - duration) < 0.001, "\(lines[2]) against ffprobe's \(duration)")
    }

    @Test func aPhotosJSONHasItsPositionAndAnISODate() throws {
        let folder = try Self.library()
        defer { folder.remove() }
        let run = try Run.vidorient(["inspect", "--json", folder.path("placed.jpg"), folder.path("empty-gps.jpg")])
        #expect(run.status == 0, "\(run.stderr)")
        let photos = try #require(run.json as? [[String: Any]]).map { $0["photo"] as? [String: Any] }
        try #require(photos.count == 2)
        #expect(photos[0]?["capture_date"] as? String == "2019-03-21T11:04:22-05:00")
        #expect(photos[0]?["gps"] as? Bool == true)
        let location = try #require(photos[0]?["location"] as? [String: Any])
        #expect(abs((location["latitude"] as? Double ?? 0) - 41.2203) < 1e-6)
        #expect(abs((location["longitude"] as? Double ?? 0) - -96.071625) < 1e-6)
        #expect(location["altitude"] as? Double == 330)
        // exiftool reads back the same position.
        let exif = try VidorientTestSupport.run("exiftool", ["-n", "-s3", "-GPSPosition", folder.path("placed.jpg")])
        #expect(String(decoding: exif.stdout, as: UTF8.self).hasPrefix("41.2203 -96.071625"))
        #expect(photos[1]?["gps"] as? Bool == false)
        #expect(photos[1]?["location"] is NSNull)
    }

    @Test func whereSelectsFilesOnInspect() throws {
        let folder = try Self.library()
        defer { folder.remove() }
        let select = { (conditions: [String]) throws -> [String] in
            let run = try Run.vidorient(
                ["inspect", "--print", "path"] + conditions.flatMap { ["--where", $0] } + [folder.url.path])
            #expect(run.status == 0, "\(conditions): \(run.stderr)")
            return run.stdout.split(separator: "\n").map { ($0 as NSString).lastPathComponent }
        }
        #expect(try select(["kind=photo"]) == ["empty-gps.jpg", "placed.jpg"])
        #expect(try select(["gps!=-"]) == ["placed.jpg"])
        #expect(try select(["make ~ APP*"]) == ["placed.jpg"])
        #expect(try select(["make!~app*", "kind=photo"]) == ["empty-gps.jpg"])
        #expect(try select(["date<2020"]) == ["placed.jpg"])
        #expect(try select(["date>2020"]) == [])
        #expect(try select(["rotation>=90", "duration>0.5"]) == ["clip.mp4"])
        #expect(try select(["orientation=6"]) == ["clip.mp4"])
        // JSON keeps the same files.
        let json = try Run.vidorient(["inspect", "--json", "--where", "kind=video", folder.url.path])
        #expect((json.json as? [[String: Any]])?.count == 1)
    }

    @Test func whereSelectsRecordsOnAudit() throws {
        let folder = try Self.library()
        defer { folder.remove() }
        let run = try Run.vidorient(["audit", "--jsonl", "--where", "kind=photo", "--where", "gps=-", folder.url.path])
        #expect([0, 1].contains(run.status), "\(run.stderr)")
        let paths = run.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["path"] as? String
        }
        #expect(paths == [folder.path("empty-gps.jpg")])
        let human = try Run.vidorient(["audit", "--info", "--where", "make=Apple", folder.url.path])
        #expect(human.stdout.contains("1 file in"), "\(human.stdout)")
        #expect(human.stdout.contains("skipped: where"), "\(human.stdout)")
    }

    @Test(arguments: [
        ["inspect", "--where", "colour=red"], ["inspect", "--where", "make"], ["inspect", "--where", "=Apple"],
        ["audit", "--where", "duration>1"], ["audit", "--where", "rotation?90"], ["inspect", "--print", "make,lens"],
    ])
    func aBadFieldOrOperatorIsUsage(arguments: [String]) throws {
        let run = try Run.vidorient(arguments + [Run.media("orient-6.mp4")])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains(arguments[1]), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// The content verdict as a field: what `--content --json` says, on scikit-image's astronaut.
    @Test(.enabled(if: ContentPhotos.isPresent, "scikit-image's sample photos are absent"))
    func printHasTheContentVerdict() throws {
        let path = ContentPhotos.path(ContentPhotos.face)
        let printed = try Run.vidorient(["inspect", "--content", "--print", "content,confidence", path])
        #expect(printed.status == 0, "\(printed.stderr)")
        let json = try Run.vidorient(["inspect", "--content", "--json", path])
        let content = try #require((json.json as? [String: Any])?["content"] as? [String: Any])
        let confidence = try #require(content["confidence"] as? Double)
        let fields = printed.stdout.trimmingCharacters(in: .newlines).split(separator: "\t").map(String.init)
        #expect(fields.first == content["verdict"] as? String && fields.first == "upright")
        #expect(abs((Double(fields.last ?? "") ?? -1) - confidence) < 0.0006)
        let kept = try Run.vidorient(["inspect", "--content", "--print", "path", "--where", "content=upright", path])
        #expect(kept.stdout == path + "\n")
    }
}
