import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientTestSupport

/// `vidorient fix` on HEIC and AVIF copies: the photo path plans through `HEIFOrientationFix`,
/// writes, and verifies by reading back.
@Suite
struct HEIFFixCommandTests {
    /// From no transform to a turn (an insertion: a copy renamed over) and back (bytes only).
    @Test(arguments: ["orient-1.heic", "orient-1.avif", "heic-meta-last.heic"])
    func setsAndResetsTheOrientation(name: String) throws {
        let folder = try FixFixture.folder("heif")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try FixFixture.copy(name, to: folder)
        let original = try FixFixture.contents(path)
        let turned = try Run.vidorient(["fix", path, "--orientation", "7"])
        #expect(turned.status == 0, "\(turned.stderr)")
        #expect(turned.stdout.contains("verified"), "\(turned.stdout)")
        #expect(try HEIFStructure(path: path).orientation == .rightMirrored)
        let back = try Run.vidorient(["fix", path, "--orientation", "1"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try HEIFStructure(path: path).orientation == .up)
        // Back at 1, only an unused property and association may differ; the picture is the same.
        let before = try HEIFStructure(path: Run.media(name)), after = try HEIFStructure(path: path)
        for item in before.items {
            #expect(
                try before.data(of: item.id, in: MemoryBytes([UInt8](original)))
                    == after.data(of: item.id, in: FileBytes(path: path)))
        }
        #expect(try FixFixture.leftovers(folder).isEmpty)
    }
}
