// libFuzzer target for the box reader, the movie description, the HEIF item reader and the matrix fix (see Fuzz/README.md).
// Built by Fuzz/run.sh with `swiftc -sanitize=fuzzer,address` against the module sources.
import VidorientCore
import VidorientIO
import VidorientISOBMFF

/// One input: it must read or throw, never crash or read out of bounds (ASan watches the
/// unsafe buffer code); what it reports must hold; fixing it in memory must read back as planned.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let source = MemoryBytes(bytes)
    fuzzHEIF(source)
    guard let movie = try? MovieStructure(source) else { return 0 }
    for matrix in movie.tracks.map(\.matrix) + [movie.movieHeader.matrix] {
        let start = Int(matrix.offset)
        precondition(start >= 0 && start + StoredMatrix.byteCount <= bytes.count, "matrix offset outside the file")
        precondition(Array(bytes[start..<start + StoredMatrix.byteCount]) == matrix.bytes, "matrix not at its offset")
    }
    precondition(movie.moov.offset + movie.moov.size <= Int64(bytes.count), "moov outside the file")
    // What inspect and the audit make of it without FFmpeg: the whole description (sample entries,
    // codec configurations, timing, tags, the first samples' SEI), else the headers' view.
    _ = try? MovieDescription.probe(movie, path: "fuzz", source: source)
    _ = movie.mediaProbe(path: "fuzz", source: source)
    for track in movie.tracks where !track.timedMetadataKeys.isEmpty {
        _ = try? track.timedMetadataSamples(in: source, maximumSamples: 64)
    }
    for change in [OrientationChange.set(.rightMirrored), .compose(.left)] {
        guard let plan = try? MatrixFix(movie, change: change, resetMovieMatrix: true) else { continue }
        let fixed = plan.applied(to: bytes)
        precondition(fixed.count == bytes.count, "the fix changed the size")
        let reread = try? MovieStructure(MemoryBytes(fixed))
        precondition(reread == plan.expectedStructure(from: movie), "the fixed file does not read back as planned")
    }
    return 0
}

/// The HEIF item reader: every extent it accepts lies inside the file, or past its end only in a
/// file it says was cut short (`truncation`, the `file-truncated` finding), and what it derives
/// from an accepted file (evidence, Exif, XMP, the motion video) is computed without a crash.
func fuzzHEIF(_ source: MemoryBytes) {
    guard let heif = try? HEIFStructure(source) else { return }
    for item in heif.items where item.constructionMethod != 2 {
        for extent in item.extents {
            precondition(extent.offset >= 0 && extent.length >= 0, "a negative item extent")
            // Compared without adding: an extent may claim up to 2^64 - 1 bytes.
            precondition(
                (extent.offset <= source.size && extent.length <= source.size - extent.offset)
                    || heif.truncation != nil,
                "an item extent past the end of a file not said to be cut")
        }
    }
    precondition(heif.item(heif.primaryItemID) != nil, "primary item missing")
    if let grid = heif.grid { precondition(grid.tiles.count == grid.rows * grid.columns, "grid tile count") }
    _ = heif.evidence
    _ = heif.orientation
    _ = heif.storedSize
    _ = heif.bitDepth
    if let exif = try? heif.exifTIFF(in: source), let offset = exif.offset {
        precondition(offset >= 0 && offset + Int64(exif.bytes.count) <= source.size, "exif outside the file")
    }
    _ = try? heif.xmp(in: source)
    _ = heif.motionVideoProbe(path: "fuzz", source: source)
}
