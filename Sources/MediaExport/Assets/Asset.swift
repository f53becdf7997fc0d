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

    // The names of what `InputFormats.allowed` opens; a file in another format under one of these names is refused
    // at open with its reason (exit 65), never skipped without a word.
    static let videoExtensions: Set<String> = ["mov", "mp4", "m4v", "3gp", "3g2", "mkv", "avi", "webm", "mts", "m2ts", "ts", "m2t",
                                               "mpg", "mpeg", "m2v", "vob", "mod", "tod", "wmv", "asf", "flv", "f4v", "ogv", "mxf",
                                               "dv", "rm", "rmvb", "divx"]
    static let audioExtensions: Set<String> = ["m4a", "m4b", "mp3", "mp2", "aac", "ac3", "wav", "aif", "aiff", "aifc", "flac", "ogg",
                                               "oga", "opus", "caf", "wma", "mka", "amr", "wv", "ape"]
    static let photoExtensions: Set<String> = ["heic", "heif", "jpg", "jpeg", "png", "dng", "tif", "tiff", "gif", "webp"]

    /// Finds the asset that `path` belongs to. Any of its resources may be given: the original, the rendered
    /// edit, the still of a Live Photo, or a sidecar. File-name case does not matter.
    public static func discover(from path: String) throws -> Asset {
        // Through FileSystem (bytes), not FileManager: a name that is not UTF-8 is a legal upload on Linux.
        guard let st = FileSystem.stat(path) else {
            throw ExportError.inputUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw ExportError.inputUnreadable(path: path, reason: "is a directory") }
        let absolute = path.hasPrefix("/") ? path : (currentDirectory() as NSString).appendingPathComponent(path)
        let fileName = (absolute as NSString).lastPathComponent
        let dir = (absolute as NSString).deletingLastPathComponent
        func inDir(_ name: String) -> String { (dir as NSString).appendingPathComponent(name) }
        guard let given = classify(fileName) else {
            return Asset(baseName: (fileName as NSString).deletingPathExtension, directory: dir,
                         resources: [resource(.original, inDir(fileName))])
        }
        let names = FileSystem.contents(ofDirectory: dir) ?? [fileName]
        var found: [(ResourceKind, String)] = []
        var hasPhoto = false
        for name in names.sorted() where !name.hasPrefix(".") {
            guard let c = classify(name), c.base == given.base else { continue }
            found.append((c.kind, inDir(name)))
            if c.kind == .photo { hasPhoto = true }
        }
        // The file given wins among several of the same kind (IMG_1234.MOV and IMG_1234.MP4).
        let givenPath = inDir(fileName)
        found.sort { a, b in
            if a.0 != b.0 { return ResourceKind.allCases.firstIndex(of: a.0)! < ResourceKind.allCases.firstIndex(of: b.0)! }
            return a.1 == givenPath && b.1 != givenPath
        }
        let resources = found.map { kind, p in resource(kind == .original && hasPhoto ? .pairedVideo : kind, p) }
        return Asset(baseName: given.displayBase, directory: dir, resources: resources)
    }

    /// The extension of a still-image file name (`png`), or nil for anything else. An animated GIF is left out:
    /// it is video to FFmpeg.
    static func stillImageExtension(_ path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension.lowercased()
        guard classify(name)?.kind == .photo, ext != "gif" else { return nil }
        return ext
    }

    private static func resource(_ kind: ResourceKind, _ path: String) -> Resource {
        let name = (path as NSString).lastPathComponent.lowercased()
        let container = name.hasSuffix(".edit.json") ? "json" : (name as NSString).pathExtension
        return Resource(kind: kind, path: path, size: FileSystem.size(path) ?? 0, container: container)
    }

    /// The working folder, decoded losslessly (relative inputs are made absolute against it).
    private static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return FileManager.default.currentDirectoryPath }
        return FileName.decode(cString: buffer)
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

    /// Reads an `.AAE` (XML or binary property list) of at most `UntrustedFile.maxBytes`.
    public static func load(path: String) throws -> AdjustmentInfo {
        let data: Data
        do { data = try UntrustedFile.read(path, kind: ".AAE files") } catch let refusal as UntrustedFile.Refusal {
            throw ExportError.invalidSidecar(path: path, field: refusal.field, reason: refusal.reason)
        }
        return try parse(data, path: path)
    }

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
