public import VidorientCore

/// The photo readers' name for the one error (`VidorientError`): why a photo's structure could
/// not be read, in a few lowercase words with no path (the caller names the file, as in
/// `could not read 'x.png': bad crc in chunk 'IHDR'`). `PhotoFormatError("…")` is `.malformed`.
public typealias PhotoFormatError = VidorientError
