import ArgumentParser
import VidorientContent
import VidorientCore

/// `--content` and `--content-threshold`, as inspect and audit take them.
struct ContentOptions: ParsableArguments {
    @Flag(
        help: """
            Judge from the pixels which way is up: faces, the scene and a page's text in the picture's \
            four quarter turns (docs/content.md). Loads the content engine (dlib, OpenCV, Tesseract).
            """)
    var content = false

    @Option(
        help: """
            With --content: the least probability of the winning turn for an opinion, above 0.25 and \
            below 1 (default \(ContentEngine.policy.threshold.text(decimals: 3)), chosen on photos the head never \
            saw: 99.6% precision at 60% coverage on held-out photos; docs/content.md).
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
