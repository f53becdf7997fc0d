import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// A sample's key in a baseline: its path relative to the baseline file's folder, so that it names the same file
/// however the sample was given (a folder walked, or files one by one, in any order).
enum SampleKey {
    /// `path` relative to `folder`, both absolute: `..` components where `path` lies outside `folder`.
    static func relative(_ path: String, to folder: String) -> String {
        let target = components(path), base = components(folder)
        let common = zip(target, base).prefix { $0 == $1 }.count
        let parts = Array(repeating: "..", count: base.count - common) + target[common...]
        return parts.joined(separator: "/")
    }

    /// A path as it resolves: standardized, its folder's symlinks resolved (the file's own name kept, so an asset's
    /// resources beside it still group with it).
    static func resolved(_ path: String) -> String {
        let standard = URL(fileURLWithPath: path).standardizedFileURL.path
        let folder = PathName.directory(standard)
        let real = FileSystem.realPath(folder) ?? folder
        return PathName.join(real, PathName.lastComponent(standard))
    }

    /// A folder as it resolves: standardized, every symlink resolved.
    static func resolvedFolder(_ path: String) -> String {
        let standard = URL(fileURLWithPath: path).standardizedFileURL.path
        return FileSystem.realPath(standard) ?? standard
    }

    /// A file name for a case's output (`hdr-pq.mp4|low` → `hdr-pq.mp4_low`): every character but letters, digits,
    /// `.`, `-` and `_` made `_`, and no leading dot.
    static func fileName(_ key: String) -> String {
        let safe = String(key.unicodeScalars.map { scalar -> Character in
            let ok = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
            return ok ? Character(scalar) : "_"
        })
        return safe.hasPrefix(".") ? "_" + safe : safe
    }

    private static func components(_ path: String) -> [String] { path.split(separator: "/").map(String.init) }
}
