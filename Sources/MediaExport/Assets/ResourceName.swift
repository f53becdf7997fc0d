import Foundation
import MediaExportCore

/// What a file's name says it is, by Apple's naming conventions and ours. Nothing is opened: a name decides only
/// which files belong together; whether a file is media at all is FFmpeg's call when it is opened.
struct ResourceName: Equatable {
    /// The part a name plays.
    enum Role: Equatable {
        /// A video or audio candidate. `known`: its extension is one of a format the guarded opener reads (an
        /// original by name); otherwise its name says nothing and only opening it tells.
        case media(known: Bool)
        /// A rendered edit: Apple's `IMG_E1234.MOV`, or `clip_edited.mov` (a media extension).
        case renderedEdit
        /// A still image; `livePhoto` when it may be the still of a Live Photo (HEIC/HEIF/JPEG only).
        case still(livePhoto: Bool)
        /// Apple's adjustment record, `IMG_1234.AAE` (or `IMG_O1234.AAE`).
        case adjustmentData
        /// Our JSON edit sidecar, `X.edit.json`: `target` is `X` as written (`IMG_1234` or `IMG_1234.MOV`).
        case editSidecar(target: String)
        /// Obviously not media (`.txt`, `.json`, `.pdf` …): not worth opening.
        case notMedia
    }

    let name: String
    let role: Role
    /// The asset base the name points at (`IMG_1234` for `IMG_E1234.MOV`, `IMG_O1234.AAE`, `IMG_1234.MOV.edit.json`).
    let base: String
    /// The extension as written (`MOV`), empty when there is none.
    let ext: String

    /// `base`, case-folded: names match whatever their case.
    var key: String { base.lowercased() }
    /// True for an edit sidecar or an `.AAE`: such a name stays its asset's whatever the file is (a FIFO, a folder,
    /// a link to a device or to nothing), and reading it then fails with the reason (exit 79), never unnoticed.
    var isSidecar: Bool {
        switch role {
        case .editSidecar, .adjustmentData: true
        default: false
        }
    }
    /// True for a movie a Live Photo still can pair with.
    var isLivePhotoMovie: Bool { ["mov", "mp4"].contains(ext.lowercased()) }

    init(_ name: String) {
        self.name = name
        let lower = name.lowercased()
        let suffix = ".edit.json"
        if lower.hasSuffix(suffix) && lower.count > suffix.count {
            let target = String(name.dropLast(suffix.count))
            let targetExt = PathName.pathExtension(target)
            role = .editSidecar(target: target)
            base = Self.knownMedia.contains(targetExt.lowercased()) ? PathName.deletingExtension(target) : target
            ext = "json"
            return
        }
        ext = PathName.pathExtension(name)
        let e = ext.lowercased()
        let stem = PathName.deletingExtension(name)
        if e == "aae" {
            role = .adjustmentData
            base = Self.unmarked(stem, marker: "O") ?? stem
        } else if Self.livePhotoStills.contains(e) {
            role = .still(livePhoto: true)
            base = Self.unmarked(stem, marker: "E") ?? stem  // IMG_E1234.HEIC: the edited still of IMG_1234
        } else if Self.otherStills.contains(e) {
            role = .still(livePhoto: false)
            base = stem
        } else if Self.obviouslyNotMedia.contains(e) {
            role = .notMedia
            base = stem
        } else if Self.knownMedia.contains(e) {
            if let original = Self.unmarked(stem, marker: "E") {
                role = .renderedEdit
                base = original
            } else if stem.lowercased().hasSuffix("_edited") && stem.count > "_edited".count {
                role = .renderedEdit
                base = String(stem.dropLast("_edited".count))
            } else {
                role = .media(known: true)
                base = stem
            }
        } else {
            role = .media(known: false)
            base = stem
        }
    }

    /// Extensions of the formats the guarded opener reads (`InputFormats.allowed`). A file under one of these
    /// names is an original by name: if it does not open, its export fails with the reason (it is never dropped).
    static let knownMedia: Set<String> = [
        // video
        "mov", "mp4", "m4v", "3gp", "3g2", "mkv", "mk3d", "avi", "webm", "mts", "m2ts", "ts", "m2t", "mpg", "mpeg", "m2v", "m1v",
        "m2p", "vob", "mod", "tod", "wmv", "asf", "flv", "f4v", "ogv", "mxf", "dv", "rm", "rmvb", "divx", "nut", "ivf", "y4m",
        "gif", "h264", "264", "hevc", "h265", "265",
        // audio
        "m4a", "m4b", "mp3", "mp2", "aac", "ac3", "eac3", "dts", "wav", "w64", "aif", "aiff", "aifc", "flac", "ogg", "oga",
        "opus", "spx", "caf", "wma", "mka", "amr", "wv", "ape", "tta", "au",
    ]
    /// Stills that may be a Live Photo's (what an iPhone writes beside the movie).
    static let livePhotoStills: Set<String> = ["heic", "heif", "jpg", "jpeg"]
    /// Other stills: never a Live Photo's, never exported. (BMP is left to FFmpeg, which names what it is: a still,
    /// or an image sequence `frame%03d.bmp` that would read other files.)
    static let otherStills: Set<String> = ["png", "webp", "tif", "tiff", "dng", "avif", "jxl", "jp2", "psd", "svg", "ico",
                                           "cr2", "cr3", "nef", "arw", "orf", "rw2", "raf"]
    /// Names that are obviously not media, skipped without opening them (everything else is left to FFmpeg).
    static let obviouslyNotMedia: Set<String> = ["txt", "md", "json", "pdf", "xml", "csv", "tsv", "log", "html", "htm", "rtf", "yaml",
                                                 "yml", "xmp", "srt", "vtt", "doc", "docx", "xls", "xlsx"]

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
