import Foundation
import MediaExport

/// The tool's own version.
enum MediaExportVersion {
    /// Semantic version of mediaexport.
    static let string = "0.1.0"
}

/// The `mediaexport presets` table.
enum PresetTable {
    /// One row per preset: name, Apple alias, video, audio, container.
    static func render(_ presets: [Preset]) -> String {
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

    /// Columns padded to the widest cell as a terminal shows them (`displayWidth`: a CJK character takes two
    /// columns, a combining accent none), so that names in any script line up.
    /// Each cell is escaped first (`TerminalText`): a name cannot break a row.
    static func align(_ rows: [[String]]) -> String {
        let rows = rows.map { $0.map(TerminalText.escaped) }
        let widths = (0..<(rows.first?.count ?? 0)).map { col in rows.map { displayWidth($0[col]) }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: max(0, widths[i] - displayWidth(cell)))
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// The columns a terminal gives `text`: two for East Asian wide and full-width characters and emoji, none for
    /// combining marks and zero-width characters, one for the rest (per grapheme cluster: its first scalar decides).
    static func displayWidth(_ text: String) -> Int {
        text.reduce(0) { total, character in
            guard let scalar = character.unicodeScalars.first else { return total }
            let v = scalar.value
            if scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .enclosingMark
                || v == 0x200B || v == 0x200D || v == 0xFEFF { return total }
            let wide: [ClosedRange<UInt32>] = [0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
                                               0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
                                               0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD]
            if wide.contains(where: { $0.contains(v) }) || scalar.properties.isEmojiPresentation { return total + 2 }
            return total + 1
        }
    }
}

/// The `mediaexport probe` text report.
enum ProbeReport {
    /// A few lines for people.
    static func render(_ info: MediaInfo) -> String {
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
            if let f = s.fileName { parts.append("'\(f)'") }
            if let m = s.mimeType { parts.append("(\(m))") }
            lines.append(parts.joined(separator: " "))
            // Continuation lines start under the stream's type.
            let indent = String(repeating: " ", count: "  #\(s.index) ".count)
            if let color = s.color, !s.isAttachedPicture { lines += colorLines(color).map { indent + $0 } }
        }
        lines += chapterLines(info.chapters ?? [])
        return TerminalText.lines(lines)
    }

    /// `chapters: 2` and one line each: number, start and end in seconds, title.
    static func chapterLines(_ chapters: [ChapterInfo]) -> [String] {
        guard !chapters.isEmpty else { return [] }
        return ["  chapters: \(chapters.count)"] + chapters.enumerated().map { i, c in
            let start = Double(c.startTime).map { String(format: "%.3f", $0) } ?? c.startTime
            let end = Double(c.endTime).map { String(format: "%.3f", $0) } ?? c.endTime
            return "    \(i + 1). \(start)–\(end) s" + (c.tags?["title"].map { " \($0)" } ?? "")
        }
    }

    /// A video's colour, in at most two lines: `colour …` (HDR kind or transfer, primaries, matrix, range, bit depth,
    /// field order) and, when the stream has any, its HDR metadata (mastering display, content light level). None at
    /// all for a progressive stream that specifies nothing but the usual limited range: the pixel format above
    /// already says its bit depth.
    static func colorLines(_ c: VideoColor) -> [String] {
        let specified = c.primaries != nil || c.transfer != nil || c.matrix != nil || (c.range != nil && c.range != "tv")
        let hdrMetadata = c.mastering != nil || c.contentLight != nil
        guard specified || hdrMetadata || c.dolbyVision != nil || c.fieldOrder?.isInterlaced == true else { return [] }
        // The usual stream whose transfer, primaries and matrix share one name (bt709) says it once.
        let oneName = c.transfer.flatMap { t in c.transferKind == .sdr && c.primaries == t && c.matrix == t ? t : nil }
        var parts: [String] = []
        if let dv = c.dolbyVision { parts.append("Dolby Vision profile \(dv.profileName)\(baseLayer(dv))") }
        switch c.transferKind {
        case .pq: parts.append("PQ (\(c.transfer ?? "smpte2084"))")
        case .hlg: parts.append("HLG (\(c.transfer ?? "arib-std-b67"))")
        default: if let t = c.transfer { parts.append(oneName ?? "transfer \(t)") }
        }
        if oneName == nil {
            if let p = c.primaries { parts.append("primaries \(p)") }
            if let m = c.matrix { parts.append("matrix \(m)") }
        }
        if c.primaries == nil && c.transfer == nil && c.matrix == nil { parts.append("unspecified") }
        switch c.range {
        case "tv": parts.append("limited range (tv)")
        case "pc": parts.append("full range (pc)")
        case let r?: parts.append("range \(r)")
        case nil: break
        }
        if let d = c.bitDepth { parts.append("\(d)-bit") }
        switch c.fieldOrder {
        case .progressive: parts.append("progressive")
        case let f?: parts.append("interlaced \(f.rawValue) (\(f.topFieldFirst ? "top" : "bottom") field first)")
        case nil: break
        }
        var lines = ["colour " + parts.joined(separator: ", ")]
        if hdrMetadata {
            var hdr: [String] = []
            if let m = c.mastering {
                var text = "mastering display"
                if let name = knownPrimaries(m) { text += " \(name)" }
                if let maxL = m.maxLuminance {
                    text += " " + (m.minLuminance.map { "\(nits($0))–" } ?? "") + "\(nits(maxL)) nits"
                }
                hdr.append(text)
            }
            if let l = c.contentLight { hdr.append("MaxCLL \(l.maxCLL) nits, MaxFALL \(l.maxFALL) nits") }
            lines.append("HDR " + hdr.joined(separator: ", "))
        }
        return lines
    }

    /// What a player without Dolby Vision shows of the stream.
    private static func baseLayer(_ dv: DolbyVision) -> String {
        switch dv.compatibility {
        case 0: return " (no compatible base layer)"
        case 1, 6: return " (HDR10 base layer)"
        case 2: return " (SDR base layer)"
        case 4: return " (HLG base layer)"
        default: return ""
        }
    }

    /// The name of a mastering display's gamut when it is one of the usual ones, `(custom primaries)` when not, nil
    /// when the record has no primaries.
    private static func knownPrimaries(_ m: MasteringDisplay) -> String? {
        let d65 = [0.3127, 0.3290]
        let known: [(String, [[Double]])] = [
            ("P3-D65", [[0.680, 0.320], [0.265, 0.690], [0.150, 0.060], d65]),
            ("BT.2020", [[0.708, 0.292], [0.170, 0.797], [0.131, 0.046], d65]),
            ("BT.709", [[0.640, 0.330], [0.300, 0.600], [0.150, 0.060], d65]),
        ]
        let given = [m.red, m.green, m.blue, m.whitePoint]
        guard given.allSatisfy({ $0.count == 2 }) else { return nil }
        return known.first { _, points in
            zip(points, given).allSatisfy { abs($0[0] - $1[0]) < 0.0001 && abs($0[1] - $1[1]) < 0.0001 }
        }?.0 ?? "(custom primaries)"
    }

    /// Luminance as mastering metadata codes it (0.0001 nit steps), without trailing zeros.
    private static func nits(_ x: Double) -> String {
        var s = String(format: "%.4f", x)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }
}

/// The `mediaexport resources` table.
enum ResourceTable {
    /// One row per resource: kind, size, container, path.
    static func render(_ asset: Asset) -> String {
        var rows = [["KIND", "SIZE", "TYPE", "PATH"]]
        for r in asset.resources {
            rows.append([r.kind.rawValue, HumanSummary.bytes(r.size), r.container, r.path])
        }
        var lines = [TerminalText.escaped("asset \(asset.baseName) in \(asset.directory)"), PresetTable.align(rows)]
        for r in asset.resources where r.kind == .adjustmentData {
            let name = PathName.lastComponent(r.path)
            if let error = r.error { lines.append("\(name): \(error)"); continue }
            guard let info = r.adjustments else { continue }
            lines.append("\(name): \([info.formatIdentifier, info.formatVersion].compactMap { $0 }.joined(separator: " "))"
                         + (info.editor.map { " by \($0)" } ?? ""))
            for a in info.adjustments { lines.append("  " + adjustmentLine(a)) }
            if let why = info.undecodable { lines.append("  (\(why))") }
            let rendering = AppleEditRendering(info)
            lines.append(rendering.isRenderable ? "  current version: rendered from the original (\(rendering.applied.joined(separator: ", ")))"
                         : rendering.unrenderable.isEmpty ? "  current version: the original (nothing in the record changes the movie)"
                         : "  current version: cannot be rendered here (\(rendering.unrenderable.joined(separator: "; ")))")
        }
        lines += asset.notes.map { "note: \($0)" }
        return (lines.prefix(2) + lines.dropFirst(2).map(TerminalText.escaped)).joined(separator: "\n")
    }

