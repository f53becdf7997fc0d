import Foundation
import MediaExport
import MediaExportFFmpeg
import MediaExportCore

/// The tool's own version.
public enum MediaExportVersion {
    /// Semantic version of mediaexport.
    public static let string = "0.1.0"
}

/// The `mediaexport presets` table.
public enum PresetTable {
    /// One row per preset: name, Apple alias, video, audio, container.
    public static func render(_ presets: [Preset]) -> String {
        var rows = [["NAME", "APPLE NAME", "VIDEO", "AUDIO", "EXT"]]
        for p in presets {
            let video: String
            if p.passthrough { video = "copy" } else if let v = p.video {
                video = "\(v.codec.rawValue) \(v.maxSize.map { "≤\($0)" } ?? "source size") \(v.encoderPreset) crf \(v.crf)"
            } else { video = "—" }
            let audio: String
            if p.passthrough { audio = "copy" } else if let a = p.audio {
                audio = "\(a.codec.rawValue) \(a.bitrate / 1000)k \(a.sampleRate / 1000)kHz ≤\(a.channels)ch"
            } else { audio = "—" }
            rows.append([p.name, p.aliases.first ?? "", video, audio, "." + p.defaultExtension])
        }
        return align(rows)
    }

    static func align(_ rows: [[String]]) -> String {
        let widths = (0..<(rows.first?.count ?? 0)).map { col in rows.map { $0[col].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

/// The `mediaexport probe` text report.
public enum ProbeReport {
    /// A few lines for people.
    public static func render(_ info: MediaInfo) -> String {
        var lines = ["\(info.path)"]
        var head = "  container \(info.container)"
        if let d = info.duration { head += String(format: ", %.3f s", d) }
        head += ", \(HumanSummary.bytes(info.size))"
        if let b = info.bitRate { head += ", \(b / 1000) kb/s" }
        lines.append(head)
        if let c = info.creationTime { lines.append("  created \(c)") }
        if let l = info.location { lines.append("  location \(l)") }
        for s in info.streams {
            var parts = ["  #\(s.index) \(s.type) \(s.codec)"]
            if let p = s.profile { parts.append("(\(p))") }
            if let w = s.width, let h = s.height { parts.append("\(w)x\(h)") }
            if let f = s.pixelFormat { parts.append(f) }
            if let r = s.frameRate { parts.append(String(format: "%.3g fps", r)) }
            if let r = s.rotation, r != 0 { parts.append("rotation \(r)° (shown \(s.displayWidth ?? 0)x\(s.displayHeight ?? 0))") }
            if let sr = s.sampleRate { parts.append("\(sr) Hz") }
            if let c = s.channelLayout ?? s.channels.map({ "\($0) ch" }) { parts.append(c) }
            if let l = s.language { parts.append("[\(l)]") }
            if let b = s.bitRate { parts.append("\(b / 1000) kb/s") }
            if s.isAttachedPicture { parts.append("(cover art)") }
            lines.append(parts.joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }
}

/// The `mediaexport resources` table.
public enum ResourceTable {
    /// One row per resource: kind, size, container, path.
    public static func render(_ asset: Asset) -> String {
        var rows = [["KIND", "SIZE", "TYPE", "PATH"]]
        for r in asset.resources {
            rows.append([r.kind.rawValue, HumanSummary.bytes(r.size), r.container, r.path])
        }
        return "asset \(asset.baseName) in \(asset.directory)\n" + PresetTable.align(rows)
    }
}

/// The regress table: sample × preset, pass/fail and the first differing property.
enum RegressTable {
    static func render(_ cases: [RegressCase]) -> String {
        var rows = [["SAMPLE", "PRESET", "RESULT", "FIRST DIFFERENCE"]]
        for c in cases {
            let detail: String
            switch c.status {
            case .pass: detail = ""
            case .fail: detail = c.differences.first?.description ?? ""
            case .missing, .error: detail = c.message ?? ""
            }
            rows.append([c.sample, c.preset, c.status.rawValue.uppercased(), detail])
        }
        return PresetTable.align(rows)
    }
}
