import Testing
import VidorientCore

@Suite struct FileEditTests {
    /// Seeded, so a failure repeats: random splices of every kind, applied then undone.
    @Test(arguments: 0..<50)
    func inverseRestoresTheOriginal(seed: Int) throws {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let original = (0..<200).map { _ in UInt8(next(256)) }
        var splices: [ByteSplice] = []
        var position = 0
        while position < original.count - 10 {
            position += next(20)
            let oldCount = next(3) == 0 ? 0 : next(6)
            guard position + oldCount <= original.count else { break }
            let newCount = next(3) == 0 ? oldCount : next(6)
            let old = Array(original[position..<position + oldCount])
            splices.append(
                ByteSplice(offset: Int64(position), old: old, new: (0..<newCount).map { _ in UInt8(next(256)) }))
            position += oldCount + 1
        }
        let edit = try FileEdit(splices.shuffled())
        #expect(edit.matches(original))
        let edited = edit.applied(to: original)
        #expect(Int64(edited.count) == Int64(original.count) + edit.sizeChange)
        #expect(edit.inverse.matches(edited))
        #expect(edit.inverse.applied(to: edited) == original)
    }

    @Test func overlappingSplicesAreRefused() {
        let a = ByteSplice(offset: 4, old: [1, 2, 3], new: [9, 9, 9])
        let b = ByteSplice(offset: 6, old: [3], new: [7])
        #expect(throws: VidorientError.self) { try FileEdit([a, b]) }
        let insertion = ByteSplice(offset: 4, old: [], new: [5])
        #expect(throws: VidorientError.self) { try FileEdit([insertion, insertion]) }
    }

    @Test func sameLengthEditsKeepTheLengthAndCountChangedBytes() throws {
        let edit = try FileEdit([
            ByteSplice(offset: 10, old: [0, 6], new: [0, 1]), ByteSplice(offset: 2, old: [5], new: [5]),
        ])
        #expect(edit.splices.count == 1)  // the no-op is dropped
        #expect(edit.keepsLength && edit.bytesChanged == 1 && edit.sizeChange == 0)
        let insert = try FileEdit([ByteSplice(offset: 2, old: [], new: [1, 2, 3])])
        #expect(!insert.keepsLength && insert.sizeChange == 3)
    }
}