    /// One decoded adjustment, e.g. `Trim 0.512–2.766 s`.
    static func adjustmentLine(_ a: AppleAdjustment) -> String {
        var text = a.identifier
        switch a.settings {
        case .trim(let start, let end): text += String(format: " %.3f–%.3f s", start, end)
        case .slowMotion(let rate, let regions):
            text += String(format: " at %g× over ", rate) + regions.map { String(format: "%.3f–%.3f s", $0.start, $0.start + $0.duration) }.joined(separator: ", ")
        case .mute: break
        case .crop(let x, let y, let w, let h): text += String(format: " %.0fx%.0f at (%.0f, %.0f)", w, h, x, y)
        case .orientation(let o): text += " \(o)"
        case .posterFrame(let t): text += String(format: " at %.3f s", t)
        case .other: break
        case .unreadable(let reason): text += " (unreadable: \(reason))"
        }
        return a.enabled ? text : text + " (disabled)"
    }
}

/// The regress table: sample × preset, pass/fail, the first cause and the first differing property; then where
/// `--keep-failed` kept outputs.
enum RegressTable {
    static func render(_ cases: [RegressCase]) -> String {
        var rows = [["SAMPLE", "PRESET", "RESULT", "FIRST DIFFERENCE"]]
        for c in cases {
            rows.append([c.sample, c.preset, c.status.rawValue.uppercased(), c.status == .pass ? "" : c.headline])
        }
        let kept = cases.compactMap { c in c.keptOutput.map { TerminalText.escaped("kept \(c.key): \($0)") } }
        return ([PresetTable.align(rows)] + kept).joined(separator: "\n")
    }
}
