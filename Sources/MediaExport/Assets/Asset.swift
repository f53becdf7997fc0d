import Foundation

/// The kinds of file an asset can have, after `PHAssetResourceType`.
public enum ResourceKind: String, Codable, Sendable, CaseIterable {
    /// The untouched video or audio (`IMG_1234.MOV`).
    case original
    /// The movie of a Live Photo: a video beside a still of the same name (`IMG_1234.MOV` beside `IMG_1234.HEIC`).
    case pairedVideo
    /// The still of a Live Photo (`IMG_1234.HEIC` / `.JPG`).
    case photo
    /// A rendered edit: Apple's `IMG_E1234.MOV`, or `IMG_1234_edited.mov`.
    case renderedEdit
    /// Our JSON edit sidecar: `IMG_1234.edit.json` (or `IMG_1234.MOV.edit.json`).
    case editSidecar
    /// Apple's adjustment data: `IMG_1234.AAE` (a plist; its edits are opaque here).
    case adjustmentData
}

/// One file of an asset.
public struct Resource: Codable, Sendable, Equatable {
    public var kind: ResourceKind
    public var path: String
    public var size: Int64
    /// The container or file type, from the extension (`mov`, `mp4`, `heic`, `aae`, `json` …).
    public var container: String
}

/// One logical item (like `PHAsset`): the files in one folder that share a base name.
public struct Asset: Codable, Sendable, Equatable {
    /// The shared base name, e.g. `IMG_1234`.
    public var baseName: String
    /// The folder.
    public var directory: String
    /// Every resource found, originals first.
    public var resources: [Resource]

    /// The video/audio original (for a Live Photo, its paired video).
    public var original: Resource? { resources.first { $0.kind == .original || $0.kind == .pairedVideo } }
    /// The rendered edit, if any.
    public var renderedEdit: Resource? { resources.first { $0.kind == .renderedEdit } }
    /// The JSON edit sidecar, if any.
    public var editSidecar: Resource? { resources.first { $0.kind == .editSidecar } }
    /// Apple's `.AAE`, if any.
    public var adjustmentData: Resource? { resources.first { $0.kind == .adjustmentData } }

    static let videoExtensions: Set<String> = ["mov", "mp4", "m4v", "3gp", "3g2", "mkv", "avi", "webm", "mts", "m2ts", "ts", "mpg", "mpeg", "wmv", "flv"]
    static let audioExtensions: Set<String> = ["m4a", "mp3", "aac", "wav", "aif", "aiff", "flac", "ogg", "opus", "caf"]
    static let photoExtensions: Set<String> = ["heic", "heif", "jpg", "jpeg", "png", "dng", "tif", "tiff", "gif", "webp"]

