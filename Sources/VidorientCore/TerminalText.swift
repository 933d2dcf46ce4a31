/// Text from a file (its name, its tags) made safe to show on a terminal: a file named with an
/// ESC sequence or a newline must not repaint the screen or forge a line of output. As `ls`
/// and git do, each control character is shown as an escape instead: `\n`, `\r`, `\t`, and
/// `\xHH` for the others (C0, DEL and the C1 controls U+0080-U+009F). A byte of a path that is
/// not UTF-8 text (a U+F7xx character of `init(pathBytes:)`) is shown as `\xHH` too. JSON and
/// CSV quote control characters themselves and do not use this.
extension String {
    public var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.isControlCharacter) || hasEscapedPathBytes else { return self }
        var result = ""
        for scalar in unicodeScalars {
            if (0xF700...0xF7FF).contains(scalar.value) {
                result += hexEscape(UInt8(scalar.value - 0xF700))
                continue
            }
            guard scalar.isControlCharacter else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += scalar.value > 0xFF ? "\\u{\(hex)}" : "\\x" + (hex.count < 2 ? "0" : "") + hex
            }
        }
        return result
    }
}

extension Unicode.Scalar {
    fileprivate var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}

extension Int {
    /// The count and its noun, singular for one: `1 file`, `3 files`, `1 fix` (`plural` when
    /// not the noun with an `s`).
    public func counting(_ noun: String, plural: String? = nil) -> String {
        "\(self) " + (self == 1 ? noun : plural ?? noun + "s")
    }
}

extension Double {
    /// The number rounded to `decimals` places, without a trailing `.0`: `0.998`, `12.5`, `3`.
    public func text(decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        var text = String((self * scale).rounded() / scale)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}

/// Text for a person: styled with SGR codes only when `colors` (the command's `Terminal` decides:
/// a terminal, `TERM` not `dumb`, `NO_COLOR` unset). Every human report (inspect, fix, normalize,
/// audit, orientation) paints and lays out its rows through it.
public struct TextPainter: Sendable {
    public enum Style: String, Sendable {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36"
    }

    public let colors: Bool

    public init(colors: Bool) { self.colors = colors }

    public func paint(_ text: String, _ style: Style) -> String {
        colors ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// One row of a report: two spaces, the label padded to `width` in `style`, the value.
    public func row(_ label: String, _ value: String, width: Int, style: Style = .dim) -> String {
        "  " + paint(label.padded(width), style) + value
    }
}

extension String {
    /// Padded with spaces to `width`, and at least one space after.
    public func padded(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

/// A report for a person: the title in bold (a file's name, escaped), then rows of a label padded
/// to `labelWidth` and a value; `text` ends in a newline. Every human report is one (inspect's,
/// fix's, normalize's, orientation's).
public struct TextBlock {
    public let painter: TextPainter
    public let labelWidth: Int
    private var lines: [String]

    public init(_ title: String, painter: TextPainter, labelWidth: Int) {
        self.painter = painter
        self.labelWidth = labelWidth
        lines = [painter.paint(title.escapingControlCharacters, .bold)]
    }

    public mutating func row(_ label: String, _ value: String, style: TextPainter.Style = .dim) {
        lines.append(painter.row(label, value, width: labelWidth, style: style))
    }

    /// The row that ends the report of a change: a dry run's "`would`; nothing written", the file
    /// written and what was `done` (", verified" when read back), or, when nothing needed
    /// writing, "already as asked" (fix's and normalize's reports).
    public mutating func outcome(dryRun: Bool, written: String?, verified: Bool, would: String, done: String) {
        if dryRun {
            row("dry run", "\(would); nothing written")
        } else if let written {
            row("written", "\(written.escapingControlCharacters) (\(done)\(verified ? ", verified" : ""))")
        } else {
            row("unchanged", "already as asked; nothing written")
        }
    }

    public var text: String { lines.joined(separator: "\n") + "\n" }
}
