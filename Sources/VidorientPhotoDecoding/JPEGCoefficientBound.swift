package import VidorientCore

/// What libjpeg holds for a whole picture before it gives a row: the DCT coefficients of every
/// block (128 bytes each), when the file is progressive, when its first scan leaves a component
/// for a later scan, and always for a lossless transform (`jpeg_read_coefficients`). DCT scaling
/// does not shrink them: a 565-byte progressive file claiming 16383×16383 pixels made libjpeg
/// touch 1.5 GB. The size comes from the frame header, so a file is refused before anything is
/// allocated (docs/hostile-input.md).
package struct JPEGCoefficientBound: Sendable {
    /// The most coefficient bytes one picture may need: a 50-megapixel 4:2:0 progressive photo
    /// needs 150 MB; a lossless rotation holds two such buffers, still within the 400 MB that any
    /// single input may take.
    package static let maximumBytes = 160 << 20

    package var width: Int
    package var height: Int
    /// SOF2, SOF6, SOF10 or SOF14: every scan refines every block.
    package var progressive: Bool
    /// Each component's horizontal and vertical sampling factors, as the frame header states them.
    package var sampling: [(h: Int, v: Int)]
    /// How many components the first scan codes; nil when no scan header was reached.
    package var firstScanComponents: Int?

    /// Reads the frame header and the first scan header, stepping over what libjpeg steps over
    /// (stray bytes between markers, fill bytes); nil when there is no frame header before the
    /// end, which the decoder then refuses itself.
    package init?(_ jpeg: UnsafeRawBufferPointer) {
        let count = jpeg.count
        guard count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        func word(_ at: Int) -> Int? { at + 1 < count ? Int(jpeg[at]) << 8 | Int(jpeg[at + 1]) : nil }
        var frame: (width: Int, height: Int, progressive: Bool, sampling: [(h: Int, v: Int)])?
        var index = 2
        while index + 1 < count {
            guard jpeg[index] == 0xFF else {
                index += 1
                continue
            }
            let marker = jpeg[index + 1]
            switch marker {
            case 0xFF:
                index += 1
                continue
            case 0x00, 0x01, 0xD0...0xD7:
                index += 2
                continue
            case 0xD9:
                return nil
            default: break
            }
            guard let length = word(index + 2), length >= 2, index + 2 + length <= count else { break }
            let payload = index + 4
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker), frame == nil, length >= 8 {
                let components = Int(jpeg[payload + 5])
                guard let height = word(payload + 1), let width = word(payload + 3), length >= 8 + 3 * components
                else { return nil }
                let sampling = (0..<components).map { component in
                    let factors = jpeg[payload + 6 + 3 * component + 1]
                    return (h: max(1, Int(factors >> 4)), v: max(1, Int(factors & 0x0F)))
                }
                frame = (width, height, [0xC2, 0xC6, 0xCA, 0xCE].contains(marker), sampling)
            }
            if marker == 0xDA {
                guard let frame else { return nil }
                self.init(frame, firstScanComponents: length >= 3 ? Int(jpeg[payload]) : nil)
                return
            }
            index += 2 + length
        }
        guard let frame else { return nil }
        self.init(frame, firstScanComponents: nil)
    }

    private init(
        _ frame: (width: Int, height: Int, progressive: Bool, sampling: [(h: Int, v: Int)]), firstScanComponents: Int?
    ) {
        (width, height, progressive, sampling) = frame
        self.firstScanComponents = firstScanComponents
    }

    /// Whether decoding buffers every coefficient: a progressive file, or a sequential one whose
    /// first scan does not code every component (libjpeg's `has_multiple_scans`).
    package var decodingBuffersEverything: Bool {
        progressive || (firstScanComponents ?? sampling.count) < sampling.count
    }

    /// The coefficient bytes of the whole picture: every component's blocks, in whole MCUs.
    package var coefficientBytes: Int {
        let maxH = sampling.map(\.h).max() ?? 1, maxV = sampling.map(\.v).max() ?? 1
        let mcusAcross = (width + 8 * maxH - 1) / (8 * maxH), mcusDown = (height + 8 * maxV - 1) / (8 * maxV)
        return sampling.reduce(0) { $0 + mcusAcross * $1.h * mcusDown * $1.v * 64 * 2 }
    }

    /// Refuses a picture whose coefficients, held whole, would pass `maximumBytes`; `whole` says
    /// they are (a lossless transform), else only where decoding buffers them.
    package func check(whole: Bool) throws(VidorientError) {
        guard whole || decodingBuffersEverything, coefficientBytes > Self.maximumBytes else { return }
        let kind = progressive ? "progressive " : ""
        throw .unsupported(
            "the \(kind)jpeg claims \(width)x\(height) pixels, whose coefficients would take "
                + "\(coefficientBytes >> 20) MB, more than the \(Self.maximumBytes >> 20) MB allowed")
    }

    /// `check` on the bytes of `jpeg`, when they hold a frame header.
    package static func check(_ jpeg: UnsafeRawBufferPointer, whole: Bool) throws(VidorientError) {
        try JPEGCoefficientBound(jpeg)?.check(whole: whole)
    }
}
