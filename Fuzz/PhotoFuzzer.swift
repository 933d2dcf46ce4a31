// libFuzzer target for the photo readers (see Fuzz/README.md).
// Built by `Fuzz/run.sh photo` with `swiftc -sanitize=fuzzer,address` against the module sources.
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientPhoto

/// One input, read by the reader its signature picks and by the EXIF walker and XMP scanner
/// directly: each must return or throw, never crash; what they report must lie inside the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let source = MemoryBytes(bytes)
    let format = MediaFormat(signature: Array(bytes.prefix(MediaFormat.signatureLength)))
    // The one reader switch (`PhotoReader`), HEIF included. A refusal is a fine answer here: the
    // fuzzer looks for crashes and for reports that lie outside the input.
    let evidence = format.isPhoto ? try? PhotoReader.read(source, path: "fuzz", format: format) : nil
    if let evidence {
        precondition(evidence.fileSize == nil || evidence.fileSize == bytes.count, "file size is not the input's")
        for preview in evidence.previews + [evidence.exif?.thumbnail].compactMap({ $0 }) {
            if let offset = preview.offset {
                precondition(offset >= 0 && preview.length >= 0 && offset + preview.length <= bytes.count, "preview outside the file")
            }
        }
        // A CRW's Rotation is stored in degrees: its value is not an EXIF value.
        for statement in evidence.statements where statement.kind != .heif && !statement.location.hasPrefix("CIFF") {
            precondition(statement.orientation == statement.rawValue.flatMap(Orientation.init(exif:)), "orientation does not match its value")
        }
    }
    // The tag fix's planners (HEIF included) on hostile input: every splice matches the bytes it
    // replaces, and the edit applied then undone gives the input back.
    for target in [Orientation.up, .leftMirrored] {
        guard let edit = try? PhotoTagFix.plan(source, format: format, target: target) else { continue }
        precondition(edit.edit.matches(bytes), "a splice does not match the bytes it replaces")
        let fixed = edit.edit.applied(to: bytes)
        precondition(edit.edit.inverse.applied(to: fixed) == bytes, "the inverse does not give the input back")
    }
    // The walker and the scanner on the raw input too: EXIF from HEIF items arrives as bare bytes.
    _ = try? EXIFReader.read(exifPayload: bytes, fileOffset: 0)
    _ = XMPOrientation.value(in: bytes)
    fuzzRebuilders(bytes)
    return 0
}

/// normalize's rebuilders (issue 23), which take a hostile original apart and put it together
/// around a turned picture: each must return or throw, never crash, and what it keeps of the
/// original must lie inside it. The turned picture is the input itself (a well-formed one needs
/// libjpeg-turbo, zlib's encoder or libwebp, outside this build): the rebuilders read it as they
/// read the original.
func fuzzRebuilders(_ bytes: [UInt8]) {
    let turnThumbnail: ([UInt8]) -> Result<[UInt8], PhotoFormatError> = { .success($0) }
    for transform in [UprightTransform.rotate90, .flipHorizontal] {
        // The EXIF editor on bare TIFF bytes, and on what follows a JPEG's "Exif\0\0".
        if let exif = try? EXIFUpright(tiff: bytes, transform: transform, turnThumbnail: turnThumbnail) {
            precondition(exif.tiff.count <= bytes.count + 64 * 1024, "the EXIF grew without bound")
        }
        if let layout = try? JPEGUpright.Layout(bytes) {
            precondition(layout.imageEnd <= bytes.count, "the image ends past the input")
            if let rebuilt = try? JPEGUpright.rebuild(
                original: bytes, layout: layout, turned: bytes, transform: transform, turnThumbnail: turnThumbnail)
            {
                precondition(rebuilt.trailer.upperBound <= bytes.count, "the trailer lies outside the original")
            }
        }
        if PNGUpright.refusal(bytes) == nil {
            _ = try? PNGUpright.rebuild(original: bytes, encoded: bytes, transform: transform)
        }
        if WebPUpright.refusal(bytes) == nil {
            _ = try? WebPUpright.rebuild(original: bytes, encoded: bytes, transform: transform, width: 16, height: 16)
        }
    }
}
