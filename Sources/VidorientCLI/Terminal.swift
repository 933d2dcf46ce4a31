// swift-format-ignore-file: OrderedImports
// Preconcurrency for the C `stdout` stream, which the exit check flushes: imported before
// VidorientCore, whose re-export of the C library does not carry @preconcurrency.
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#endif
import Synchronization
import VidorientAudit
import VidorientCore
import VidorientIO

/// Set when a line meant for stderr could not be written: the run then cannot claim success.
private let diagnosticLost = Atomic<Bool>(false)

/// Where output goes, and whether it may be coloured: only on a terminal, with `TERM` not
/// `dumb` and `NO_COLOR` unset (https://no-color.org).
struct Terminal {
    let painter: TextPainter

    static let standardOutput = Terminal(descriptor: STDOUT_FILENO)

    init(descriptor: Int32) {
        let term = getenv("TERM").map { String(cString: $0) }
        painter = TextPainter(
            colors: isatty(descriptor) == 1 && term != "dumb" && term != nil && getenv("NO_COLOR") == nil)
    }

    /// One line on stderr: diagnostics never mix with the data on stdout.
    static func warn(_ line: String) {
        // Lines name files, and a file's name may hold an ESC sequence or a newline.
        if !writeAll(STDERR_FILENO, Array("vidorient: \(line.escapingControlCharacters)\n".utf8)) {
            diagnosticLost.store(true, ordering: .relaxed)
        }
    }

    /// Bytes for standard output, through the same stdio buffer as `print` (so they keep their
    /// place among printed text); a failure is found by `checkOutputWritten`.
    static func output(_ bytes: ArraySlice<UInt8>) {
        _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, stdout) }
    }

    /// Writes every byte, retrying short writes; false when the descriptor refuses.
    @discardableResult
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        // A stream that refuses is said by the result: the exit check turns it into status 2.
        (try? System.write(descriptor, bytes, at: nil)) != nil
    }

    /// Runs at exit: flushes standard output and ends the process with status 2 when anything
    /// printed (a report on a full disk, a closed descriptor) or any diagnostic was lost. The
    /// data was not delivered, so the command did not do its job, whatever it was about to return.
    static func checkOutputWritten() {
        let flushed = fflush(stdout) == 0 && ferror(stdout) == 0
        if !flushed {
            warn("could not write standard output: \(System.reason())")
        }
        if !flushed || diagnosticLost.load(ordering: .relaxed) { _exit(2) }
    }
}
