import ArgumentParser
import Foundation
import MediaExport

struct Formats: ToolCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the containers and codecs mediaexport writes, and the formats it reads.",
        discussion: """
        Encode: what the presets' encoders produce in each container. Copy: what a \
        stream copy keeps (FFmpeg's muxer, with mediaexport's stricter rules).

        Examples:
          mediaexport formats
          mediaexport formats --all
          mediaexport formats --json | jq '.writes[].container'
        """
    )

    @Flag(help: "List every codec a copy keeps and every decoder, not only the counts.")
    var all = false

    @Flag(help: "Print JSON (always with every list).")
    var json = false

    func perform() throws {
        try printJSON(FormatCatalog.current(), or: { FormatTable.render($0, all: all) }, json: json)
    }
}

/// The `formats` listing for people: one block per container written, then what is read.
enum FormatTable {
    static func render(_ catalog: FormatCatalog, all: Bool) -> String {
        var lines = ["Writes (by output extension):"]
        for w in catalog.writes {
            lines.append("  .\(w.container.rawValue)  (\(w.muxer) muxer)")
            lines.append("    encode: " + summary(w.encode, all: true))
            lines.append("    copy:   " + summary(w.copy, all: all))
            lines.append("    keeps:  " + keeps(w.keeps))
        }
        let r = catalog.reads
        lines.append("Reads: \(r.demuxers.count) container formats: \(r.demuxers.joined(separator: ", "))")
        lines.append("  decodes: " + summary(r.decoders, all: all))
        if !all { lines.append("(--all lists every codec, --json gives them as data)") }
        return lines.joined(separator: "\n")
    }

    /// "video h264, hevc; audio aac; subtitles mov_text", or counts ("video 112, audio 98 …") when not `all`.
    static func summary(_ c: CodecLists, all: Bool) -> String {
        let parts = [("video", c.video), ("audio", c.audio), ("subtitles", c.subtitle)].map { name, list in
            all ? "\(name) " + (list.isEmpty ? "none" : list.joined(separator: ", ")) : "\(name) \(list.count)"
        }
        return parts.joined(separator: all ? "; " : ", ") + (all ? "" : " codecs")
    }

    /// "rotation: display matrix; cuts: edit list; tags: as written; timecode: track; languages: ISO 639-2" (`ContainerKeeps`).
    static func keeps(_ k: ContainerKeeps) -> String {
        let rotation: String = k.displayMatrix ? "display matrix" : "turned into the pixels"
        let cuts: String = k.editList ? "edit list" : "from a keyframe"
        let tags: String = k.tagCaseKept ? "as written" : "upper-cased"
        let timecode: String = k.timecode == .none ? "none" : k.timecode.rawValue
        let parts: [String] = ["rotation: " + rotation, "cuts: " + cuts, "tags: " + tags, "timecode: " + timecode,
                               "languages: " + languages(k.languages)]
        return parts.joined(separator: "; ")
    }

    /// How a container's languages read in `formats`.
    static func languages(_ store: ContainerKeeps.LanguageStore) -> String {
        switch store {
        case .asWritten: return "any code"
        case .iso639: return "ISO 639-2"
        case .macintosh: return "QuickTime's list"
        }
    }
}
