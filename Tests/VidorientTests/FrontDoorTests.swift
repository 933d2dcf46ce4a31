import Foundation
import Testing
import Vidorient
import VidorientCore
import VidorientTestSupport

/// A contact sheet spaces its tiles by the clip's duration, the stream's when the container
/// states none (a movie whose `mvhd` duration is 0). It used to take every tile at 0 s.
@Suite struct ContactSheetDurationTests {
    @Test func tilesOfAClipWithoutAContainerDurationDiffer() throws {
        let folder = try TemporaryFolder("sheet")
        defer { folder.remove() }
        var movie = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestMedia.path("orient-1.mp4"))))
        let mvhd = try #require(movie.indices.first { movie[$0..<min($0 + 4, movie.count)].elementsEqual("mvhd".utf8) })
        movie.replaceSubrange(mvhd + 20..<mvhd + 24, with: [0, 0, 0, 0])
        let path = folder.path("no-duration.mp4")
        try Data(movie).write(to: URL(fileURLWithPath: path))
        let sheet = try Thumbnailer(font: nil).contactSheet(path, columns: 2, rows: 1, tileWidth: 80, exact: true)
        let tile = sheet.width / 2
        func column(_ x0: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            for y in 0..<sheet.height {
                let start = (y * sheet.width + x0) * 3
                bytes += sheet.pixels[start..<start + tile * 3]
            }
            return bytes
        }
        #expect(column(0) != column(tile), "both tiles are the same frame")
    }
}

/// What `vidorient thumbnail` plans, as a library user gets it: names, refusals, the walk.
@Suite struct ThumbnailBatchTests {
    @Test func aFolderOfOutputsIsNamedByTheTemplate() throws {
        let batch = try ThumbnailBatch(
            inputs: [TestMedia.path("orient-6.jpg"), TestMedia.path("orient-6.mp4")],
            destination: .folder("out", names: try OutputNameTemplate.parse("{index}-{stem}.{ext}")), format: .jpg,
            layout: .frame)
        #expect(batch.jobs.map(\.output) == ["out/1-orient-6.jpg", "out/2-orient-6.jpg"])
    }

    @Test func twoInputsForOneNameAreRefused() throws {
        #expect(throws: ThumbnailBatch.PlanError.self) {
            try ThumbnailBatch(
                inputs: [TestMedia.path("orient-6.jpg"), TestMedia.path("orient-6.mp4")],
                destination: .folder("out", names: .standard), format: .png, layout: .frame)
        }
        #expect(throws: ThumbnailBatch.PlanError.self) {
            try ThumbnailBatch(
                inputs: [TestMedia.path("orient-6.jpg"), TestMedia.path("orient-5.jpg")], destination: .file("x.png"),
                format: .png, layout: .frame)
        }
        #expect(throws: ValueError.self) { try OutputNameTemplate.parse("{ext}") }
    }

    @Test func aFolderIsWalkedForMedia() throws {
        let folder = try TemporaryFolder("batch")
        defer { folder.remove() }
        _ = try folder.copy(TestMedia.path("orient-6.jpg"), as: "a.jpg")
        try Data("text".utf8).write(to: URL(fileURLWithPath: folder.path("notes.txt")))
        let (files, notes) = ThumbnailBatch.expand([folder.path, folder.path("missing.mp4")])
        #expect(files == [folder.path("a.jpg"), folder.path("missing.mp4")])
        #expect(notes.isEmpty)
    }

    /// `make` renders, encodes and writes one job: the file is there, upright, the size asked.
    @Test func makeWritesThePicture() throws {
        let folder = try TemporaryFolder("batch")
        defer { folder.remove() }
        let output = folder.path("t.png")
        let batch = try ThumbnailBatch(
            inputs: [TestMedia.path("orient-6.jpg")], destination: .file(output), format: .png, layout: .frame)
        let written = try batch.make(batch.jobs[0], request: ThumbnailRequest(width: 40), quality: 90)
        #expect(written.exifOrientation == 6)
        #expect((written.width, written.height) == (40, 24))
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["t.png"])
    }

    @Test func aJobThatCannotBeReadNamesTheFile() throws {
        let batch = try ThumbnailBatch(
            inputs: ["/nonexistent.mp4"], destination: .file("/tmp/never.png"), format: .png, layout: .frame)
        #expect(
            throws: VidorientError(
                path: "/nonexistent.mp4", reason: "no such file or directory", kind: .io, code: ENOENT)
        ) {
            try batch.make(batch.jobs[0], request: ThumbnailRequest(width: 40), quality: 90)
        }
    }
}

/// normalize's whole flow as a library user runs it: `PhotoNormalizer.normalize`.
@Suite struct NormalizeFlowTests {
    @Test func anUprightPhotoIsCopiedByteForByteWithOutput() throws {
        let folder = try TemporaryFolder("normalize")
        defer { folder.remove() }
        let out = folder.path("out.jpg")
        let result = try PhotoNormalizer.normalize(path: TestMedia.path("orient-1.jpg"), output: out)
        #expect(result.status == "already_upright")
        #expect(result.writtenPath == out)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: out))
                == Data(contentsOf: URL(fileURLWithPath: TestMedia.path("orient-1.jpg"))))
    }

    @Test func aDryRunSaysTheSizeAndWritesNothing() throws {
        let folder = try TemporaryFolder("normalize")
        defer { folder.remove() }
        let path = try folder.copy(TestMedia.path("orient-6.jpg"), as: "p.jpg")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let dry = try PhotoNormalizer.normalize(path: path, dryRun: true)
        #expect(dry.status == "would_normalize")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let done = try PhotoNormalizer.normalize(path: path)
        #expect(done.status == "normalized" && done.verified)
        #expect(done.sizeAfter == dry.sizeAfter)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == dry.sizeAfter)
    }

    /// What normalize will not turn is refused (`.unsupported`), naming what to use instead; a file
    /// it cannot read keeps its own kind.
    @Test(arguments: ["orient-6.heic", "orient-6.mp4", "orient-6-ii.tif"])
    func refusalsAreUnsupported(name: String) throws {
        do {
            _ = try PhotoNormalizer.plan(path: TestMedia.path(name))
            Issue.record("\(name) was planned")
        } catch {
            #expect(error.kind == .unsupported)
            #expect(error.reason.contains("vidorient fix"))
        }
        #expect(throws: VidorientError.self) { try PhotoNormalizer.plan(path: "/nonexistent.jpg") }
        do { _ = try PhotoNormalizer.plan(path: "/nonexistent.jpg") } catch { #expect(error.kind == .io) }
    }
}
