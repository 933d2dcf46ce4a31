import Foundation
import Testing
import VidorientAudit
import VidorientCore
import VidorientTestSupport

@testable import Vidorient

/// inspect, audit, thumbnail and the content judge read a file through the one `Prober`: on every
/// file of TestMedia and of the shared corpus they show the same orientation, and the pixels a
/// thumbnail or the judge makes are turned as inspect's report says. A file inspect cannot read,
/// thumbnail and the judge refuse with the same reason.
@Suite struct ReaderChainTests {
    /// Every media file of TestMedia (its script, manifest and README left out).
    static let testMedia: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: TestMedia.folder.path)) ?? []
        return names.filter { name in
            var folder: ObjCBool = false
            FileManager.default.fileExists(atPath: TestMedia.path(name), isDirectory: &folder)
            return !folder.boolValue && !["md", "sh", "json", "py", "txt"].contains((name as NSString).pathExtension)
        }.sorted()
    }()

    @Test func theListIsTheFolder() {
        #expect(Self.testMedia.count >= 100)
        #expect(Set(TestMedia.entries.map(\.name)).isSubset(of: Set(Self.testMedia)))
    }

    @Test(arguments: testMedia)
    func everyCommandShowsInspectsOrientation(name: String) throws {
        try Self.agree(TestMedia.path(name))
    }

    @Test(
        .enabled(if: SharedMedia.isPresent, "../shared/media is absent"),
        arguments: SharedMedia.names.filter { $0 != "README.md" })
    func everyCorpusFileToo(name: String) throws {
        try Self.agree(SharedMedia.path(name))
    }

    /// The picture a frame should be: its stored pixels turned as `report` (inspect's) decides, by
    /// Core's one rule (`ThumbnailGeometry.orient`).
    static func applied(_ report: MediaReport, to stored: Picture) throws -> Picture {
        let geometry: ThumbnailGeometry
        if let photo = report.photo {
            geometry = try ThumbnailGeometry(
                storedWidth: stored.width, storedHeight: stored.height, orientation: photo.orientation,
                request: ThumbnailRequest())
        } else {
            geometry = try ThumbnailGeometry(
                storedWidth: stored.width, storedHeight: stored.height, sampleAspectRatio: 1, video: report.video,
                request: ThumbnailRequest())
        }
        return geometry.orient(stored)
    }

    static func agree(_ path: String) throws {
        let small = ThumbnailRequest(width: 96, height: 96)
        let inspected: InspectedFile
        do {
            inspected = try Prober().inspection(path)
        } catch {
            // One reading, one reason: what inspect says is what thumbnail and the judge say.
            let thumbnail = #expect(throws: InputError.self) { try Thumbnailer().frame(path, request: small) }
            #expect(thumbnail?.reason == error.reason, "\(path)")
            let judged = #expect(throws: InputError.self) {
                try ContentJudge().frames(PictureSource(path, request: ContentJudge.request))
            }
            #expect(judged?.reason == error.reason, "\(path)")
            return
        }
        let shown = inspected.report.shown
        // The audit reads with `inspectOrientation` (the box headers may be enough): the same decision.
        let record = Auditor.audit(path, options: AuditOptions())
        #expect(!record.isUnreadable, "\(path): inspect reads it, the audit does not: \(record.findings)")
        var audited = inspected.report
        (audited.video, audited.photo) = (record.video, record.photo)
        #expect(
            audited.shown == shown,
            "\(path): audit \(String(describing: audited.shown)), inspect \(String(describing: shown))")
        guard shown != nil else {
            // No picture (an audio file): nothing to render.
            #expect(throws: InputError.self) { try Thumbnailer().frame(path, request: small) }
            return
        }
        let frame: Thumbnailer.Frame
        do {
            frame = try Thumbnailer().frame(path, request: small)
        } catch {
            // Pixels that do not decode (a file built damaged) have no orientation to compare; any
            // other file must render.
            #expect(TestMedia.entry((path as NSString).lastPathComponent)?.bad == true, "\(path): \(error)")
            return
        }
        #expect(frame.report.shown == shown, "\(path)")
        #expect(try applied(inspected.report, to: frame.stored) == frame.picture, "\(path): thumbnail")
        for judged in try ContentJudge().frames(PictureSource(path, request: ContentJudge.request)) {
            #expect(judged.report.shown == shown, "\(path)")
            #expect(try applied(inspected.report, to: judged.stored) == judged.picture, "\(path): content judge")
        }
    }
}
