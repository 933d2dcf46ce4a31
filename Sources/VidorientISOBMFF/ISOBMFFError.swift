public import VidorientCore

/// The box layer's name for the one error (`VidorientError`): why a file could not be read or
/// fixed, in a few lowercase words with no path (the caller names the file, as in
/// `could not fix 'x.mp4': fragmented mp4 (moof) is not supported`).
public typealias ISOBMFFError = VidorientError
