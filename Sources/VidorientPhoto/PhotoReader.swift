package import VidorientCore
package import VidorientIO

/// The photo path's entry: what a file is (from its signature), then that format's reader, then
/// the sidecar beside it. No decoding and no FFmpeg: headers, chunks, boxes and tags only.
package enum PhotoReader {
    /// The format of the file at `path`, from its first bytes. Missing files, directories,
    /// FIFOs, devices, unreadable and empty files are errors naming the reason.
    package static func format(of path: String) throws(InputError) -> MediaFormat {
        let file = try Self.open(path)
        let count = Int(min(Int64(MediaFormat.signatureLength), file.size))
        let format: MediaFormat
        do {
            format = MediaFormat(signature: try file.read(at: 0, count: count))
        } catch {
            throw error.at(path: path)
        }
        if let reason = format.unsupportedReason { throw InputError(path: path, reason: reason, kind: .unsupported) }
        return format
    }

    /// Everything the file (and its sidecar) states, for `PhotoReport` to decide on.
    package static func read(path: String, format known: MediaFormat? = nil) throws(InputError) -> PhotoEvidence {
        let file = try Self.open(path)
        let source = ReadAheadBytes(file)
        var evidence: PhotoEvidence
        do throws(VidorientError) {
            let format: MediaFormat
            if let known {
                format = known
            } else {
                format = MediaFormat(signature: try source.read(at: 0, count: Int(min(64, source.size))))
            }
            evidence = try read(source, path: path, format: format)
        } catch {
            throw error.at(path: path)
        }
        evidence.fileSize = Int(file.size)
        if let sidecar = Sidecar.statement(forPhotoAt: path) { evidence.statements.append(sidecar) }
        return evidence
    }

    /// Reads a photo of a known format from any byte source (the fuzzer and tests use memory).
    package static func read(_ source: some ByteSource, path: String, format: MediaFormat) throws(PhotoFormatError)
        -> PhotoEvidence
    {
        switch format {
        case .jpeg: return try JPEGReader.read(source, path: path)
        case .png: return try PNGReader.read(source, path: path)
        case .webp: return try WebPReader.read(source, path: path)
        case .tiff: return try TIFFFileReader.read(source, path: path)
        case .heif: return try HEIFPhotoReader.read(source, path: path, format: format)
        case .raw(let name): return try RawContainerReader.read(source, path: path, container: name)
        case .movie, .other: throw PhotoFormatError("not a photo (\(format))")
        }
    }

    static func open(_ path: String) throws(InputError) -> FileBytes {
        do {
            return try FileBytes(path: path)
        } catch {
            throw error.at(path: path)
        }
    }
}
