import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// One file of an asset.
public struct Resource: Codable, Sendable, Equatable {
    /// What role the file plays in the asset (original, rendered edit, sidecar …).
    public var kind: ResourceKind
    /// The file's path.
    public var path: String
    /// The file's size in bytes.
    public var size: Int64
    /// The container or file type, from the extension (`mov`, `mp4`, `heic`, `aae`, `json` …).
    public var container: String
    /// An `.AAE`'s decoded record (`Asset.describingAdjustments`); nil otherwise.
    public var adjustments: AdjustmentInfo?
    /// Why an `.AAE` could not be read, when it could not.
    public var error: String?
}

/// One logical item (like `PHAsset`): one media file plus only the files that name it by Apple's conventions or
/// ours — its rendered edit, its `.AAE`, its JSON edit sidecar, and for a Live Photo the still beside its movie
/// (see `FolderAssets`). Two videos that merely share a base name are two assets.
public struct Asset: Codable, Sendable, Equatable {
    /// The base name, e.g. `IMG_1234`.
    public var baseName: String
    /// The folder.
    public var directory: String
    /// Every resource found, the media file first.
    public var resources: [Resource]
    /// What a person should know about how the asset was put together: a rendered edit or a sidecar that could be
    /// several assets' and so was given to none.
    public var notes: [String] = []

    /// Creates an asset from its parts.
    public init(baseName: String, directory: String, resources: [Resource], notes: [String] = []) {
        self.baseName = baseName; self.directory = directory; self.resources = resources; self.notes = notes
    }

    /// Decodes an asset; one written before `notes` existed has none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(baseName: try c.decode(String.self, forKey: .baseName), directory: try c.decode(String.self, forKey: .directory),
                  resources: try c.decode([Resource].self, forKey: .resources), notes: try c.decodeIfPresent([String].self, forKey: .notes) ?? [])
    }

    /// The video/audio original (for a Live Photo, its paired video).
    public var original: Resource? { resources.first { $0.kind == .original || $0.kind == .pairedVideo } }
    /// The rendered edit, if any.
    public var renderedEdit: Resource? { resources.first { $0.kind == .renderedEdit } }
    /// The JSON edit sidecar, if any.
    public var editSidecar: Resource? { resources.first { $0.kind == .editSidecar } }
    /// Apple's `.AAE`, if any.
    public var adjustmentData: Resource? { resources.first { $0.kind == .adjustmentData } }

    /// The asset with its `.AAE` decoded into its resource entry (what `mediaexport resources` shows); a bad one
    /// gets its error instead. Only here and where an `.AAE` decides the version is it read.
    public func describingAdjustments() -> Asset {
        var copy = self
        for i in copy.resources.indices where copy.resources[i].kind == .adjustmentData {
            do { copy.resources[i].adjustments = try AdjustmentInfo.load(path: copy.resources[i].path) } catch {
                copy.resources[i].error = (error as? ExportError)?.description ?? "\(error)"
            }
        }
        return copy
    }

    /// Finds the asset that `path` belongs to. Any of its resources may be given: the original, the rendered
    /// edit, the still of a Live Photo, or a sidecar. File-name case does not matter. A file that belongs to no
    /// asset (a still alone, a sidecar of nothing) is an asset of its own, of its kind by name.
    public static func discover(from path: String) throws -> Asset {
        // Through FileSystem (bytes), not FileManager: a name that is not UTF-8 is a legal upload on Linux.
        guard let st = FileSystem.stat(path) else {
            throw ExportError.inputUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw ExportError.inputUnreadable(path: path, reason: "is a directory") }
        let absolute = path.hasPrefix("/") ? path : PathName.join(currentDirectory(), path)
        let fileName = PathName.lastComponent(absolute)
        let dir = PathName.directory(absolute)
        let folder = FolderAssets.of([fileName], in: dir)
        if let asset = folder.assets.first { return asset }
        let name = ResourceName(fileName)
        let kind: ResourceKind
        switch name.role {
        case .still: kind = .photo
        case .editSidecar: kind = .editSidecar
        case .adjustmentData: kind = .adjustmentData
        default: kind = .original  // opened as media, and refused with FFmpeg's reason if it is not
        }
        return Asset(baseName: name.base, directory: dir, resources: [resource(kind, PathName.join(dir, fileName))],
                     notes: folder.loose.filter { $0.name == fileName }.map { "\(FileName.display(fileName)): \($0.detail)" })
    }

    /// The extension of a still-image file name (`png`), or nil for anything else. An animated GIF is left out:
    /// it is video to FFmpeg.
    static func stillImageExtension(_ path: String) -> String? {
        let name = ResourceName(PathName.lastComponent(path))
        guard case .still = name.role else { return nil }
        return name.ext.lowercased()
    }

    static func resource(_ kind: ResourceKind, _ path: String) -> Resource {
        let name = PathName.lastComponent(path).lowercased()
        let container = name.hasSuffix(".edit.json") ? "json" : PathName.pathExtension(name)
        return Resource(kind: kind, path: path, size: FileSystem.size(path) ?? 0, container: container)
    }

    /// The working folder, decoded losslessly (relative inputs are made absolute against it).
    private static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return FileManager.default.currentDirectoryPath }
        return FileName.decode(cString: buffer)
    }
}

extension AdjustmentInfo {
    /// Reads an `.AAE` (XML or binary property list) of at most `UntrustedFile.maxBytes`, and decodes its
    /// `adjustmentData` (inflated with zlib to at most 4 MB).
    public static func load(path: String) throws -> AdjustmentInfo {
        try parse(try UntrustedFile.read(path, kind: ".AAE files", invalid: ExportError.invalidSidecar), path: path)
    }

    /// Parses an `.AAE`'s bytes with zlib as the inflater; `path` names the file in errors.
    public static func parse(_ data: Data, path: String) throws -> AdjustmentInfo {
        try parse(data, path: path, inflate: Inflate.raw)
    }
}