    /// Finds the asset that `path` belongs to. Any of its resources may be given: the original, the rendered
    /// edit, the still of a Live Photo, or a sidecar. File-name case does not matter.
    public static func discover(from path: String) throws -> Asset {
        let url = URL(fileURLWithPath: path)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw ExportError.inputUnreadable(path: path, reason: String(cString: strerror(ENOENT)))
        }
        if isDir.boolValue { throw ExportError.inputUnreadable(path: path, reason: "is a directory") }
        guard let given = classify(url.lastPathComponent) else {
            return Asset(baseName: url.deletingPathExtension().lastPathComponent, directory: url.deletingLastPathComponent().path,
                         resources: [resource(.original, url)])
        }
        let dir = url.deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [url.lastPathComponent]
        var found: [(ResourceKind, URL)] = []
        var hasPhoto = false
        for name in names.sorted() where !name.hasPrefix(".") {
            guard let c = classify(name), c.base == given.base else { continue }
            found.append((c.kind, dir.appendingPathComponent(name)))
            if c.kind == .photo { hasPhoto = true }
        }
        // The file given wins among several of the same kind (IMG_1234.MOV and IMG_1234.MP4).
        let givenPath = dir.appendingPathComponent(url.lastPathComponent).path
        found.sort { a, b in
            if a.0 != b.0 { return ResourceKind.allCases.firstIndex(of: a.0)! < ResourceKind.allCases.firstIndex(of: b.0)! }
            return a.1.path == givenPath && b.1.path != givenPath
        }
        let resources = found.map { kind, u in resource(kind == .original && hasPhoto ? .pairedVideo : kind, u) }
        return Asset(baseName: given.displayBase, directory: dir.path, resources: resources)
    }

    private static func resource(_ kind: ResourceKind, _ url: URL) -> Resource {
        let size = ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value ?? 0
        let name = url.lastPathComponent.lowercased()
        let container = name.hasSuffix(".edit.json") ? "json" : url.pathExtension.lowercased()
        return Resource(kind: kind, path: url.path, size: size, container: container)
    }

    /// A file name's kind and the asset base it belongs to (case-folded for matching).
    static func classify(_ name: String) -> (kind: ResourceKind, base: String, displayBase: String)? {
        let lower = name.lowercased()
        if lower.hasSuffix(".edit.json") {
            var stem = String(name.dropLast(".edit.json".count))
            let ext = (stem as NSString).pathExtension.lowercased()
            if videoExtensions.contains(ext) || audioExtensions.contains(ext) { stem = (stem as NSString).deletingPathExtension }
            return (.editSidecar, stem.lowercased(), stem)
        }
        let ext = (name as NSString).pathExtension.lowercased()
        let stem = (name as NSString).deletingPathExtension
        if ext == "aae" {
            // Apple writes IMG_1234.AAE, and IMG_O1234.AAE for the original's adjustments.
            let base = unmarked(stem, marker: "O") ?? stem
            return (.adjustmentData, base.lowercased(), base)
        }
        if photoExtensions.contains(ext) {
            let base = unmarked(stem, marker: "E") ?? stem
            return (.photo, base.lowercased(), base)
        }
        guard videoExtensions.contains(ext) || audioExtensions.contains(ext) else { return nil }
        if let base = unmarked(stem, marker: "E") { return (.renderedEdit, base.lowercased(), base) }
        if stem.lowercased().hasSuffix("_edited") {
            let base = String(stem.dropLast("_edited".count))
            return (.renderedEdit, base.lowercased(), base)
        }
        return (.original, stem.lowercased(), stem)
    }

    /// `IMG_E1234` → `IMG_1234` (Apple puts a letter after the prefix's underscore); nil when not marked.
    static func unmarked(_ stem: String, marker: Character) -> String? {
        guard let underscore = stem.lastIndex(of: "_") else { return nil }
        let after = stem.index(after: underscore)
        guard after < stem.endIndex, stem[after] == marker || stem[after] == Character(marker.lowercased()) else { return nil }
        let rest = stem[stem.index(after: after)...]
        guard let first = rest.first, first.isNumber else { return nil }
        return String(stem[..<after]) + rest
    }
}

/// What an Apple `.AAE` file says about its edits (the adjustment data itself is opaque and not rendered).
public struct AdjustmentInfo: Codable, Sendable, Equatable {
    public var formatIdentifier: String?
    public var formatVersion: String?
    public var baseVersion: Int?

    /// Reads an `.AAE` (XML or binary property list).
    public static func load(path: String) throws -> AdjustmentInfo {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ExportError.invalidSidecar(path: path, field: "-", reason: "cannot read the file")
        }
        var dict: [String: Any]
        if data.starts(with: Array("bplist".utf8)) {
            // Our own bounds-checked reader: Foundation's binary parser crashes on some malformed files.
            guard let entries = BinaryPropertyList.topLevelDictionary(data) else {
                throw ExportError.invalidSidecar(path: path, field: "-", reason: "not a well-formed binary property list with a dictionary at the top")
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
            // PropertyListDecoder rather than PropertyListSerialization: the latter leaks on every file it rejects.
            let fields: AAEFields
            do { fields = try PropertyListDecoder().decode(AAEFields.self, from: data) } catch {
                throw ExportError.invalidSidecar(path: path, field: "-", reason: "not a property list with a dictionary at the top (XML or binary)")
            }
            dict = [:]
            dict["adjustmentFormatIdentifier"] = fields.adjustmentFormatIdentifier
            dict["adjustmentFormatVersion"] = fields.adjustmentFormatVersion
            dict["adjustmentBaseVersion"] = fields.adjustmentBaseVersion.map { NSNumber(value: $0) }
        }
        func string(_ key: String) -> String? {
            if let s = dict[key] as? String { return s }
            if let n = dict[key] as? NSNumber { return n.stringValue }
            return nil
        }
        guard let identifier = string("adjustmentFormatIdentifier") else {
            throw ExportError.invalidSidecar(path: path, field: "adjustmentFormatIdentifier", reason: "missing: not an Apple adjustment file")
        }
        return AdjustmentInfo(formatIdentifier: identifier, formatVersion: string("adjustmentFormatVersion"),
                              baseVersion: (dict["adjustmentBaseVersion"] as? NSNumber)?.intValue)
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
