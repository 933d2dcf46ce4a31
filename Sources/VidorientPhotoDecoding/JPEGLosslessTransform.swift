import CTurboJPEG
package import VidorientCore
import VidorientIO

/// Lossless JPEG transforms through libjpeg-turbo's `tjTransform`: the DCT coefficients are moved,
/// never decoded and re-quantised, so the pixels are exactly those of `jpegtran` with the same
/// operation. Only the image comes out: no marker of the input is copied (`TJXOPT_COPYNONE`);
/// the caller re-attaches the segments it keeps.
package enum JPEGLosslessTransform {
    /// What to do with partial MCU blocks on an edge that the transform would have to move to the
    /// top or left, which cannot be done losslessly (`jpegtran -perfect` and `-trim`).
    package enum Edges: Sendable, Hashable {
        /// Refuse: the result must show every pixel.
        case perfect
        /// Drop the partial blocks (the picture loses up to one MCU less a pixel on those edges).
        case trim
    }

    /// What the header says, without decoding.
    package struct Header: Sendable, Hashable {
        package var width: Int
        package var height: Int
        /// The MCU block size for the chroma subsampling; nil when libjpeg-turbo does not know it.
        package var mcuWidth: Int?
        package var mcuHeight: Int?
        package var subsampling: String
        /// libjpeg-turbo's code for it (`TJSAMP_…`), for sizing buffers.
        var subsamplingCode: Int32 = -1

        /// What `tjTransform` allocates for the coefficients, the original's and the turned copy's
        /// (128 bytes a DCT block, each component padded to whole MCUs): the bulk of its memory,
        /// touched once and freed (`System.withHugePageHeap`). 0 when the MCU is not known.
        var coefficientBytes: Int {
            guard let mcuWidth, let mcuHeight, width > 0, height > 0 else { return 0 }
            let mcus = ((width + mcuWidth - 1) / mcuWidth).multipliedReportingOverflow(
                by: (height + mcuHeight - 1) / mcuHeight)
            guard !mcus.overflow, mcus.partialValue <= 1 << 26 else { return 0 }
            let luma = mcus.partialValue * (mcuWidth / 8) * (mcuHeight / 8)
            let chroma = subsamplingCode == Int32(TJSAMP_GRAY.rawValue) ? 0 : 2 * mcus.partialValue
            return 2 * 128 * (luma + chroma)
        }

        /// Nil when `transform` can be done perfectly at this size; otherwise why not, naming the
        /// MCU and the edge, as a lowercase clause.
        package func imperfection(of transform: UprightTransform) -> String? {
            guard let mcuWidth, let mcuHeight else { return nil }
            let partialRight = width % mcuWidth != 0, partialBottom = height % mcuHeight != 0
            let (right, bottom): (Bool, Bool)
            switch transform {
            case .none, .transpose: (right, bottom) = (false, false)
            case .flipHorizontal, .rotate270: (right, bottom) = (partialRight, false)
            case .flipVertical, .rotate90: (right, bottom) = (false, partialBottom)
            case .transverse, .rotate180: (right, bottom) = (partialRight, partialBottom)
            }
            guard right || bottom else { return nil }
            var sides: [String] = []
            if right { sides.append("width \(width) is not a multiple of \(mcuWidth)") }
            if bottom { sides.append("height \(height) is not a multiple of \(mcuHeight)") }
            return "the \(width)x\(height) jpeg's \(mcuWidth)x\(mcuHeight) mcu (\(subsampling) chroma) does not fit: "
                + sides.joined(separator: " and ")
        }
    }

    package static func header(of jpeg: [UInt8]) throws(VidorientError) -> Header {
        try jpeg.withUnsafeBytes { raw in Result { () throws(VidorientError) in try header(of: raw) } }.get()
    }

    /// The header of a JPEG in memory that is not an array (a mapped file).
    package static func header(of jpeg: UnsafeRawBufferPointer) throws(VidorientError) -> Header {
        let handle = try Transformer()
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let bytes = jpeg.bindMemory(to: UInt8.self)
        let result = tjDecompressHeader3(
            handle.pointer, bytes.baseAddress, UInt(bytes.count), &width, &height, &subsampling, &colorspace)
        // A warning (stray bytes between markers, which libjpeg steps over) still gives the header.
        guard result == 0 || tjGetErrorCode(handle.pointer) != TJERR_FATAL.rawValue, width > 0, height > 0 else {
            throw VidorientError(handle.message)
        }
        let mcuWidth = Int(vo_tj_mcu_width(subsampling)), mcuHeight = Int(vo_tj_mcu_height(subsampling))
        let names = [
            TJSAMP_444.rawValue: "4:4:4", TJSAMP_422.rawValue: "4:2:2", TJSAMP_420.rawValue: "4:2:0",
            TJSAMP_GRAY.rawValue: "grey", TJSAMP_440.rawValue: "4:4:0", TJSAMP_411.rawValue: "4:1:1",
        ]
        return Header(
            width: Int(width), height: Int(height), mcuWidth: mcuWidth > 0 ? mcuWidth : nil,
            mcuHeight: mcuHeight > 0 ? mcuHeight : nil,
            subsampling: subsampling >= 0 ? names[UInt32(subsampling)] ?? "unknown" : "unknown",
            subsamplingCode: subsampling)
    }

    /// `jpeg` with `transform` applied to its coefficients: a complete JPEG (SOI, JFIF or Adobe
    /// marker as libjpeg writes them, tables, frame, scans, EOI). `progressive` writes a
    /// progressive scan script, as the input had. Refuses an imperfect transform with `.perfect`.
    package static func apply(_ transform: UprightTransform, to jpeg: [UInt8], edges: Edges, progressive: Bool = false)
        throws(VidorientError) -> [UInt8]
    {
        try jpeg.withUnsafeBytes { raw in
            Result { () throws(VidorientError) in try apply(transform, to: raw, edges: edges, progressive: progressive)
            }
        }.get()
    }

    /// The same for a JPEG in memory that is not an array (the image part of a mapped file), not copied.
    package static func apply(
        _ transform: UprightTransform, to raw: UnsafeRawBufferPointer, edges: Edges, progressive: Bool = false
    ) throws(VidorientError) -> [UInt8] {
        let jpeg = raw.bindMemory(to: UInt8.self)
        let header = try header(of: raw)
        guard header.width.multipliedReportingOverflow(by: header.height).partialValue <= JPEGDecoder.maximumPixels
        else {
            throw .unsupported(
                "the jpeg claims \(header.width)x\(header.height) pixels, more than the \(JPEGDecoder.maximumPixels) allowed"
            )
        }
        // Reading the coefficients buffers all of them, progressive or not.
        try JPEGCoefficientBound.check(raw, whole: true)
        if edges == .perfect, let reason = header.imperfection(of: transform) {
            throw .unsupported(
                reason
                    + "; a lossless \(String(transform.rawValue.map { $0 == "_" ? " " : $0 })) would leave a strip unmoved (give --trim to drop the partial blocks)"
            )
        }
        let handle = try Transformer()
        var options = TJXOPT_COPYNONE | (edges == .perfect ? TJXOPT_PERFECT : TJXOPT_TRIM)
        if progressive { options |= TJXOPT_PROGRESSIVE }
        var description = tjtransform()
        description.op = Int32(operation(transform).rawValue)
        description.options = Int32(options)
        // Straight into the array returned, no copy: libjpeg-turbo writes into a buffer of its
        // worst-case size (`tjBufSize`, which it checks with TJFLAG_NOREALLOC; no marker is copied,
        // so the worst case holds). The pages it does not write are never touched.
        let worstCase =
            [(header.width, header.height), (header.height, header.width)].map {
                Int(tjBufSize(Int32($0.0), Int32($0.1), header.subsamplingCode))
            }.max() ?? 0
        if header.subsamplingCode >= 0, worstCase > 0, worstCase < Int(UInt32.max) {
            var failure: String?
            var warning: String?
            let turned = [UInt8](unsafeUninitializedCapacity: worstCase) { buffer, count in
                // About the input's size is written: only that part is worth huge pages.
                System.preferHugePages(
                    UnsafeMutableRawBufferPointer(
                        rebasing: UnsafeMutableRawBufferPointer(buffer)[..<min(worstCase, jpeg.count * 2)]))
                var output: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
                var outputSize = UInt(worstCase)
                let result = System.withHugePageHeap(bytes: header.coefficientBytes) {
                    tjTransform(
                        handle.pointer, jpeg.baseAddress, UInt(jpeg.count), 1, &output, &outputSize, &description,
                        TJFLAG_LIMITSCANS | TJFLAG_NOREALLOC)
                }
                let fatal = result != 0 && tjGetErrorCode(handle.pointer) == TJERR_FATAL.rawValue
                if result != 0, !fatal { warning = damage(handle.message) }
                if fatal || output != buffer.baseAddress || outputSize == 0 || Int(outputSize) > worstCase {
                    failure = handle.message
                    count = 0
                } else {
                    count = Int(outputSize)
                }
            }
            if let warning { throw damaged(warning) }
            if failure == nil { return turned }
        }
        // libjpeg-turbo allocates (and grows) its own buffer, copied out.
        var output: UnsafeMutablePointer<UInt8>? = nil
        var outputSize: UInt = 0
        let result = System.withHugePageHeap(bytes: header.coefficientBytes) {
            tjTransform(
                handle.pointer, jpeg.baseAddress, UInt(jpeg.count), 1, &output, &outputSize, &description,
                TJFLAG_LIMITSCANS)
        }
        defer { if let output { tjFree(output) } }
        guard result == 0 || tjGetErrorCode(handle.pointer) != TJERR_FATAL.rawValue, let output, outputSize > 0 else {
            throw VidorientError(handle.message)
        }
        if result != 0, let warning = damage(handle.message) { throw damaged(warning) }
        return Array(UnsafeBufferPointer(start: output, count: Int(outputSize)))
    }

    /// libjpeg's warning when it is about the compressed picture (a bad Huffman code, data cut
    /// short, a scan out of order): the transform goes on with blocks it made up, so the turned
    /// picture would keep the damage for good while the original's bytes are gone (issue 23's
    /// mutated JPEGs). nil for stray bytes between segments, which libjpeg steps over losing nothing.
    static func damage(_ warning: String) -> String? {
        warning.contains("extraneous bytes before marker") ? nil : warning
    }

    static func damaged(_ warning: String) -> VidorientError {
        .malformed(
            "the jpeg's compressed data is damaged (libjpeg: \(warning)); turned, the damage would be kept for good, so it is refused"
        )
    }

    static func operation(_ transform: UprightTransform) -> TJXOP {
        switch transform {
        case .none: TJXOP_NONE
        case .flipHorizontal: TJXOP_HFLIP
        case .flipVertical: TJXOP_VFLIP
        case .transpose: TJXOP_TRANSPOSE
        case .transverse: TJXOP_TRANSVERSE
        case .rotate90: TJXOP_ROT90
        case .rotate180: TJXOP_ROT180
        case .rotate270: TJXOP_ROT270
        }
    }

    /// Owns one TurboJPEG transformer.
    final class Transformer {
        let pointer: tjhandle

        init() throws(VidorientError) {
            if let reason = OpenedLibrary.turbojpeg.failure { throw VidorientError(reason) }
            guard let pointer = tjInitTransform() else { throw VidorientError("could not start libjpeg-turbo") }
            self.pointer = pointer
        }

        deinit { tjDestroy(pointer) }

        var message: String { String(cString: tjGetErrorStr2(pointer)).lowercased() }
    }
}
