import MediaExportCore

/// A file under a batch's inputs that is not exported as an asset of its own, and why: every file the inputs hold
/// is either an item's `input` or one of these.
public struct IgnoredFile: Codable, Sendable, Equatable {
    /// Why a file is not exported on its own.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// FFmpeg cannot open it (its reason), or its name says it is not media (`.txt`, `.json` …).
        case notMedia
        /// A still image (`.png`, or a HEIC/JPEG with no movie beside it).
        case stillImage
        /// An edit sidecar or `.AAE` of an asset (`of`), or of none.
        case sidecar
        /// The still of a Live Photo (`of` is its movie).
        case livePhotoStill
        /// A rendered edit, exported with its original (`of`) as that asset's current version.
        case renderedEdit
        /// A hidden file, or a hidden folder (not walked).
        case hidden
        /// A temporary file of mediaexport (`.mediaexport-tmp-`).
        case temporaryFile
        /// A symbolic link to a folder (not followed).
        case symlinkToFolder
        /// A symbolic link to nothing.
        case symlinkToNothing
        /// A symbolic link into the output folder.
        case symlinkIntoOutput
        /// A FIFO, socket or device (or a link to one).
        case notRegularFile
        /// A folder that cannot be read.
        case unreadableFolder
        /// A file or folder whose path is longer than the system takes (`PATH_MAX`): it cannot be opened by name.
        case pathTooLong
        /// The output folder, met as an input or inside one.
        case outputFolder
        /// Left out by `--include`/`--exclude`, `--media` or a duration filter.
        case filtered
        /// Another shard's (`--shard`).
        case notInShard
        /// The same file as another planned one (`of`): given twice, or reached through a symlink.
        case duplicate
    }

    /// The file in the form a row's `key` has: relative to the folder given as input (`trip/notes.txt`), or its
    /// name for a file given alone — so a report names ignored files and assets alike, whatever the inputs' paths.
    public var key: String
    /// The file as named under the inputs (as a row's `input`).
    public var path: String
    /// Why it is not exported on its own.
    public var kind: Kind
    /// One line for people: FFmpeg's reason, the filter, the asset it belongs to.
    public var reason: String
    /// The key of the asset this one belongs to or duplicates (its row's `key`), if any.
    public var of: String?

    /// Creates the value from each of its fields; `key` nil: the file's name.
    public init(path: String, key: String? = nil, kind: Kind, reason: String, of: String? = nil) {
        self.path = path; self.key = key ?? PathName.lastComponent(path); self.kind = kind; self.reason = reason; self.of = of
    }

    private enum CodingKeys: String, CodingKey { case key, path, kind, reason, of }

    /// Reads an entry; one written before keys were kept (no `key`) gets its file's name.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(path: try c.decode(String.self, forKey: .path), key: try c.decodeIfPresent(String.self, forKey: .key),
                  kind: try c.decode(Kind.self, forKey: .kind), reason: try c.decode(String.self, forKey: .reason),
                  of: try c.decodeIfPresent(String.self, forKey: .of))
    }

    /// The entry for people and reports, every text through `FileName.display` (see `BatchReportRow.displayed`).
    public var displayed: IgnoredFile {
        IgnoredFile(path: FileName.display(path), key: FileName.display(key), kind: kind, reason: FileName.display(reason),
                    of: of.map(FileName.display))
    }

    /// `12 files not exported as assets of their own: 3 not media (a.txt, trip/b.xyz, …), 2 hidden, …` (by key, as the
    /// summary names failed assets); nil for none.
    public static func summary(_ files: [IgnoredFile]) -> String? {
        guard !files.isEmpty else { return nil }
        let groups = Dictionary(grouping: files, by: \.kind)
        let parts = Kind.allCases.compactMap { kind -> String? in
            guard let group = groups[kind] else { return nil }
            var part = "\(group.count) \(label(kind, group.count))"
            if ![.hidden, .temporaryFile, .sidecar, .livePhotoStill, .renderedEdit, .notInShard].contains(kind) {
                let names = group.prefix(3).map { FileName.display($0.key) }
                part += " (" + names.joined(separator: ", ") + (group.count > 3 ? ", …" : "") + ")"
            }
            return part
        }
        return "\(files.count) file\(files.count == 1 ? " is" : "s are") not exported as an asset of \(files.count == 1 ? "its" : "their") own: "
            + parts.joined(separator: ", ")
    }

    static func label(_ kind: Kind, _ n: Int) -> String {
        let s = n == 1 ? "" : "s"
        switch kind {
        case .notMedia: return "not media"
        case .stillImage: return "still image\(s)"
        case .sidecar: return "sidecar\(s)"
        case .livePhotoStill: return "Live Photo still\(s)"
        case .renderedEdit: return "rendered edit\(s) (exported with \(n == 1 ? "its" : "their") original)"
        case .hidden: return "hidden"
        case .temporaryFile: return "temporary file\(s) of mediaexport"
        case .symlinkToFolder: return "symbolic link\(s) to a folder"
        case .symlinkToNothing: return "symbolic link\(s) to nothing"
        case .symlinkIntoOutput: return "symbolic link\(s) into the output folder"
        case .notRegularFile: return "not regular file\(s)"
        case .unreadableFolder: return "unreadable folder\(s)"
        case .pathTooLong: return "path\(n == 1 ? "" : "s") longer than PATH_MAX"
        case .outputFolder: return "output folder"
        case .filtered: return "filtered out"
        case .notInShard: return "in other shards"
        case .duplicate: return "duplicate\(s)"
        }
    }
}
