extension Picture {
    /// The picture resampled to `width`×`height`, each axis apart (rows first, then columns):
    /// area averaging where an axis shrinks, each new pixel the mean of the old pixels it covers,
    /// weighed by how much of each it covers (OpenCV's `INTER_AREA`, FFmpeg's `area`; what the
    /// content network was taught on, models/content_engine.py); Catmull-Rom where it grows. The
    /// weights are 14-bit integers summing exactly to one, so a flat colour stays exact, and the
    /// same picture gives the same pixels on every machine.
    public func resized(width newWidth: Int, height newHeight: Int) -> Picture {
        precondition(width > 0 && height > 0 && newWidth > 0 && newHeight > 0, "a picture resized must have pixels")
        if newWidth == width && newHeight == height { return self }
        var picture = self
        if newWidth != width {
            picture = picture.resampledRows(ResamplingWeights(from: width, to: newWidth))
        }
        if newHeight != height {
            picture = picture.resampledColumns(ResamplingWeights(from: height, to: newHeight))
        }
        return picture
    }

    /// Each row resampled to `weights.outputs` pixels.
    private func resampledRows(_ weights: ResamplingWeights) -> Picture {
        let (newWidth, taps) = (weights.outputs, weights.taps)
        let pixels = [UInt8](unsafeUninitializedCapacity: newWidth * height * 3) { target, written in
            self.pixels.withUnsafeBufferPointer { source in
                weights.weights.withUnsafeBufferPointer { w in
                    weights.starts.withUnsafeBufferPointer { starts in
                        for y in 0..<height {
                            let row = source.baseAddress! + y * width * 3
                            let out = target.baseAddress! + y * newWidth * 3
                            for x in 0..<newWidth {
                                var (red, green, blue): (Int32, Int32, Int32) = (0, 0, 0)
                                var pixel = row + starts[x] * 3
                                for tap in 0..<taps {
                                    let weight = w[x * taps + tap]
                                    red &+= Int32(pixel[0]) &* weight
                                    green &+= Int32(pixel[1]) &* weight
                                    blue &+= Int32(pixel[2]) &* weight
                                    pixel += 3
                                }
                                out[3 * x] = ResamplingWeights.level(red)
                                out[3 * x + 1] = ResamplingWeights.level(green)
                                out[3 * x + 2] = ResamplingWeights.level(blue)
                            }
                        }
                    }
                }
            }
            written = newWidth * height * 3
        }
        return Picture(width: newWidth, height: height, pixels: pixels)
    }

    /// Each column resampled to `weights.outputs` pixels: whole rows weighed and summed, in order.
    private func resampledColumns(_ weights: ResamplingWeights) -> Picture {
        let (newHeight, taps, rowBytes) = (weights.outputs, weights.taps, width * 3)
        var sums = [Int32](repeating: 0, count: rowBytes)
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * newHeight) { target, written in
            self.pixels.withUnsafeBufferPointer { source in
                sums.withUnsafeMutableBufferPointer { sums in
                    for y in 0..<newHeight {
                        for i in 0..<rowBytes { sums[i] = 0 }
                        for tap in 0..<taps {
                            let weight = weights.weights[y * taps + tap]
                            guard weight != 0 else { continue }
                            let row = source.baseAddress! + (weights.starts[y] + tap) * rowBytes
                            for i in 0..<rowBytes { sums[i] &+= Int32(row[i]) &* weight }
                        }
                        let out = target.baseAddress! + y * rowBytes
                        for i in 0..<rowBytes { out[i] = ResamplingWeights.level(sums[i]) }
                    }
                }
            }
            written = rowBytes * newHeight
        }
        return Picture(width: width, height: newHeight, pixels: pixels)
    }
}

/// Which input pixels make each output pixel along one axis, and how much each counts: for output
/// `i`, the `taps` inputs from `starts[i]`, weighed by `weights[i * taps ..< (i + 1) * taps]`
/// (fixed point, `one` in all; a tap past the picture's edge is folded onto the edge pixel).
struct ResamplingWeights {
    static let bits: Int32 = 14
    static let one: Int32 = 1 << bits

    let outputs: Int
    let taps: Int
    private(set) var starts: [Int]
    private(set) var weights: [Int32]

    init(from inputs: Int, to outputs: Int) {
        precondition(inputs > 0 && outputs > 0)
        let scale = Double(inputs) / Double(outputs)
        self.outputs = outputs
        // Area: an output covers `scale` inputs, which touch at most ⌈scale⌉ + 1 of them.
        // Catmull-Rom: four around the centre.
        taps = min(inputs, scale > 1 ? Int(scale.rounded(.up)) + 1 : 4)
        starts = [Int](repeating: 0, count: outputs)
        weights = [Int32](repeating: 0, count: outputs * taps)
        var real = [Double](repeating: 0, count: taps)
        for i in 0..<outputs {
            for k in 0..<taps { real[k] = 0 }
            // The first input this output may touch, then the row of `taps` inputs that holds them all.
            let first: Int
            var contributions: [(index: Int, weight: Double)] = []
            if scale > 1 {
                let (low, high) = (Double(i) * scale, Double(i + 1) * scale)
                first = Int(low.rounded(.down))
                var j = first
                while j < inputs, Double(j) < high {
                    contributions.append((j, min(Double(j + 1), high) - max(Double(j), low)))
                    j += 1
                }
            } else {
                let centre = (Double(i) + 0.5) * scale - 0.5
                first = Int(centre.rounded(.down)) - 1
                for k in 0..<4 {
                    let j = first + k
                    contributions.append((min(max(j, 0), inputs - 1), ResamplingWeights.catmullRom(centre - Double(j))))
                }
            }
            let start = min(max(first, 0), inputs - taps)
            for (index, weight) in contributions { real[index - start] += weight }
            let total = real.reduce(0, +)
            var fixed = real.map { Int32(($0 / total * Double(ResamplingWeights.one)).rounded()) }
            // Rounding may leave the sum a unit or two off: the largest weight takes the difference.
            let largest = fixed.indices.max { fixed[$0] < fixed[$1] }!
            fixed[largest] += ResamplingWeights.one - fixed.reduce(0, +)
            starts[i] = start
            weights.replaceSubrange(i * taps..<(i + 1) * taps, with: fixed)
        }
    }

    /// The cubic of Catmull and Rom (Keys' a = −0.5) at distance `x` from the centre.
    static func catmullRom(_ x: Double) -> Double {
        let x = abs(x)
        if x < 1 { return (1.5 * x - 2.5) * x * x + 1 }
        if x < 2 { return ((-0.5 * x + 2.5) * x - 4) * x + 2 }
        return 0
    }

    /// A weighed sum back to an 8-bit level, rounded, within 0–255.
    @inline(__always) static func level(_ sum: Int32) -> UInt8 {
        UInt8(clamping: (sum &+ (one >> 1)) >> bits)
    }
}
