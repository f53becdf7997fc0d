import Foundation

/// What an Apple `.AAE` file says about its edits: its format, the editor that wrote it, and the adjustments its
/// `adjustmentData` holds when that is one of Apple's formats we decode (see `AppleAdjustment`).
public struct AdjustmentInfo: Codable, Sendable, Equatable {
    /// The record's `adjustmentFormatIdentifier` (e.g. `com.apple.video.slomo`), which says how to read its data.
    public var formatIdentifier: String?
    /// The record's `adjustmentFormatVersion`.
    public var formatVersion: String?
    /// The record's `adjustmentBaseVersion`: the version of the original the edit was made on.
    public var baseVersion: Int?
    /// The app that made the edit (`adjustmentEditorBundleID`, e.g. `com.apple.mobileslideshow`); nil when absent or empty.
    public var editor: String?
    /// The decoded adjustments, in the record's order; empty when there are none or `adjustmentData` could not be decoded.
    public var adjustments: [AppleAdjustment]
    /// Why `adjustmentData` could not be decoded ("adjustmentData of com.example.editor is opaque (third-party
    /// editor)"); nil when it was decoded or is absent.
    public var undecodable: String?

    /// Parses an `.AAE`'s bytes; `path` names the file in errors, and `inflate` inflates raw DEFLATE data
    /// (windowBits -15) to at most `limit` bytes, returning nil on any error, truncation or a larger result.
    /// Throws `ExportError.invalidSidecar` when the envelope (the property list and its format identifier) cannot
    /// be read; a broken `adjustmentData` never throws: it is `undecodable`, with the reason.
    package static func parse(_ data: Data, path: String, inflate: (Data, _ limit: Int) -> Data?) throws -> AdjustmentInfo {
        func bad(_ field: String, _ reason: String) -> ExportError { .invalidSidecar(path: path, field: field, reason: reason) }
        if data.count > UntrustedFile.maxBytes {
            let refusal = UntrustedFile.tooLarge(Int64(data.count), kind: ".AAE files")
            throw bad(refusal.field, refusal.reason)
        }
        var dict: [String: Any] = [:]
        /// Keys present whose value is not of a type we read (a container, or `<data>` that is not base64), with why.
        var unreadable: [String: String] = [:]
        if data.starts(with: Array("bplist".utf8)) {
            // Our own bounds-checked reader: Foundation's binary parser crashes on some malformed files. It reads
            // only the top-level dictionary's scalars and data and never descends into containers there.
            guard let entries = BinaryPropertyList.topLevelDictionary(data) else {
                throw bad("-", "not a well-formed binary property list with a dictionary at the top")
            }
            for (key, value) in entries {
                switch value {
                case .string(let s)?: dict[key] = s
                case .integer(let i)?: dict[key] = NSNumber(value: i)
                case .real(let d)?: dict[key] = NSNumber(value: d)
                case .bool(let b)?: dict[key] = NSNumber(value: b)
                case .data(let d)?: dict[key] = d
                default: unreadable[key] = "is not a data value"
                }
            }
        } else {
            (dict, unreadable) = try xmlFields(data, bad: bad)
        }
        // The strings are the uploader's: cut so that they cannot flood a report, an event or a message.
        func string(_ key: String) -> String? {
            if let s = dict[key] as? String { return UntrustedFile.echo(s) }
            if let n = dict[key] as? NSNumber { return n.stringValue }
            return nil
        }
        guard let identifier = string("adjustmentFormatIdentifier") else {
            throw bad("adjustmentFormatIdentifier", "missing: not an Apple adjustment file")
        }
        var info = AdjustmentInfo(formatIdentifier: identifier, formatVersion: string("adjustmentFormatVersion"),
                                  baseVersion: (dict["adjustmentBaseVersion"] as? NSNumber)?.intValue,
                                  editor: (dict["adjustmentEditorBundleID"] as? String).flatMap { $0.isEmpty ? nil : UntrustedFile.echo($0) })
        if let payload = dict["adjustmentData"] as? Data {
            (info.adjustments, info.undecodable) = AdjustmentDataDecoder.decode(payload, identifier: identifier, inflate: inflate)
        } else if let why = unreadable["adjustmentData"] {
            info.undecodable = "adjustmentData of \(identifier) \(why)"
        }
        return info
    }

