extension ContentVerdict {
    /// The verdict in one line, as `inspect` prints it: `upright once turned 90° clockwise (2 faces,
    /// confidence 0.981)`, `no opinion (below the threshold 0.600, best turn 0.412)`.
    public var line: String {
        let why: String =
            switch decidedBy {
            case .faces: "\(faces) face\(faces == 1 ? "" : "s")"
            case .scene: "the scene"
            case nil: ""
            }
        let sure = confidence.map { ", confidence \($0.text(decimals: 3))" } ?? ""
        switch self.verdict {
        case .upright: return "upright as displayed (\(why)\(sure))"
        case .sideways, .upsideDown:
            return "upright once turned \(turnNeeded ?? 0)° clockwise (\(why)\(sure))"
        case .noOpinion:
            if frames == 0 { return "no opinion (nothing to judge: black, flat or tiny)" }
            let best = sceneProbabilities?.max().map { ", best turn \($0.text(decimals: 3))" } ?? ""
            return "no opinion (below the threshold \(threshold.text(decimals: 3))\(best))"
        }
    }
}
