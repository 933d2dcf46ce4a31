#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where output goes, and whether it may be coloured: only on a terminal, with `TERM` not
/// `dumb` and `NO_COLOR` unset (https://no-color.org).
struct Terminal {
    let colors: Bool

    static let standardOutput = Terminal(descriptor: STDOUT_FILENO)

    init(descriptor: Int32) {
        let term = getenv("TERM").map { String(cString: $0) }
        colors = isatty(descriptor) == 1 && term != "dumb" && term != nil && getenv("NO_COLOR") == nil
    }

    enum Style: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36"
    }

    func paint(_ text: String, _ style: Style) -> String {
        colors ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// One line on stderr: diagnostics never mix with the data on stdout.
    static func warn(_ line: String) {
        let bytes = Array("vidorient: \(line)\n".utf8)
        _ = bytes.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
