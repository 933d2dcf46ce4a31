// TEMPORARY until models/train-upright-head.py writes the trained head.
enum UprightHead {
    static let fingerprint = "untrained"
    static let sceneSide = 224
    static let sceneMirror = true
    static func logit(_ features: ArraySlice<Float>) -> Double { 0 }
}
