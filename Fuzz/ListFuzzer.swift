// libFuzzer target for the lines vidorient reads back (see Fuzz/README.md): a fix journal
// (`JournalFile.read`, what `fix --undo` trusts), an audit's output as `fix --from-audit` and
// `report` read it (`AuditInput`, lines or one document), and one record's suggested fix
// (`AuditedFix`). Built by `Fuzz/run.sh lists`, compiled into one module with those sources
// (their internal types are what is fuzzed).
import FoundationEssentials
import VidorientCore

#if canImport(Glibc)
import Glibc
#endif

/// One input, written to a file as a journal or an audit would be: reading returns or refuses,
/// never traps; an entry read back encodes and reads back the same (the journal holds what
/// undo acts on, bytes of paths included); a suggested fix is one of the eight orientations.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let path = "input-\(getpid()).jsonl"
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(descriptor >= 0, "cannot write the input file")
    var written = 0
    while written < bytes.count {
        let done = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        precondition(done > 0, "cannot write the input file")
        written += done
    }
    close(descriptor)
    defer { unlink(path) }

    if let journal = try? JournalFile.read(path: path) {
        let encoder = JSONText(pretty: false)
        for entry in journal.entries {
            guard let line = try? encoder.encode(entry) else { preconditionFailure("an entry read does not encode") }
            let again = try? JSONDecoder().decode(JournalEntry.self, from: Data(line.utf8))
            precondition(again == entry, "an entry does not read back as written")
            precondition(entry.path.pathBytes == again?.path.pathBytes, "a path's bytes changed")
        }
    }

    if var input = try? AuditInput<AuditedFix.Record>(path: path) {
        try? input.read { item in
            // Every finding's fix considered, judgments too: the default selection and a floor.
            guard case .record(let record, _) = item,
                let fix = try? AuditedFix.choose(record, selection: AuditSelection(minimumConfidence: 0.5)).fix
            else { return }
            precondition(fix.path == record.path, "the fix is not for the record's file")
            precondition((1...8).contains(fix.orientation.exif), "a suggested fix outside 1-8")
        }
    }
    for line in bytes.split(separator: UInt8(ascii: "\n")).prefix(8) {
        if let fix = try? AuditedFix.parse(line: String(decoding: line, as: UTF8.self)) {
            precondition((1...8).contains(fix.orientation.exif), "a suggested fix outside 1-8")
        }
    }
    return 0
}
