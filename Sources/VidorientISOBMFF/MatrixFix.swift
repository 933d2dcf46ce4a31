package import VidorientCore

/// The plan for one file: which matrices change, from what to what, and where their 36 bytes
/// are. Every video track's `tkhd` matrix is set, with the translation Apple writes for the
/// track's `tkhd` width and height; with `resetMovieMatrix`, a non-identity `mvhd` matrix becomes
/// the identity. No other byte of the file is touched.
package struct MatrixFix: Sendable, Hashable {
    package struct Patch: Sendable, Hashable {
        /// The track, or nil for the movie header.
        package var trackID: UInt32?
        /// The track's stream index, as `inspect` numbers streams (its place among the tracks,
        /// from 0); nil for the movie header.
        package var streamIndex: Int? = nil
        package var before: StoredMatrix
        package var after: StoredMatrix

        /// Bytes that differ between the old and new 36.
        package var changedByteCount: Int { zip(before.bytes, after.bytes).filter { $0 != $1 }.count }
    }

    /// One per video track in file order, then the movie header's when it is reset; unchanged
    /// ones (already as asked) are included, with no changed bytes.
    package var patches: [Patch]
    /// Messages worth a person's attention, such as a movie matrix that still rotates.
    package var warnings: [String]

    package var bytesChanged: Int { patches.reduce(0) { $0 + $1.changedByteCount } }

    /// The plan as bytes: each changed matrix's 36 bytes, old and new, at its offset. This is what
    /// `EditWriter` writes (and a journal records), as for every other fix.
    /// Matrices of distinct boxes never overlap; patches that did (a planning bug, or `patches`
    /// changed by hand) are an error, never an empty edit that would read as "already as asked".
    package var edit: FileEdit {
        get throws(VidorientError) {
            let splices = patches.filter { $0.changedByteCount > 0 }.map {
                ByteSplice(offset: $0.before.offset, old: $0.before.bytes, new: $0.after.bytes)
            }
            do { return try FileEdit(splices) } catch { throw error.context("the planned matrices are inconsistent") }
        }
    }

    /// Plans the change, or refuses what cannot be changed safely: a fragmented file, a file
    /// without a video track, and, for `.compose`, a matrix that is not one of the eight.
    package init(_ movie: MovieStructure, change: OrientationChange, resetMovieMatrix: Bool = false)
        throws(ISOBMFFError)
    {
        if movie.topLevelBoxes.contains(where: { $0.type == "moof" }) {
            throw .unsupported("fragmented mp4 (moof) is not supported")
        }
        if movie.isFragmented { throw .unsupported("fragmented mp4 (mvex) is not supported") }
        let videoTracks = movie.videoTracks
        guard !videoTracks.isEmpty else { throw .unsupported("no video track") }

        // What players show is the track's matrix followed by the movie's (FFmpeg multiplies
        // them, and `inspect` reports the product): every target is reached through that product.
        let movieMatrix = movie.movieHeader.matrix
        let identity = DisplayMatrix.identity.fixedPoint
        let resetsMovie = resetMovieMatrix && movieMatrix.fixedPoint != identity
        let shownMovie = resetsMovie ? DisplayMatrix.identity : movieMatrix.matrix
        guard let movieOrientation = shownMovie.analysis.orientation else {
            let what = shownMovie.analysis.rotation.map { "rotates \(Int($0.rounded()))°" } ?? "cannot be inverted"
            throw .unsupported(
                "the movie matrix (mvhd) \(what), which is not one of the eight orientations, so no track matrix "
                    + "can make the two show one; add --reset-movie-matrix")
        }

        patches = []
        for track in videoTracks {
            let shown = MatrixFix.displayed(track: track.matrix.matrix, movie: movieMatrix.matrix)
            let target: Orientation
            switch change {
            case .set(let orientation):
                target = orientation
            case .compose:
                guard let orientation = shown.orientation else {
                    let what = shown.rotation.map { "rotates \(Int($0.rounded()))°" } ?? "cannot be inverted"
                    throw .unsupported(
                        "track \(track.trackID) is shown through a matrix that \(what), which is not one of the eight "
                            + "orientations, so there is nothing to turn relative to; set an orientation instead")
                }
                target = change.target(from: orientation)
            }
            let trackOrientation = MatrixFix.trackOrientation(showing: target, movie: movieOrientation)
            let after = MatrixFix.matrix(for: trackOrientation, track: track)
            patches.append(
                Patch(
                    trackID: track.trackID, streamIndex: movie.tracks.firstIndex { $0.trackID == track.trackID },
                    before: track.matrix, after: StoredMatrix(fixedPoint: after, offset: track.matrix.offset)))
        }

        warnings = []
        if movieMatrix.fixedPoint != identity {
            if resetMovieMatrix {
                patches.append(
                    Patch(
                        trackID: nil, before: movieMatrix,
                        after: StoredMatrix(fixedPoint: identity, offset: movieMatrix.offset)))
            } else {
                warnings.append(
                    "the movie matrix (mvhd) is not the identity, so players apply it after the track's; the track's "
                        + "was set so that the two together show what was asked, but players that read only the "
                        + "track's disagree; add --reset-movie-matrix to reset it")
            }
        }
    }

    /// What a track is shown as: its own matrix, then the movie's, as FFmpeg, AVFoundation and
    /// `inspect` compose them. The one composition `--orientation`, `--rotate` and the
    /// verification share.
    package static func displayed(track: DisplayMatrix, movie: DisplayMatrix) -> MatrixAnalysis {
        movie.after(track).analysis
    }

    /// The orientation a track's own matrix must have for the track to be shown as `target`
    /// through a movie matrix of orientation `movie`: `track` followed by `movie` is `target`.
    package static func trackOrientation(showing target: Orientation, movie: Orientation) -> Orientation {
        target.followed(by: movie.inverse)
    }

    /// Apple's matrix for `orientation` on this track: the translation keeps the picture at the
    /// origin, computed from the `tkhd` width and height (the picture before the matrix, as
    /// iPhones write them); from the sample entry's size when the `tkhd` has none.
    static func matrix(for orientation: Orientation, track: Track) -> [Int32] {
        var width = track.width, height = track.height
        if width == 0 || height == 0, let codedWidth = track.codedWidth, let codedHeight = track.codedHeight {
            (width, height) = (Double(codedWidth), Double(codedHeight))
        }
        // The 16.16 integers themselves, so that a fractional width (anamorphic video) gives an
        // exact translation in 1/65536 pixel instead of a rounded one.
        var matrix = DisplayMatrix(orientation, width: Int(width * 65536), height: Int(height * 65536))
        matrix.tx /= 65536
        matrix.ty /= 65536
        return matrix.fixedPoint
    }

    /// `bytes` (a whole file) with every patch applied.
    package func applied(to bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        for patch in patches {
            let start = Int(patch.after.offset)
            result.replaceSubrange(start..<start + StoredMatrix.byteCount, with: patch.after.bytes)
        }
        return result
    }

    /// What reading the file back must give: `movie` with the new matrices and nothing else
    /// changed. Verification compares the whole structure, so a write that strayed elsewhere
    /// in the header is caught too.
    package func expectedStructure(from movie: MovieStructure) -> MovieStructure {
        var expected = movie
        for patch in patches {
            if let trackID = patch.trackID {
                for index in expected.tracks.indices
                where expected.tracks[index].trackID == trackID
                    && expected.tracks[index].matrix.offset == patch.before.offset
                {
                    expected.tracks[index].matrix = patch.after
                }
            } else {
                expected.movieHeader.matrix = patch.after
            }
        }
        return expected
    }
}
