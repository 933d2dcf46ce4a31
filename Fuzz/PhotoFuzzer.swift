// libFuzzer target for the photo readers (see Fuzz/README.md).
// Built by `Fuzz/run.sh photo` with `swiftc -sanitize=fuzzer,address` against the module sources.
import VidorientCore
import VidorientISOBMFF
import VidorientPhoto

/// One input, read by the reader its signature picks and by the EXIF walker and XMP scanner
/// directly: each must return or throw, never crash; what they report must lie inside the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let source = MemoryBytes(bytes)
    let evidence: PhotoEvidence?
    switch MediaFormat(signature: Array(bytes.prefix(MediaFormat.signatureLength))) {
    case .jpeg: evidence = try? JPEGReader.read(source, path: "fuzz")
    case .png: evidence = try? PNGReader.read(source, path: "fuzz")
    case .webp: evidence = try? WebPReader.read(source, path: "fuzz")
    case .tiff: evidence = try? TIFFFileReader.read(source, path: "fuzz")
    default: evidence = nil
    }
    if let evidence {
        precondition(evidence.fileSize == bytes.count, "file size is not the input's")
        for preview in evidence.previews + [evidence.exif?.thumbnail].compactMap({ $0 }) {
            if let offset = preview.offset {
                precondition(offset >= 0 && preview.length >= 0 && offset + preview.length <= bytes.count, "preview outside the file")
            }
        }
        for statement in evidence.statements where statement.kind != .heif {
            precondition(statement.orientation == statement.rawValue.flatMap(Orientation.init(exif:)), "orientation does not match its value")
        }
    }
    // The walker and the scanner on the raw input too: EXIF from HEIF items arrives as bare bytes.
    _ = try? EXIFReader.read(exifPayload: bytes, fileOffset: 0)
    _ = XMPOrientation.value(in: bytes)
    return 0
}
