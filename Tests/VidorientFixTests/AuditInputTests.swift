import Foundation
import Testing
import VidorientCore
import VidorientFix
import VidorientTestSupport

/// An audit read back as one document: what is wrong with it is said as it is.
@Suite struct AuditInputTests {
    struct Named: Decodable { var path: String }

    /// A bare array of records with one bad record names that record's fault; it once tried the
    /// `{"files": …}` shape next and said only that an array is not a dictionary.
    @Test func aBareArrayWithABadRecordSaysWhichKeyIsMissing() throws {
        let folder = try scratchFolder("audit-input")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("audit.json").path
        try Data("[\n{\"path\": \"a.mp4\"},\n{\"name\": \"b.mp4\"}\n]\n".utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: VidorientError.self) { try AuditInput<Named>.records(at: path) }
        let reason = error?.reason ?? ""
        #expect(reason.contains("path"), "\(reason)")
        #expect(!reason.lowercased().contains("dictionary"), "\(reason)")
    }

    @Test func theAuditJSONDocumentAndABareArrayBothRead() throws {
        let folder = try scratchFolder("audit-input")
        defer { try? FileManager.default.removeItem(at: folder) }
        let document = folder.appendingPathComponent("document.json").path
        let array = folder.appendingPathComponent("array.json").path
        try Data("{\n\"files\": [{\"path\": \"a.mp4\"}, {\"path\": \"b.mp4\"}]\n}\n".utf8)
            .write(to: URL(fileURLWithPath: document))
        try Data("[\n{\"path\": \"a.mp4\"}, {\"path\": \"b.mp4\"}\n]\n".utf8).write(to: URL(fileURLWithPath: array))
        #expect(try AuditInput<Named>.records(at: document).map(\.path) == ["a.mp4", "b.mp4"])
        #expect(try AuditInput<Named>.records(at: array).map(\.path) == ["a.mp4", "b.mp4"])
    }
}
