import Foundation
import MediaExport

// JSON Lines, one `JSONLine` record per line (docs/json-events.md). The library's events are plain `Codable` values
// in the library's one envelope; the tool adds what only it knows: the exit code of a `failed` record and of the
// batch, and raw file-name bytes shown as such.

extension JSONLine {
    /// The record as written on stdout: `text`, with a file name's raw bytes shown as `FileName.display` does.
    var shown: String { FileName.displayingRawBytes(inJSON: text) }

    /// The record of `kind` carrying `payload`, as written on stdout.
    static func shown<P: Encodable>(_ kind: String, _ payload: P) -> String { ((try? JSONLine(kind: kind, payload: payload))?.shown) ?? "" }
}

extension ExportEvent {
    /// The event's record; a `failed` record's payload also has the tool's `exitCode`.
    var record: JSONLine {
        var record = line
        if case .failed(let f) = self { record.setPayload("exitCode", .number(Double(ExitStatus.code(for: f.error)))) }
        return record
    }

    /// One JSON Lines record (no trailing newline).
    func jsonLine() -> String { record.shown }
}

extension BatchEvent {
    /// One JSON Lines record: an export's own record with its job and asset, or a batch record.
    func jsonLine() -> String {
        var record: JSONLine?
        switch self {
        case .planned(let item):
            var shown = item
            shown.key = FileName.display(item.key); shown.input = FileName.display(item.input)
            shown.output = FileName.display(item.output); shown.resources = item.resources.map(FileName.display)
            shown.reason = FileName.display(item.reason)
            record = try? JSONLine(kind: "planned", payload: shown, asset: shown.key)
            record?.setPayload("action", .string(item.action))
            record?.setPayload("created", .string(JSONTime.iso8601(item.created)))  // a date, as every date: ISO 8601
        case .job(let id, let key, let status): record = try? JSONLine(kind: "job", payload: ["status": status.rawValue], job: id, asset: key)
        case .export(let id, let key, let event):
            record = event.record
            record?.job = id
            record?.asset = key
        case .finished(let f):
            record = try? JSONLine(kind: "batchFinished", payload: f)
            record?.setPayload("exitCode", .number(Double(ExitStatus.code(for: f.outcome))))
        }
        return record?.shown ?? ""
    }
}
