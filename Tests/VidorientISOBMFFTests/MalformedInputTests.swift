import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientTestSupport

/// A buffer that counts reads the parser asked for past its end. The parser must check every
/// size before it reads, so the count stays 0: a read stopped only by the source's own bounds
/// check would be a missing check in the parser.
final class CountingSource: ByteSource {
    let bytes: [UInt8]
    private(set) var readsPastTheEnd = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var size: Int64 { Int64(bytes.count) }

    func read(at offset: Int64, count: Int) throws(ISOBMFFError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset + Int64(count) <= size else {
            readsPastTheEnd += 1
            throw ISOBMFFError(.malformed, "read past the end")
        }
        return Array(bytes[Int(offset)..<Int(offset) + count])
    }
}

/// Every box start in a file, found by a walk written independently of the reader under test.
func boxStarts(_ file: [UInt8]) -> [(offset: Int, size: Int)] {
    let containers: Set<String> = [
        "moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "udta", "mvex", "ilst", "tref",
    ]
    var found: [(Int, Int)] = []
    func be32(_ at: Int) -> Int {
        Int(UInt32(file[at]) << 24 | UInt32(file[at + 1]) << 16 | UInt32(file[at + 2]) << 8 | UInt32(file[at + 3]))
    }
    func walk(_ start: Int, _ end: Int) {
        var position = start
        while position + 8 <= end {
            let size = be32(position)
            guard size >= 8, position + size <= end else { return }
            found.append((position, size))
            let type = String(decoding: file[position + 4..<position + 8], as: UTF8.self)
            if containers.contains(type) { walk(position + 8, position + size) }
            if type == "meta" {
                // QuickTime's meta is a plain box, ISO's a full box (4 more bytes).
                let quickTime =
                    position + 16 <= end
                    && String(decoding: file[position + 12..<position + 16], as: UTF8.self) == "hdlr"
                walk(position + (quickTime ? 8 : 12), position + size)
            }
            if type == "stsd" { walk(position + 16, position + size) }
            position += size
        }
    }
    walk(0, file.count)
    return found
}

@Suite struct MalformedInputTests {
    static let generated = ["orient-6.mp4", "orient-7-hevc.mov", "audio-first.mov", "cover-art.m4a"].map(TestMedia.path)
    /// The real files are larger and slower to check, so the most numerous mutations skip them.
    static let real = SharedMedia.isPresent ? ["iphone_rotated.mov", "dolbyVision-hdr.MOV"].map(SharedMedia.path) : []

    /// What one mutated file must give: a structure or an `ISOBMFFError`, never a crash or a
    /// read past the end; when it parses, every matrix it reports is really at its offset, and
    /// fixing the orientation in memory reads back as planned.
    static func check(_ file: [UInt8], _ label: String) -> Bool {
        let source = CountingSource(file)
        var parsed = false
        do {
            let movie = try MovieStructure(source)
            parsed = true
            let matrices = movie.tracks.map(\.matrix) + [movie.movieHeader.matrix]
            for matrix in matrices {
                let start = Int(matrix.offset)
                #expect(start >= 0 && start + 36 <= file.count, "\(label)")
                if start >= 0 && start + 36 <= file.count {
                    #expect(Array(file[start..<start + 36]) == matrix.bytes, "\(label)")
                }
            }
            for track in movie.tracks where !track.timedMetadataKeys.isEmpty {
                _ = try? track.timedMetadataSamples(in: source)
            }
            if let plan = try? MatrixFix(movie, change: .set(.right), resetMovieMatrix: true) {
                let fixed = plan.applied(to: file)
                do {
                    #expect(try MovieStructure(MemoryBytes(fixed)) == plan.expectedStructure(from: movie), "\(label)")
                } catch {
                    Issue.record("\(label): the fixed file does not read back: \(error)")
                }
            }
        } catch {
            #expect(!error.reason.isEmpty, "\(label)")
        }
        #expect(source.readsPastTheEnd == 0, "\(label): the reader asked for bytes past the end")
        return parsed
    }

    @Test func truncatedAtEveryBoxBoundary() throws {
        var cases = 0, parsed = 0
        for path in Self.generated + Self.real {
            let file = try bytes(path)
            for (offset, size) in boxStarts(file) {
                for cut in [offset, offset + 3, offset + 8, offset + size - 1] where cut < file.count {
                    cases += 1
                    if Self.check(Array(file[..<cut]), "\(path) cut at \(cut)") { parsed += 1 }
                }
            }
        }
        #expect(cases > 400)
        // A cut just before a top-level box that follows moov leaves a whole, readable file;
        // every other cut leaves a box overrunning the file.
        #expect(parsed > 0 && parsed < cases)
    }

    @Test func sizesSetToWrongValues() throws {
        var cases = 0, parsed = 0
        for path in Self.generated {
            let file = try bytes(path)
            for (offset, size) in boxStarts(file) {
                let small: [UInt32] = [0, 1, 7, UInt32.max, UInt32(size + 1)]
                for value in small {
                    var mutated = file
                    mutated.replaceSubrange(offset..<offset + 4, with: withUnsafeBytes(of: value.bigEndian, Array.init))
                    cases += 1
                    if Self.check(mutated, "\(path): box at \(offset) size \(value)") { parsed += 1 }
                }
                // size 1: a 64-bit size follows, over the first 8 bytes of the payload.
                guard size >= 16 else { continue }
                let large: [UInt64] = [0, 15, UInt64(file.count + 1), UInt64.max]
                for value in large {
                    var mutated = file
                    mutated.replaceSubrange(offset..<offset + 4, with: [0, 0, 0, 1])
                    mutated.replaceSubrange(
                        offset + 8..<offset + 16, with: withUnsafeBytes(of: value.bigEndian, Array.init))
                    cases += 1
                    if Self.check(mutated, "\(path): box at \(offset) 64-bit size \(value)") { parsed += 1 }
                }
            }
        }
        #expect(cases > 1000)
        #expect(parsed > 0)
    }

    @Test func randomByteFlipsWithAFixedSeed() throws {
        var random = SplitMix64(state: 0x7669_646F_7269_656E)  // "vidorien"
        var cases = 0, parsed = 0
        for path in Self.generated + Self.real {
            let file = try bytes(path)
            let movie = try MovieStructure(MemoryBytes(file))
            // Most flips land in moov, where the reader looks; the rest anywhere.
            let moov = Int(movie.moov.offset)..<Int(movie.moov.offset + movie.moov.size)
            for round in 0..<150 {
                var mutated = file
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let at =
                        round % 4 == 0
                        ? Int.random(in: 0..<file.count, using: &random) : Int.random(in: moov, using: &random)
                    mutated[at] ^= UInt8.random(in: 1...255, using: &random)
                }
                cases += 1
                if Self.check(mutated, "\(path) flip round \(round)") { parsed += 1 }
            }
        }
        #expect(cases >= 600)
        #expect(parsed > 0 && parsed < cases)
    }
}
