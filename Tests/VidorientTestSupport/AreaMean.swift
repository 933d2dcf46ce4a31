/// The mean of the pixels each new pixel covers when an RGB picture (three bytes a pixel, rows top
/// to bottom) is shrunk to `newWidth`×`newHeight`, each old pixel weighed by the area of it that
/// is covered, integrated in two dimensions with real numbers: a statement of area averaging
/// independent of `Picture.resized`'s two fixed-point passes, which tests hold it to.
public func areaMean(_ pixels: [UInt8], width: Int, height: Int, newWidth: Int, newHeight: Int) -> [Double] {
    let (sx, sy) = (Double(width) / Double(newWidth), Double(height) / Double(newHeight))
    var out = [Double](repeating: 0, count: newWidth * newHeight * 3)
    for y in 0..<newHeight {
        let (top, bottom) = (Double(y) * sy, Double(y + 1) * sy)
        for x in 0..<newWidth {
            let (left, right) = (Double(x) * sx, Double(x + 1) * sx)
            for j in Int(top)..<min(height, Int(bottom.rounded(.up))) {
                let h = min(Double(j + 1), bottom) - max(Double(j), top)
                for i in Int(left)..<min(width, Int(right.rounded(.up))) {
                    let w = min(Double(i + 1), right) - max(Double(i), left)
                    guard w > 0, h > 0 else { continue }
                    for c in 0..<3 {
                        out[(y * newWidth + x) * 3 + c] += Double(pixels[(j * width + i) * 3 + c]) * w * h / (sx * sy)
                    }
                }
            }
        }
    }
    return out
}