    /// The keys of an XML `.AAE`, and those present but unreadable with why.
    private static func xmlFields(_ data: Data, bad: (String, String) -> ExportError) throws -> ([String: Any], [String: String]) {
        // Foundation's XML plist parser recurses per element: the nesting is bounded first (a 10 000-deep file
        // overflowed the stack). Only UTF-8 XML gets through: no OpenStep or UTF-16 plists in an .AAE.
        do { try XMLPlistStructure.check(data) } catch let refusal as UntrustedFile.Refusal { throw bad(refusal.field, refusal.reason) }
        // PropertyListDecoder rather than PropertyListSerialization: the latter leaks on every file it rejects.
        let fields: AAEFields
        do { fields = try PropertyListDecoder().decode(AAEFields.self, from: data) } catch {
            throw bad("-", "not a property list with a dictionary at the top (XML or binary)")
        }
        var dict: [String: Any] = [:], unreadable: [String: String] = [:]
        dict["adjustmentFormatIdentifier"] = fields.adjustmentFormatIdentifier
        dict["adjustmentFormatVersion"] = fields.adjustmentFormatVersion
        dict["adjustmentBaseVersion"] = fields.adjustmentBaseVersion.map { NSNumber(value: $0) }
        dict["adjustmentEditorBundleID"] = fields.adjustmentEditorBundleID
        if fields.adjustmentDataUnreadable { unreadable["adjustmentData"] = "is not a data value" }
        if let payload = fields.adjustmentData {
            // Foundation skips what is not base64 in `<data>` ("not base64!" reads as nothing at all): the payload
            // counts only when it is the strict decoding of the element's text (or that text is not found: `<data/>`).
            let texts = XMLPlistStructure.dataTexts(data, key: "adjustmentData")
            if texts.isEmpty || texts.contains(where: { Data(base64Encoded: $0.filter { !" \t\n\r".contains($0) }) == payload }) {
                dict["adjustmentData"] = payload
            } else {
                unreadable["adjustmentData"] = "is not base64"
            }
        }
        return (dict, unreadable)
    }

    /// Creates the value from each of its fields.
    public init(formatIdentifier: String? = nil, formatVersion: String? = nil, baseVersion: Int? = nil, editor: String? = nil,
                adjustments: [AppleAdjustment] = [], undecodable: String? = nil) {
        self.formatIdentifier = formatIdentifier; self.formatVersion = formatVersion; self.baseVersion = baseVersion
        self.editor = editor; self.adjustments = adjustments; self.undecodable = undecodable
    }

    private enum CodingKeys: String, CodingKey { case formatIdentifier, formatVersion, baseVersion, editor, adjustments, undecodable }

    /// Reads events and reports written before `editor`, `adjustments` and `undecodable` existed.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        formatIdentifier = try c.decodeIfPresent(String.self, forKey: .formatIdentifier)
        formatVersion = try c.decodeIfPresent(String.self, forKey: .formatVersion)
        baseVersion = try c.decodeIfPresent(Int.self, forKey: .baseVersion)
        editor = try c.decodeIfPresent(String.self, forKey: .editor)
        adjustments = try c.decodeIfPresent([AppleAdjustment].self, forKey: .adjustments) ?? []
        undecodable = try c.decodeIfPresent(String.self, forKey: .undecodable)
    }
}

/// The `.AAE` keys we read; anything else in the plist is ignored. A version may be a string or a number.
private struct AAEFields: Decodable {
    var adjustmentFormatIdentifier: String?
    var adjustmentFormatVersion: String?
    var adjustmentBaseVersion: Int?
    var adjustmentEditorBundleID: String?
    var adjustmentData: Data?
    /// `adjustmentData` is there but is not `<data>` holding base64.
    var adjustmentDataUnreadable = false

    enum CodingKeys: String, CodingKey {
        case adjustmentFormatIdentifier, adjustmentFormatVersion, adjustmentBaseVersion, adjustmentEditorBundleID, adjustmentData
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        adjustmentFormatIdentifier = try? c.decodeIfPresent(String.self, forKey: .adjustmentFormatIdentifier)
        if let s = try? c.decodeIfPresent(String.self, forKey: .adjustmentFormatVersion) {
            adjustmentFormatVersion = s
        } else if let d = try? c.decodeIfPresent(Double.self, forKey: .adjustmentFormatVersion) {
            adjustmentFormatVersion = Int(exactly: d).map(String.init) ?? String(d)
        }
        adjustmentBaseVersion = try? c.decodeIfPresent(Int.self, forKey: .adjustmentBaseVersion)
        adjustmentEditorBundleID = try? c.decodeIfPresent(String.self, forKey: .adjustmentEditorBundleID)
        adjustmentData = try? c.decodeIfPresent(Data.self, forKey: .adjustmentData)
        adjustmentDataUnreadable = adjustmentData == nil && c.contains(.adjustmentData)
    }
}
