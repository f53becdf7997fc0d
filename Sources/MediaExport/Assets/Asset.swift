import Foundation
import MediaExportCore
import MediaExportFFmpeg


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



extension AdjustmentInfo {
    /// Reads an `.AAE` (XML or binary property list) of at most `UntrustedFile.maxBytes`.
    public static func load(path: String) throws -> AdjustmentInfo {
        let data: Data
        do { data = try UntrustedFile.read(path, kind: ".AAE files") } catch let refusal as UntrustedFile.Refusal {
            throw ExportError.invalidSidecar(path: path, field: refusal.field, reason: refusal.reason)
        }
        return try parse(data, path: path)
    }
}
