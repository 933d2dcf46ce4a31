// `import Vidorient` is enough for a library user: the report types, orientations and matrices
// come with it (VidorientCore), as the product's comment in Package.swift says.
@_exported public import VidorientCore
import VidorientFFmpeg

/// The decoders' own messages (FFmpeg's warnings and errors on stderr). Process-wide; off in
/// every command except with `--verbose`.
public enum DecoderLog {
    /// true: FFmpeg prints its warnings and errors on stderr; false: nothing at all.
    public static func setVerbose(_ verbose: Bool) { FFmpegLog.setVerbose(verbose) }
}
