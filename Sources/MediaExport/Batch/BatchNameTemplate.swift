import Foundation
import MediaExportCore

/// A batch's output name template (`--name '{stem}_web.{ext}'`): each asset's output path under the output folder.
/// A template without `/`, `{key}` or `{folder}` names the file in the asset's folder (as the default naming does);
/// one with any is the whole path under the output folder (`{folder}/{stem}.{ext}`, `web/{key}.{ext}`), empty
/// folders left out.
public struct BatchNameTemplate: Codable, Sendable, Equatable, CustomStringConvertible {
    /// A placeholder of the template.
    public enum Placeholder: String, Codable, Sendable, CaseIterable {
        /// The main file's name without its extension (`IMG_0001`).
        case stem
        /// The preset's name.
        case preset
        /// The asset's key without its extension (`2024/trip/IMG_0001`: its path relative to the input).
        case key
        /// The asset's folder relative to the input (empty at the top).
        case folder
        /// The first 8 hex digits of the main file's SHA-256.
        case sha8
        /// The output container's extension (`mp4`).
        case ext
    }

    /// One piece of the template: literal text or a placeholder.
    enum Part: Equatable, Sendable { case text(String), placeholder(Placeholder) }

    /// The template as given.
    public let text: String
    let parts: [Part]

    /// The values of one asset's placeholders.
    public typealias Values = [Placeholder: String]

    /// Parses and checks a template: known placeholders only, balanced braces, ending in `.{ext}`, relative,
    /// no `.` or `..` folder. Throws `ExportError.usage` naming what is wrong.
    public init(_ text: String) throws {
        func bad(_ why: String) -> ExportError { .usage(reason: "--name \(text): \(why)") }
        var parts: [Part] = [], literal = "", rest = Substring(text)
        while let c = rest.first {
            rest = rest.dropFirst()
            if c == "}" { throw bad("a '}' without '{'") }
            guard c == "{" else { literal.append(c); continue }
            guard let close = rest.firstIndex(of: "}") else { throw bad("a '{' without '}'") }
            let name = String(rest[..<close])
            guard let placeholder = Placeholder(rawValue: name) else {
                throw bad("unknown placeholder {\(name)} (known: \(Placeholder.allCases.map { "{\($0.rawValue)}" }.joined(separator: " ")))")
            }
            if !literal.isEmpty { parts.append(.text(literal)); literal = "" }
            parts.append(.placeholder(placeholder))
            rest = rest[rest.index(after: close)...]
        }
        if !literal.isEmpty { parts.append(.text(literal)) }
        guard text.hasSuffix(".{ext}"), PathName.lastComponent(text) != ".{ext}" else {
            throw bad("must end with NAME.{ext} (the container's extension)")
        }
        if text.hasPrefix("/") { throw bad("must be relative to --out (no leading '/')") }
        if text.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == ".." || $0 == "." }) {
            throw bad("no '.' or '..' folder: outputs stay under --out")
        }
        (self.text, self.parts) = (text, parts)
    }

    /// True when the template uses this placeholder.
    public func uses(_ placeholder: Placeholder) -> Bool { parts.contains(.placeholder(placeholder)) }

    /// The output path relative to the output folder for one asset's values (the asset's own folder, `folder`,
    /// first when the template has no `/`, `{key}` or `{folder}`); empty folders are left out.
    func render(_ values: Values) -> String {
        let rendered = parts.map { part -> String in
            switch part {
            case .text(let t): return t
            case .placeholder(let p): return values[p] ?? ""
            }
        }.joined()
        let path = isWholePath ? rendered : PathName.join(values[.folder] ?? "", rendered)
        return path.split(separator: "/").joined(separator: "/")
    }

    /// True when the template gives the whole path under the output folder, not a name in the asset's folder.
    var isWholePath: Bool { text.contains("/") || uses(.key) || uses(.folder) }

    /// The template as given.
    public var description: String { text }

    /// Decodes the template's text, checked as `init(_:)` checks it.
    public init(from decoder: Decoder) throws { try self.init(try decoder.singleValueContainer().decode(String.self)) }

    /// Encodes the template's text.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(text)
    }
}
