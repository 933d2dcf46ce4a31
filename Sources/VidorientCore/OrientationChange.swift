/// What `fix` is asked to do to a file's orientation (each video track's, or a photo's).
public enum OrientationChange: Sendable, Hashable {
    /// Make the track show this orientation, whatever it had.
    case set(Orientation)
    /// Apply this after what the track already does: the new orientation is
    /// `current.followed(by: turn)`, so `+90` turns the picture as shown a further quarter clockwise.
    case compose(Orientation)

    /// Orientation 1: the identity matrix.
    public static let reset = OrientationChange.set(.up)

    /// `--rotate` values: `90` (clockwise degrees, any multiple of 90) sets the rotation, a sign
    /// (`+90`, `-90`) composes with the current orientation; `mirrored` mirrors first in both.
    /// nil unless the number is a multiple of 90.
    public init?(rotate text: String, mirrored: Bool) {
        // Absent is fine: a failable init, the parse's reason is for `parse` callers.
        guard let rotation = try? RotationChoice.parse(text) else { return nil }
        self.init(rotation: rotation, mirrored: mirrored)
    }

    /// `--rotate` as parsed: a signed turn composes, an unsigned one sets.
    public init(rotation: RotationChoice, mirrored: Bool) {
        let turn = rotation.orientation(mirrored: mirrored)
        self = rotation.isRelative ? .compose(turn) : .set(turn)
    }

    /// The orientation a track that now shows `current` gets.
    public func target(from current: Orientation) -> Orientation {
        switch self {
        case .set(let orientation): orientation
        case .compose(let turn): current.followed(by: turn)
        }
    }
}
