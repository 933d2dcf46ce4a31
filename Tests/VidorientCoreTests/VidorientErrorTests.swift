import Testing
import VidorientCore

/// What callers decide on is typed, not read from a reason's words: a timeout and a file cut short
/// keep their `condition` through every re-wrapping, and no wording makes one.
@Suite struct VidorientErrorTests {
    @Test func theConditionSurvivesWrapping() {
        let timedOut = VidorientError.timedOut(path: "a.mkv", after: 2).context("could not probe").at(path: "b.mkv")
        #expect(timedOut.condition == .timedOut)
        #expect(timedOut.kind == .io)
        #expect(timedOut.reason == "could not probe: timed out after 2.0 s")
        let cut = VidorientError.cutShort("the file is cut short: 'mdat' needs 10 bytes").context("moov")
        #expect(cut.condition == .cutShort)
        #expect(cut.kind == .malformed)
    }

    @Test func wordsAloneAreNoCondition() {
        #expect(VidorientError.malformed("timed out after 2 s").condition == nil)
        #expect(VidorientError(path: "x", reason: "the file is cut short: 3 bytes").condition == nil)
    }
}
