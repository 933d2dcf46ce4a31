import CTurboJPEG
public import VidorientCore

/// Lossless JPEG transforms through libjpeg-turbo's `tjTransform`: the DCT coefficients are moved,
/// never decoded and re-quantised, so the pixels are exactly those of `jpegtran` with the same
/// operation. Only the image comes out: no marker of the input is copied (`TJXOPT_COPYNONE`);
/// the caller re-attaches the segments it keeps.
public enum JPEGLosslessTransform {
    /// What to do with partial MCU blocks on an edge that the transform would have to move to the
    /// top or left, which cannot be done losslessly (`jpegtran -perfect` and `-trim`).
    public enum Edges: Sendable, Hashable {
        /// Refuse: the result must show every pixel.
        case perfect
        /// Drop the partial blocks (the picture loses up to one MCU less a pixel on those edges).
        case trim
    }

    /// What the header says, without decoding.
    public struct Header: Sendable, Hashable {
        public var width: Int
        public var height: Int
        /// The MCU block size for the chroma subsampling; nil when libjpeg-turbo does not know it.
        public var mcuWidth: Int?
        public var mcuHeight: Int?
        public var subsampling: String

        /// Nil when `transform` can be done perfectly at this size; otherwise why not, naming the
        /// MCU and the edge, as a lowercase clause.
        public func imperfection(of transform: UprightTransform) -> String? {
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

    public static func header(of jpeg: [UInt8]) throws(JPEGDecodeError) -> Header {
        let handle = try Transformer()
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let result = jpeg.withUnsafeBufferPointer {
            tjDecompressHeader3(
                handle.pointer, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        // A warning (stray bytes between markers, which libjpeg steps over) still gives the header.
        guard result == 0 || tjGetErrorCode(handle.pointer) != TJERR_FATAL.rawValue, width > 0, height > 0 else {
            throw JPEGDecodeError(handle.message)
        }
        let mcuWidth = Int(vo_tj_mcu_width(subsampling)), mcuHeight = Int(vo_tj_mcu_height(subsampling))
        let names = [
            TJSAMP_444.rawValue: "4:4:4", TJSAMP_422.rawValue: "4:2:2", TJSAMP_420.rawValue: "4:2:0",
            TJSAMP_GRAY.rawValue: "grey", TJSAMP_440.rawValue: "4:4:0", TJSAMP_411.rawValue: "4:1:1",
        ]
        return Header(
            width: Int(width), height: Int(height), mcuWidth: mcuWidth > 0 ? mcuWidth : nil,
            mcuHeight: mcuHeight > 0 ? mcuHeight : nil,
            subsampling: subsampling >= 0 ? names[UInt32(subsampling)] ?? "unknown" : "unknown")
    }

    /// `jpeg` with `transform` applied to its coefficients: a complete JPEG (SOI, JFIF or Adobe
    /// marker as libjpeg writes them, tables, frame, scans, EOI). `progressive` writes a
    /// progressive scan script, as the input had. Refuses an imperfect transform with `.perfect`.
    public static func apply(_ transform: UprightTransform, to jpeg: [UInt8], edges: Edges, progressive: Bool = false)
        throws(JPEGDecodeError) -> [UInt8]
    {
        let header = try header(of: jpeg)
        guard header.width.multipliedReportingOverflow(by: header.height).partialValue <= JPEGDecoder.maximumPixels
        else {
            throw JPEGDecodeError(
                "the jpeg claims \(header.width)x\(header.height) pixels, more than the \(JPEGDecoder.maximumPixels) allowed"
            )
        }
        if edges == .perfect, let reason = header.imperfection(of: transform) {
            throw JPEGDecodeError(
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
        // An output buffer the size of the input and some: a turned JPEG is about as large. Without
        // one, libjpeg-turbo starts at 4 KiB and doubles, copying, up to the whole image. It may
        // still grow this one (the size it is told is the size allocated); it then leaves ours to us
        // to free.
        let reservedSize = Int32(clamping: jpeg.count + jpeg.count / 4 + 65_536)
        let reserved = tjAlloc(reservedSize)
        var output: UnsafeMutablePointer<UInt8>? = reserved
        var outputSize: UInt = reserved == nil ? 0 : UInt(reservedSize)  // the size tjAlloc was given
        let result = jpeg.withUnsafeBufferPointer { source in
            tjTransform(
                handle.pointer, source.baseAddress, UInt(source.count), 1, &output, &outputSize, &description,
                TJFLAG_LIMITSCANS)
        }
        defer {
            if let output { tjFree(output) }
            if let reserved, reserved != output { tjFree(reserved) }
        }
        guard result == 0 || tjGetErrorCode(handle.pointer) != TJERR_FATAL.rawValue, let output, outputSize > 0 else {
            throw JPEGDecodeError(handle.message)
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(outputSize)))
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

        init() throws(JPEGDecodeError) {
            guard let pointer = tjInitTransform() else { throw JPEGDecodeError("could not start libjpeg-turbo") }
            self.pointer = pointer
        }

        deinit { tjDestroy(pointer) }

        var message: String { String(cString: tjGetErrorStr2(pointer)).lowercased() }
    }
}
