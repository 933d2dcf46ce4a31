import ArgumentParser
import Vidorient
import VidorientAudit
import VidorientCore
import VidorientIO

/// A value an option takes, read once by its own type's `parse` (in the library, where a library
/// user parses the same text the same way).
protocol OptionValue: ExpressibleByArgument {
    static func parse(_ text: String) throws(ValueError) -> Self
}

extension OptionValue {
    init?(argument: String) {
        // Absent is fine: ArgumentParser's failable init; `transform:` options report the parse's reason.
        guard let value = try? Self.parse(argument) else { return nil }
        self = value
    }

    /// For `@Option(transform:)`: a refusal names the option, as in `--size must be WxH ...`.
    static func parser(for option: String) -> @Sendable (String) throws -> Self {
        optionParser(option, parse)
    }
}

/// `parse` for `@Option(transform:)`, its refusal said after the option's name (exit status 64):
/// `Error: The value '0/3' is invalid for '--shard <shard>': --shard must be K/N with 1 <= K <= N`.
/// (An option with a transform shows no default in its help: write the default in the help text.)
func optionParser<Value>(
    _ option: String, _ parse: @escaping @Sendable (String) throws(ValueError) -> Value
) -> @Sendable (String) throws -> Value {
    { text in
        do { return try parse(text) } catch { throw ValidationError("\(option) \(error)") }
    }
}

extension PixelSize: OptionValue {
    static func parse(_ text: String) throws(ValueError) -> PixelSize {
        try parse(text, largestSide: largestStoredSide)
    }
}

extension ContactSheetGrid: OptionValue {}
extension TimePoint: OptionValue {}
extension Shard: OptionValue {}
extension OrientationChoice: OptionValue {}
extension RotationChoice: OptionValue {}
extension OutputNameTemplate: OptionValue {}

extension Severity: OptionValue {
    init?(argument: String) { self.init(rawValue: argument) }
}

extension ImageFormat: OptionValue {
    // Spelled out: as a `RawRepresentable` it would otherwise get two (`jpeg` must count as jpg).
    init?(argument: String) {
        // Absent is fine: ArgumentParser's failable init, which names the option and its values.
        guard let format = try? ImageFormat.parse(argument) else { return nil }
        self = format
    }
}
