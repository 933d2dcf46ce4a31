extension FormatReport {
    /// A file's average bit rate, as FFmpeg derives it when the container states none: its size
    /// over its duration, rounded towards zero. nil when there is no duration, or when the rate is
    /// not a whole number an `Int` holds (a duration of a microsecond over a terabyte): never a trap.
    /// The one rule for every path (FFmpeg's, the box layer's description, the headers' view).
    public static func averageBitRate(bytes: Int64, seconds: Double) -> Int? {
        guard bytes > 0, seconds > 0 else { return nil }
        return Int(exactly: (Double(bytes) * 8 / seconds).rounded(.towardZero))
    }
}
