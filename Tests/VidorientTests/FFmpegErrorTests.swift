import Testing

@testable import VidorientFFmpeg

/// FFmpeg's bare words reach the user only where they say something about the file (issue 28:
/// "cannot allocate memory" for a 15 KB MP4 and "invalid argument" did not).
struct FFmpegErrorTests {
    @Test func outOfMemoryAndInvalidArgumentAreSaidInOurWords() {
        #expect(
            FFmpegError.outOfMemory.description
                == "a size in the file is more than FFmpeg could allocate, so the file is damaged or crafted "
                + "(ffmpeg: cannot allocate memory)")
        #expect(
            FFmpegError.invalidArgument.description
                == "FFmpeg found a value in the file that it cannot use, so the file is damaged or not what its name "
                + "says (ffmpeg: invalid argument)")
    }
}
