import CFFmpeg
import VidorientCore
import VidorientIO

/// An open input: owns one `AVFormatContext` from a successful `avformat_open_input` to `deinit`.
/// Everything read from it is copied into value types at once; no borrowed pointer escapes.
final class MediaFile {
    let context: UnsafeMutablePointer<AVFormatContext>
    let path: String
    /// When FFmpeg's I/O gives up, in `av_gettime_relative` microseconds; owned here because
    /// the context's interrupt callback points at it.
    private let deadline: UnsafeMutablePointer<Int64>

    /// Opens `path` for reading, after the checks that give a clearer reason than FFmpeg would.
    /// - Parameter timeout: seconds after which reading gives up (nil: never).
    init(path: String, timeout: Double? = nil) throws(InputError) {
        self.path = path
        var status = stat()
        guard path.withPathCString({ stat($0, &status) }) == 0 else {
            throw InputError(path: path, reason: MediaFile.errnoReason())
        }
        if (status.st_mode & S_IFMT) == S_IFDIR { throw InputError(path: path, reason: "is a directory") }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw InputError(path: path, reason: "not a regular file") }
        guard status.st_size > 0 else { throw InputError(path: path, reason: "file is empty") }
        guard path.withPathCString({ access($0, R_OK) }) == 0 else {
            throw InputError(path: path, reason: MediaFile.errnoReason())
        }
        try FFmpegLibraries.load(for: path)

        let deadline = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        // Beyond a year is never: inf, nan or 1e308 must not overflow the conversion.
        deadline.initialize(
            to: timeout.flatMap { $0.isNaN || $0 >= 31_536_000 ? nil : vo_now() + Int64(max(0, $0) * 1_000_000) }
                ?? Int64.max)
        guard let allocated = avformat_alloc_context() else {
            deadline.deallocate()
            throw InputError(path: path, reason: "out of memory")
        }
        vo_set_deadline(allocated, deadline)
        var context: UnsafeMutablePointer<AVFormatContext>? = allocated
        let code = path.withPathCString { avformat_open_input(&context, $0, nil, nil) }
        guard code >= 0, let context else {
            // avformat_open_input frees the context itself when it fails.
            let timedOut = vo_now() > deadline.pointee
            deadline.deallocate()
            if timedOut { throw .timedOut(path: path, after: timeout ?? 0) }
            throw InputError(path: path, reason: FFmpegError(code: code).description)
        }
        self.context = context
        self.deadline = deadline
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&pointer)
        deadline.deallocate()
    }

    /// Whether the timeout has passed: errors after it are reported as a timeout.
    var timedOut: Bool { vo_now() > deadline.pointee }

    private static func errnoReason() -> String { System.reason() }

    var formatName: String { context.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown" }

    /// Whether FFmpeg's stream-info pass, which decodes a few frames of every stream, is
    /// needed. Not for ISO-BMFF and QuickTime, whose header (`moov`) describes every stream,
    /// unless a picture's size is missing (cover art keeps it inside the image). Not for a
    /// lone image either: the one frame vidorient decodes itself says everything.
    var needsStreamInfo: Bool {
        if isImage { return false }
        guard formatName.hasPrefix("mov,mp4"), !streams.isEmpty else { return true }
        return !streams.allSatisfy { stream in
            let par = stream.pointee.codecpar.pointee
            return par.codec_type != AVMEDIA_TYPE_VIDEO || (par.width > 0 && par.height > 0)
        }
    }

    /// A still image read by one of FFmpeg's image demuxers (`image2`, `jpeg_pipe`, `png_pipe`…).
    var isImage: Bool {
        (formatName == "image2" || formatName.hasSuffix("_pipe")) && streams.count == 1
            && streams[0].pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
    }

    func findStreamInfo() throws(FFmpegError) {
        try FFmpegError.check(avformat_find_stream_info(context, nil))
    }

    var streams: [UnsafeMutablePointer<AVStream>] {
        (0..<Int(context.pointee.nb_streams)).compactMap { context.pointee.streams[$0] }
    }

    /// Reads the next packet into `packet`; false at the end of the file.
    func read(into packet: UnsafeMutablePointer<AVPacket>) throws(FFmpegError) -> Bool {
        let code = av_read_frame(context, packet)
        if code == FFmpegError.endOfFile.code { return false }
        try FFmpegError.check(code)
        return true
    }

    /// Copies an `AVDictionary` into a Swift dictionary.
    static func tags(_ dictionary: OpaquePointer?) -> [String: String] {
        var tags: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            tags[String(cString: next.pointee.key)] = String(cString: next.pointee.value)
            entry = next
        }
        return tags
    }
}
