import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientTestSupport

/// The read-ahead source gives exactly the file's bytes however the reads jump about: between a
/// file's start and its end (two windows, each refilled in place), across a window's edge, and
/// in a file smaller than a window.
@Suite struct ReadAheadBytesTests {
    /// A file of `count` pseudo-random bytes, and the bytes.
    static func file(_ folder: TemporaryFolder, count: Int, seed: UInt64) throws -> (String, [UInt8]) {
        var random = SplitMix64(state: seed)
        let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let path = folder.path("f-\(count).bin")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    @Test(arguments: [1000, 70_000, 3 * 65_536 + 17])
    func everyReadGivesTheFilesBytes(count: Int) throws {
        let folder = try TemporaryFolder("read-ahead")
        defer { folder.remove() }
        let (path, bytes) = try Self.file(folder, count: count, seed: UInt64(count))
        // A small window, so that the file holds several: the reads below refill both windows.
        let source = ReadAheadBytes(try FileBytes(path: path), windowSize: 16_384)
        var random = SplitMix64(state: 7)
        // Back and forth between the start and the end (a moov after the mdat), then anywhere.
        var reads: [(Int, Int)] = [(0, 8), (count - 8, 8), (8, 24), (count - 100, 100), (0, 8), (count - 1, 1)]
        for _ in 0..<400 {
            let length = Int(random.next() % 5000)
            let offset = Int(random.next() % UInt64(count - min(length, count) + 1))
            reads.append((offset, min(length, count - offset)))
        }
        for (offset, length) in reads {
            #expect(try source.read(at: Int64(offset), count: length) == Array(bytes[offset..<offset + length]))
        }
        #expect(throws: VidorientError.self) { try source.read(at: Int64(count - 4), count: 8) }
    }
}
