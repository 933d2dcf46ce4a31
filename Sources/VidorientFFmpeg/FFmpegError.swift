import CFFmpeg

/// A negative FFmpeg return code, with `av_strerror`'s message in lowercase.
struct FFmpegError: Error, CustomStringConvertible {
    let code: Int32

    static let endOfFile = FFmpegError(code: vo_averror_eof())
    static let tryAgain = FFmpegError(code: vo_averror_eagain())
    static let outOfMemory = FFmpegError(code: vo_averror_enomem())
    static let invalidArgument = FFmpegError(code: vo_averror_einval())

    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(AV_ERROR_MAX_STRING_SIZE))
        let message =
            av_strerror(code, &buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : "ffmpeg error \(code)"
        return message.prefix(1).lowercased() + message.dropFirst()
    }

    /// Throws for a negative return code; passes a non-negative one through.
    @discardableResult
    static func check(_ code: Int32) throws(FFmpegError) -> Int32 {
        guard code >= 0 else { throw FFmpegError(code: code) }
        return code
    }
}

extension FFmpegError: Equatable {
    static func == (lhs: FFmpegError, rhs: FFmpegError) -> Bool { lhs.code == rhs.code }
}

/// How much FFmpeg itself prints on stderr: nothing by default, so each bad input gets one line.
/// FFmpeg's own log, which goes to stderr. Its warnings (a deprecated pixel format, a damaged
/// packet) say nothing about orientation, so the command line silences them unless `--verbose`.
public enum FFmpegLog {
    /// true: FFmpeg prints warnings and errors on stderr; false: nothing at all. Process-wide.
    public static func setVerbose(_ verbose: Bool) {
        av_log_set_level(verbose ? AV_LOG_WARNING : AV_LOG_QUIET)
    }
}
