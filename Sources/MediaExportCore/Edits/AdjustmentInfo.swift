import Foundation

/// What an Apple `.AAE` file says about its edits (the adjustment data itself is opaque and not rendered).
public struct AdjustmentInfo: Codable, Sendable, Equatable {
    public var formatIdentifier: String?
    public var formatVersion: String?
    public var baseVersion: Int?

    /// Parses an `.AAE`'s bytes; `path` names the file in errors. Throws `ExportError.invalidSidecar`.
    public static func parse(_ data: Data, path: String) throws -> AdjustmentInfo {
        func bad(_ field: String, _ reason: String) -> ExportError { .invalidSidecar(path: path, field: field, reason: reason) }
        if data.count > UntrustedFile.maxBytes {
            let refusal = UntrustedFile.tooLarge(Int64(data.count), kind: ".AAE files")
            throw bad(refusal.field, refusal.reason)
        }
        var dict: [String: Any]
        if data.starts(with: Array("bplist".utf8)) {
            // Our own bounds-checked reader: Foundation's binary parser crashes on some malformed files. It reads
            // only the top-level dictionary's scalars and never descends into containers, so nesting cannot hurt it.
            guard let entries = BinaryPropertyList.topLevelDictionary(data) else {
                throw bad("-", "not a well-formed binary property list with a dictionary at the top")
            }
            dict = [:]
            for (key, value) in entries {
                switch value {
                case .string(let s): dict[key] = s
                case .integer(let i): dict[key] = NSNumber(value: i)
                case .real(let d): dict[key] = NSNumber(value: d)
                case .bool(let b): dict[key] = NSNumber(value: b)
                }
            }
        } else {
            // Foundation's XML plist parser recurses per element: the nesting is bounded first (a 10 000-deep file
            // overflowed the stack). Only UTF-8 XML gets through: no OpenStep or UTF-16 plists in an .AAE.
            do { try XMLPlistStructure.check(data) } catch let refusal as UntrustedFile.Refusal { throw bad(refusal.field, refusal.reason) }
            // PropertyListDecoder rather than PropertyListSerialization: the latter leaks on every file it rejects.
            let fields: AAEFields
            do { fields = try PropertyListDecoder().decode(AAEFields.self, from: data) } catch {
                throw bad("-", "not a property list with a dictionary at the top (XML or binary)")
            }
            dict = [:]
            dict["adjustmentFormatIdentifier"] = fields.adjustmentFormatIdentifier
            dict["adjustmentFormatVersion"] = fields.adjustmentFormatVersion
            dict["adjustmentBaseVersion"] = fields.adjustmentBaseVersion.map { NSNumber(value: $0) }
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
        return AdjustmentInfo(formatIdentifier: identifier, formatVersion: string("adjustmentFormatVersion"),
                              baseVersion: (dict["adjustmentBaseVersion"] as? NSNumber)?.intValue)
    }

    /// Creates the value from each of its fields.
    public init(formatIdentifier: String? = nil, formatVersion: String? = nil, baseVersion: Int? = nil) {
        self.formatIdentifier = formatIdentifier; self.formatVersion = formatVersion; self.baseVersion = baseVersion
    }
}

/// The `.AAE` keys we read; anything else in the plist is ignored. A version may be a string or a number.
private struct AAEFields: Decodable {
    var adjustmentFormatIdentifier: String?
    var adjustmentFormatVersion: String?
    var adjustmentBaseVersion: Int?

    enum CodingKeys: String, CodingKey { case adjustmentFormatIdentifier, adjustmentFormatVersion, adjustmentBaseVersion }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        adjustmentFormatIdentifier = try? c.decodeIfPresent(String.self, forKey: .adjustmentFormatIdentifier)
        if let s = try? c.decodeIfPresent(String.self, forKey: .adjustmentFormatVersion) {
            adjustmentFormatVersion = s
        } else if let d = try? c.decodeIfPresent(Double.self, forKey: .adjustmentFormatVersion) {
            adjustmentFormatVersion = Int(exactly: d).map(String.init) ?? String(d)
        }
        adjustmentBaseVersion = try? c.decodeIfPresent(Int.self, forKey: .adjustmentBaseVersion)
    }
}
