extension ContentVerdict {
    /// The verdict in one line, as `inspect` prints it: `upright once turned 90° clockwise (2 faces,
    /// confidence 0.981)`, `no opinion (below the threshold 0.600, best turn 0.412)`, `no opinion (no
    /// natural up: …)`.
    public var line: String {
        let why: String =
            switch decidedBy {
            case .faces: "\(faces ?? 0) face\(faces == 1 ? "" : "s")"
            case .scene: "the scene"
            case .text: "its text, by Tesseract"
            case .letterShapes: "its letters' shapes, by Leptonica"
            case .words: "its words, by Tesseract"
            case nil: ""
            }
        let sure: String =
            if let confidence { ", confidence \(confidence.text(decimals: 3))" } else if decidedBy == .text, let text {
                ", orientation confidence \(text.confidence.text(decimals: 2))"
            } else if decidedBy == .letterShapes, let letterShapes {
                ", \(letterShapes.phrase)"
            } else if decidedBy == .words, let words, let turnNeeded {
                ", \(words.phrase(turn: turnNeeded / 90))"
            } else {
                ""
            }
        switch self.verdict {
        case .upright: return "upright as displayed (\(why)\(sure))"
        case .sideways, .upsideDown:
            return "upright once turned \(turnNeeded ?? 0)° clockwise (\(why)\(sure))"
        case .noOpinion:
            let best = sceneProbabilities?.max().map { ", best turn \($0.text(decimals: 3))" } ?? ""
            // A record from before `silence` (an older cache) has none: nothing judged still says so.
            switch silence ?? (frames == 0 ? .nothingToJudge : nil) {
            case .nothingToJudge: return "no opinion (nothing to judge: black, flat or tiny)"
            case .noNaturalUp:
                let natural = naturalUp.map { ", natural up \($0.text(decimals: 3))" } ?? ""
                return "no opinion (no natural up: a texture, the sky or a top-down shot\(natural)\(best))"
            case .belowThreshold, nil:
                return "no opinion (below the threshold \(threshold.text(decimals: 3))\(best))"
            }
        }
    }
}
