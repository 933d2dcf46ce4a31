import CFFmpeg
import VidorientCore

/// A negative FFmpeg return code, with `av_strerror`'s message in lowercase.
struct FFmpegError: Error, CustomStringConvertible {
    let code: Int32

    static let endOfFile = FFmpegError(code: vo_averror_eof())
    static let tryAgain = FFmpegError(code: vo_averror_eagain())
    static let outOfMemory = FFmpegError(code: vo_averror_enomem())
    static let invalidArgument = FFmpegError(code: vo_averror_einval())

    /// In our words where FFmpeg's own mean little about a file (issue 28: "cannot allocate
    /// memory" for a 15 KB MP4, "invalid argument"), its words kept after them; otherwise
    /// `av_strerror`'s, lowercased.
    var description: String {
        if self == .outOfMemory {
            return "a size in the file is more than FFmpeg could allocate, so the file is damaged or crafted "
                + "(ffmpeg: cannot allocate memory)"
        }
        if self == .invalidArgument {
            return "FFmpeg found a value in the file that it cannot use, so the file is damaged or not what its "
                + "name says (ffmpeg: invalid argument)"
        }
        var buffer = [CChar](repeating: 0, count: Int(AV_ERROR_MAX_STRING_SIZE))
        let message =
            av_strerror(code, &buffer, buffer.count) == 0
            ? String(cMessage: buffer)
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
package enum FFmpegLog {
    /// true: FFmpeg prints warnings and errors on stderr; false: nothing at all. Process-wide.
    package static func setVerbose(_ verbose: Bool) {
        vo_ffmpeg_set_log_level(verbose ? AV_LOG_WARNING : AV_LOG_QUIET)
    }
}

/// FFmpeg's libraries, opened the first time a file needs them (Sources/CFFmpeg/FFmpegLoader.c),
/// never when the program starts. Each way into FFmpeg asks here first, so that a missing FFmpeg
/// is one clear line about the file instead of a crash.
enum FFmpegLibraries {
    /// Opens FFmpeg once per process; throws why it cannot be used, for `path`'s error line:
    /// `FFmpeg is not installed (libavformat.so.59: cannot open shared object file: ...)`.
    static func load(for path: String) throws(InputError) {
        if let failure = loadFailure { throw InputError(path: path, reason: failure) }
    }

    /// nil once FFmpeg is loaded; the reason it cannot be otherwise.
    static var loadFailure: String? {
        var error = [CChar](repeating: 0, count: 512)
        guard vo_ffmpeg_load(&error, error.count) != 0 else { return nil }
        return String(cMessage: error)
    }
}
