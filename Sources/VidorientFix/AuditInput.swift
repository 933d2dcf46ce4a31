import FoundationEssentials
public import VidorientCore
import VidorientIO

/// An audit's output read back, by `fix --from-audit` and by `report`: the lines `audit --jsonl`
/// writes (one record a line; shards concatenate) or the one document `audit --json` writes (its
/// records in `files`, as written or after `jq`, pretty or compact; a bare array of records too).
///
/// Which of the two it is is decided once, by the first line that is not blank: a record there
/// means lines, and each later line is read on its own (a bad one is said and skipped, the others
/// stand). Anything else must be a whole document, read whole before any record is handed on, or
/// the input is refused as a whole: a document is never read as lines, where its last record
/// alone, having no comma after it, would pass for one.
public struct AuditInput<Record: Decodable> {
    /// What was read: a record, or why a line could not be read.
    public enum Item {
        /// A record, and where it was: "line 3", "record 3 of the document".
        case record(Record, place: String)
        case unreadable(String)
    }

    private var lines: PathList
    private var name: String { lines.name }

    /// - Parameter path: a file, or `-` for standard input.
    public init(path: String) throws(VidorientError) {
        lines = try PathList(path: path, nulSeparated: false)
    }

    /// Every record at `path`, read whole before anything is done with them: a line that is not a
    /// record refuses the whole input (`report`'s pages, `audit --decisions`).
    public static func records(at path: String) throws(VidorientError) -> [Record] {
        var records: [Record] = []
        var reader = try AuditInput(path: path)
        do {
            try reader.read { item in
                switch item {
                case .record(let record, _): records.append(record)
                case .unreadable(let reason): throw VidorientError.malformed(reason)
                }
            }
        } catch let error as VidorientError {
            throw error
        } catch {
            throw .malformed("could not read the audit on \(reader.name): \(error)")
        }
        return records
    }

    /// Reads everything, in order. Throws, before `each` has seen anything, when the input is
    /// neither: its first line not a record and the whole not a document of records.
    public mutating func read(_ each: (Item) throws -> Void) throws {
        let decoder = JSONDecoder()
        var number = 0
        var first: String?
        while let line = lines.next() {
            number += 1
            if !line.allSatisfy(\.isWhitespace) {
                first = line
                break
            }
        }
        guard let first else { return }
        try refuseWhatTheDecoderMisreads(first, place: "line \(number)")
        let firstNumber = number
        let firstRecord: Record
        do { firstRecord = try decoder.decode(Record.self, from: Data(first.utf8)) } catch let lineError {
            try readDocument(first, firstNumber: firstNumber, lineError: lineError, decoder: decoder, each)
            return
        }
        try each(.record(firstRecord, place: "line \(number)"))
        while let line = lines.next() {
            number += 1
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            try refuseWhatTheDecoderMisreads(line, place: "line \(number)")
            let record: Record
            do { record = try decoder.decode(Record.self, from: Data(line.utf8)) } catch {
                let why = (error as? DecodingError).map { Self.reason($0) } ?? "\(error)"
                try each(.unreadable("could not read the audit on \(name), line \(number): \(why)"))
                continue
            }
            try each(.record(record, place: "line \(number)"))
        }
        for problem in lines.problems { try each(.unreadable("could not read the audit on \(name): \(problem)")) }
    }

    /// A record naming a key twice means what its reader decides (jq takes the last, we would take
    /// the first): the whole input is refused, before anything is done. So is one nested deeper
    /// than the decoder goes, which it would call "not valid json".
    private func refuseWhatTheDecoderMisreads(_ text: String, place: String?) throws(VidorientError) {
        let at = place.map { ", \($0)" } ?? ""
        // Valid JSON the decoder would call "not valid": said for what it is.
        if JSONStructure.depth(of: text) > JSONStructure.decoderDepthLimit {
            throw .malformed(
                "could not read the audit on \(name)\(at): nested too deep (more than "
                    + "\(JSONStructure.decoderDepthLimit) levels of arrays and objects); nothing was done")
        }
        guard let key = JSONStructure.firstRepeatedKey(in: text) else { return }
        throw .malformed(
            "could not read the audit on \(name)\(at): the key \"\(key.escapingControlCharacters)\" appears twice in one "
                + "object, which readers take differently; nothing was done")
    }

    /// The input as one document, `first` its first line that is not blank.
    private mutating func readDocument(
        _ first: String, firstNumber: Int, lineError: any Error, decoder: JSONDecoder, _ each: (Item) throws -> Void
    ) throws {
        var text = first
        while let line = lines.next() {
            text += "\n"
            text += line
        }
        if let problem = lines.problems.first {
            throw VidorientError.malformed("could not read the audit on \(name): \(problem); nothing was done")
        }
        try refuseWhatTheDecoderMisreads(text, place: nil)
        let records: [Record]
        do {
            records = try decoder.decode(Document.self, from: Data(text.utf8)).records
        } catch {
            let why = { (error: any Error) in (error as? DecodingError)?.summary ?? "\(error)" }
            throw VidorientError.malformed(
                "\(name) is neither audit --jsonl lines (line \(firstNumber) is not an audit record: \(why(lineError))) "
                    + "nor one audit --json document (\(why(error))); nothing was done")
        }
        for (index, record) in records.enumerated() {
            try each(.record(record, place: "record \(index + 1) of the document"))
        }
    }

    /// `{"files": [...], ...}` as `audit --json` writes it, or a bare array of records.
    private struct Document: Decodable {
        var records: [Record]
        enum CodingKeys: String, CodingKey { case files }

        init(from decoder: any Decoder) throws {
            do {
                records = try decoder.singleValueContainer().decode([Record].self)
            } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
                // Not an array: the `audit --json` document. An array with a bad record is said
                // as that record's error, not as "expected a dictionary".
                records = try decoder.container(keyedBy: CodingKeys.self).decode([Record].self, forKey: .files)
            }
        }
    }

    private static func reason(_ error: DecodingError) -> String {
        "not an audit record (audit --jsonl and audit --json write them): \(error.summary)"
    }
}
