import ArgumentParser
import VidorientContent
import VidorientCore
import VidorientFFmpeg

/// `--content` and `--content-threshold`, as inspect and audit take them.
struct ContentOptions: ParsableArguments {
    @Flag(
        help: """
            Judge from the pixels which way is up: faces and the scene in the picture's four quarter \
            turns (docs/content.md). Loads the content engine (dlib, OpenCV) and its model.
            """)
    var content = false

    @Option(
        help: """
            With --content: the least probability of the winning turn for an opinion, above 0.25 and \
            below 1 (default \(ContentEngine.policy.threshold.text(decimals: 3)), chosen for a precision of 99%).
            """,
        transform: optionParser("--content-threshold", ContentPolicy.parseThreshold))
    var contentThreshold: Double?

    func validate() throws {
        if contentThreshold != nil && !content { throw ValidationError("--content-threshold needs --content") }
    }

    /// The policy to judge with; nil without --content.
    var policy: ContentPolicy? {
        guard content else { return nil }
        var policy = ContentEngine.policy
        if let contentThreshold { policy.threshold = contentThreshold }
        return policy
    }
}

/// The human report's line for a content verdict.
func contentLine(_ verdict: ContentVerdict) -> String {
    let why: String =
        switch verdict.decidedBy {
        case .faces: "\(verdict.faces) face\(verdict.faces == 1 ? "" : "s")"
        case .scene: "the scene"
        case nil: ""
        }
    let sure = verdict.confidence.map { ", confidence \($0.text(decimals: 3))" } ?? ""
    switch verdict.verdict {
    case .upright: return "upright as displayed (\(why)\(sure))"
    case .sideways, .upsideDown:
        return "upright once turned \(verdict.turnNeeded ?? 0)° clockwise (\(why)\(sure))"
    case .noOpinion:
        if verdict.frames == 0 { return "no opinion (nothing to judge: black, flat or tiny)" }
        let best = verdict.sceneProbabilities?.max().map { ", best turn \($0.text(decimals: 3))" } ?? ""
        return "no opinion (below the threshold \(verdict.threshold.text(decimals: 3))\(best))"
    }
}
