import Foundation

/// The parts of a POSIX path, on the lossless strings of `FileName` — the one place paths are taken apart and put
/// together. Foundation's `NSString` path helpers are not used: in swift-corelibs-foundation
/// `deletingLastPathComponent` traps on a one-character string (`--out o`), and they quietly drop `..`, `.` and
/// repeated slashes. Here a path is bytes separated by `/` and nothing is normalised away; `/` and `.` are ASCII,
/// so working on Unicode scalars is working on bytes (raw bytes are single scalars that are never `/` or `.`).
package enum PathName {
    /// The folder part, as `dirname(3)` gives it: `.` when there is no `/`, `/` for a name at the root,
    /// trailing slashes ignored (`a/b/` → `a`); glibc's `//` for a path beginning with exactly two slashes.
    package static func directory(_ path: String) -> String {
        let s = Array(path.unicodeScalars)
        guard var slash = s.lastIndex(of: "/") else { return "." }
        if slash > 0, slash == s.count - 1 {
            // Trailing slashes belong to the name: look for the slash before it.
            let start = slashRunStart(s, before: slash)
            if start > 0 {
                guard let previous = s[..<start].lastIndex(of: "/") else { return "." }
                slash = previous
            }
        }
        let cut = slashRunStart(s, before: slash)
        if cut == 0 { return slash == 1 ? "//" : "/" }
        return text(s[..<cut])
    }

    /// The last name, as POSIX `basename(3)` gives it: trailing slashes ignored (`a/b/` → `b`), `/` for a path of
    /// slashes only, `.` for the empty path.
    package static func lastComponent(_ path: String) -> String {
        let s = Array(path.unicodeScalars)
        guard !s.isEmpty else { return "." }
        var end = s.count
        while end > 0, s[end - 1] == "/" { end -= 1 }
        guard end > 0 else { return "/" }
        let start = s[..<end].lastIndex(of: "/").map { $0 + 1 } ?? 0
        return text(s[start..<end])
    }

    /// The extension of the path's name: what follows its last dot; none when the path ends in `/` (a folder),
    /// for a name starting with its only dot (`.profile`), or ending in one (`name.`).
    package static func pathExtension(_ path: String) -> String {
        let name = nameAfterLastSlash(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// The path without its name's extension and dot (`a/b.mov` → `a/b`); unchanged when it has none.
    package static func deletingExtension(_ path: String) -> String {
        let ext = pathExtension(path)
        guard !ext.isEmpty else { return path }
        let scalars = path.unicodeScalars
        return String(scalars.prefix(scalars.count - ext.unicodeScalars.count - 1))
    }

    /// `name` inside `folder`: one `/` between them (none added when `folder` is empty or ends in `/`).
    /// Nothing is normalised: `join("a", "../b")` is `a/../b`.
    package static func join(_ folder: String, _ name: String) -> String {
        if folder.isEmpty { return name }
        if name.isEmpty { return folder }
        return folder.unicodeScalars.last == "/" ? folder + name : folder + "/" + name
    }

    /// The path as a person would write it: `.` segments and repeated slashes gone, each `..` taking the name before
    /// it away (`out/../clips//./trunc.mov` → `clips/trunc.mov`; `/..` is `/`; a leading `..` of a relative path
    /// stays). Lexical only, for showing a path: nothing is resolved, so through a symlink (`link/..` when `link`
    /// is a folder elsewhere) it may name another file than the path does — never open the result, show it.
    package static func normalized(_ path: String) -> String {
        guard !path.isEmpty else { return path }
        let absolute = path.unicodeScalars.first == "/"
        var kept: [Substring] = []
        for part in Substring(path).split(separator: "/", omittingEmptySubsequences: true) where part != "." {
            if part == "..", let last = kept.last, last != ".." { kept.removeLast(); continue }
            if part == "..", absolute { continue }  // `/..` is `/`
            kept.append(part)
        }
        let joined = kept.joined(separator: "/")
        return absolute ? "/" + joined : joined.isEmpty ? "." : joined
    }

    /// The path with the text after its last `/` replaced by `name` (`a/b.mov`, `b.mp4` → `a/b.mp4`;
    /// `b.mov` → `b.mp4`): a file beside another, keeping the path relative when it was.
    package static func replacingName(of path: String, with name: String) -> String {
        let scalars = path.unicodeScalars
        guard let slash = scalars.lastIndex(of: "/") else { return name }
        return String(scalars[...slash]) + name
    }

    /// A file name within `limit` bytes (`NAME_MAX`): unchanged when it fits; else its first whole characters, a `~`,
    /// eight hex digits of a hash of the whole name (so two long names that differ only late stay two names), and its
    /// extension when that is short (`<first 240 bytes>~1f3a9c0d.mp4`).
    package static func fitting(_ name: String, within limit: Int = Int(NAME_MAX)) -> String {
        let bytes = FileName.bytes(name)
        guard bytes.count > limit else { return name }
        let ext = pathExtension(name)
        let kept = ext.isEmpty || ext.utf8.count > 16 ? "" : "." + ext
        let tag = "~" + String(hash(bytes), radix: 16).leftPadded(to: 8)
        let budget = max(0, limit - FileName.bytes(kept).count - tag.utf8.count)
        let stem = kept.isEmpty ? name : deletingExtension(name)
        return prefix(of: stem, bytes: budget) + tag + kept
    }

    /// The first whole characters of `name` within `budget` bytes: a raw byte counts one, a UTF-8 sequence is never cut.
    package static func prefix(of name: String, bytes budget: Int) -> String {
        var kept = String.UnicodeScalarView()
        var used = 0
        for scalar in name.unicodeScalars {
            let n = FileName.isEscape(scalar) ? 1 : UTF8.width(scalar)
            if used + n > budget { break }
            kept.append(scalar)
            used += n
        }
        return String(kept)
    }

    /// 32-bit FNV-1a: a stable tag for a name, not a security measure.
    static func hash(_ bytes: [UInt8]) -> UInt32 {
        bytes.reduce(2_166_136_261 as UInt32) { ($0 ^ UInt32($1)) &* 16_777_619 }
    }

    /// The text after the last `/` (empty when the path ends in one).
    static func nameAfterLastSlash(_ path: String) -> Substring.UnicodeScalarView {
        let scalars = path.unicodeScalars
        guard let slash = scalars.lastIndex(of: "/") else { return Substring(path).unicodeScalars }
        return Substring(path)[scalars.index(after: slash)...].unicodeScalars
    }

    /// The index where the run of slashes ending at `index` starts.
    private static func slashRunStart(_ s: [Unicode.Scalar], before index: Int) -> Int {
        var i = index
        while i > 0, s[i - 1] == "/" { i -= 1 }
        return i
    }
    private static func text(_ s: ArraySlice<Unicode.Scalar>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: s)
        return String(view)
    }
}

extension String {
    /// The string with `0`s in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
