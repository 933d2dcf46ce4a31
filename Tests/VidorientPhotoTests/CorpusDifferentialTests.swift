import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientPhoto
import VidorientTestSupport

/// vidorient's photo readers against exiftool on public corpora of real cameras' files, damaged
/// ones included (exiftool's t/images, metadata-extractor-images), fetched by
/// `TestMedia/corpus/fetch.py` into `.build/corpus` (or `$VIDORIENT_CORPUS`); skipped without them.
///
/// The allow-list (docs/photos.md, "The corpus test"): a file vidorient refuses must be one the
/// decoders refuse too (`djpeg` for JPEG, `vips` for PNG, when installed); a file read must give
/// exiftool's Orientation (1 when exiftool has none or a value outside 1-8), except where a
/// finding says why not: `orientation-misplaced` (exiftool reports a value viewers do not read),
/// and a CRW (the camera's Rotation decides; exiftool's Orientation there is XMP it wrote).
@Suite(.enabled(if: Corpus.isPresent, "no corpus: run TestMedia/corpus/fetch.py"))
struct CorpusDifferentialTests {
    static var folder: URL { Corpus.folder }

    static var files: [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            let path = folder.appendingPathComponent(name).path
            var directory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &directory), !directory.boolValue,
                let file = try? FileBytes(path: path), file.size > 0,
                let head = try? file.read(at: 0, count: Int(min(file.size, 64)))
            else { continue }
            let format = MediaFormat(signature: head)
            if case .heif = format { continue }
            if format.isPhoto { found.append(path) }
        }
        return found.sorted()
    }

    static func decoderRefuses(_ path: String, _ format: MediaFormat) throws -> Bool? {
        switch format {
        case .jpeg where isInstalled("djpeg"):
            return try run("djpeg", ["-outfile", "/dev/null", path]).status == 1
        case .png where isInstalled("vips"):
            let folder = try scratchFolder("corpus")
            defer { try? FileManager.default.removeItem(at: folder) }
            return try run("vips", ["copy", path, folder.appendingPathComponent("x.v").path]).status != 0
        default: return nil
        }
    }

    @Test func everyFileAgreesWithExiftoolOrSaysWhyNot() throws {
        let files = Self.files
        #expect(files.count > 100)
        var exiftool: [String: Int] = [:]
        for start in stride(from: 0, to: files.count, by: 500) {
            let batch = Array(files[start..<min(files.count, start + 500)])
            let result = try run("exiftool", ["-n", "-j", "-q", "-q", "-Orientation"] + batch)
            let json = (try? JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]]) ?? []
            for record in json {
                guard let path = record["SourceFile"] as? String else { continue }
                exiftool[path] = (record["Orientation"] as? Int).flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
            }
        }
        var read = 0, refused = 0, allowed = 0
        var problems: [String] = []
        for path in files {
            let evidence: PhotoEvidence
            do {
                evidence = try readPhoto(path)
            } catch {
                refused += 1
                let file = try FileBytes(path: path)
                let head = try file.read(at: 0, count: Int(min(file.size, 64)))
                if try Self.decoderRefuses(path, MediaFormat(signature: head)) == false {
                    problems.append("\(path): refused (\(error)) but the decoder reads it")
                }
                continue
            }
            read += 1
            var findings: [Finding] = []
            let ours = PhotoReport(evidence: evidence, findings: &findings).exifOrientation
            let theirs = exiftool[path] ?? 1
            guard ours != theirs else { continue }
            if findings.contains(where: { $0.code == "orientation-misplaced" }) || evidence.format == .raw("crw") {
                allowed += 1
                continue
            }
            problems.append("\(path): vidorient \(ours), exiftool \(theirs)")
        }
        print("corpus: \(files.count) photos, \(read) read, \(refused) refused, \(allowed) allowed differences")
        #expect(problems.isEmpty, "\(problems.count) disagreements:\n\(problems.joined(separator: "\n"))")
    }
}

/// exiftool's own small raws, given each of the eight orientations by exiftool itself
/// (`-Orientation#=N`, which writes where exiftool reads it: the RAF's JPEG, CR3's CMT1, MRW's TTW,
/// RW2's IFD0), read back by vidorient. CRW is not here: exiftool writes XMP for it, while the
/// camera's Rotation decides (RawContainerTests holds it).
@Suite(.enabled(if: Corpus.isPresent, "no corpus: run TestMedia/corpus/fetch.py"))
struct CorpusRawOrientationTests {
    @Test(arguments: ["CanonRaw.cr3", "FujiFilm.raf", "Minolta.mrw", "Panasonic.rw2", "CanonRaw.cr2", "Nikon.nef"])
    func everyOrientationAsExiftoolWritesIt(name: String) throws {
        let original = Corpus.folder.appendingPathComponent("exiftool/t/images/\(name)")
        try #require(FileManager.default.fileExists(atPath: original.path))
        let folder = try scratchFolder("corpus-raw")
        defer { try? FileManager.default.removeItem(at: folder) }
        for n in 1...8 {
            let copy = folder.appendingPathComponent("\(n)-\(name)")
            try FileManager.default.copyItem(at: original, to: copy)
            let written = try run("exiftool", ["-q", "-m", "-overwrite_original", "-Orientation#=\(n)", copy.path])
            try #require(written.status == 0, "exiftool could not write \(name)")
            let evidence = try readPhoto(copy.path)
            var findings: [Finding] = []
            #expect(PhotoReport(evidence: evidence, findings: &findings).exifOrientation == n, "\(name) \(n)")
        }
    }
}

/// Where `TestMedia/corpus/fetch.py` puts the corpora.
enum Corpus {
    static var folder: URL {
        ProcessInfo.processInfo.environment["VIDORIENT_CORPUS"].map { URL(fileURLWithPath: $0) }
            ?? PackageFolder.root.appendingPathComponent(".build/corpus")
    }
    static var isPresent: Bool { FileManager.default.fileExists(atPath: folder.path) && isInstalled("exiftool") }
}
