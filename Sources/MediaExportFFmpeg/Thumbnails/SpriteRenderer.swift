internal import CFFmpeg
import Foundation
import MediaExportCore

/// Makes trickplay scrub previews of a file's video: the tiles `SpriteLayout` lays out, each the keyframe nearest its
/// time when every tile has one within half an interval (only those keyframes are decoded), else the first frame at
/// or after its time; upright as `ThumbnailRenderer`'s pictures (display matrix, HDR tone-mapped), one sheet in memory
/// at a time, written as `sprites/sheet_NNN.jpg` (MJPEG, full range), `thumbnails.vtt` and `thumbnails.json`.
package enum SpriteRenderer {
    /// Renders the scrub previews of `input` into `folder` (created if missing; files written directly: the caller
    /// commits the folder whole). `duration` defaults to the container's; `interval` and `tileWidth` to the layout's
    /// rules (a tile never wider than the video as displayed). Throws `ExportError`.
    package static func render(input: String, duration: Double?, into folder: String, interval: Double?,
                               tileWidth: Int?) throws -> TrickplayResult {
        let demuxer = try Demuxer(path: input, cancel: nil)
        guard let stream = demuxer.streams.first(where: { StreamFacts($0).kind == .video && !StreamFacts($0).isAttachedPicture }) else {
            throw ExportError.noUsableStreams(path: input, reason: "no video stream to make scrub previews from")
        }
        for s in demuxer.streams where s != stream { s.pointee.discard = AVDISCARD_ALL }
        let facts = StreamFacts(stream)
        guard let length = duration ?? demuxer.duration ?? facts.duration, length.isFinite, length > 0 else {
            throw ExportError.invalidTimeRange(path: input, reason: "the video's duration is unknown")
        }
        let shown = PixelSize.displayed(width: facts.width, height: facts.height, sampleAspect: facts.sampleAspect, rotation: facts.clockwise)
        guard shown.width > 0, shown.height > 0 else {
            throw ExportError.noUsableStreams(path: input, reason: "the video stream has no picture size")
        }
        let (keyframes, scanned) = try keyframeTimes(demuxer, stream)
        let layout = try layout(duration: length, interval: SpriteLayout.interval(duration: length, requested: interval, keyframes: keyframes),
                                tileWidth: min(tileWidth ?? SpriteLayout.defaultTileWidth, max(SpriteLayout.tileWidths.lowerBound, shown.width)),
                                aspect: Double(shown.width) / Double(shown.height), path: input)
        let keyframesOnly = layout.keyframesSuffice(keyframes)
        let sheets = try SpriteSheetWriter(layout: layout, folder: folder, stream: stream, path: input)
        // A scan read the file to its end: decode from a fresh opening (MPEG-TS seeks by bytes, not exactly).
        let pass = scanned ? try Demuxer(path: input, cancel: nil) : demuxer
        let passStream = pass.streams[Int(stream.pointee.index)]
        for s in pass.streams where s != passStream { s.pointee.discard = AVDISCARD_ALL }
        let decoded = keyframesOnly ? try decodeKeyframes(pass, passStream, layout: layout, sheets: sheets, path: input)
                                    : try decodeFrames(pass, passStream, layout: layout, sheets: sheets, path: input)
        try sheets.finish()
        try write(layout.index, into: folder, pictures: sheets.written, path: input)
        return TrickplayResult(layout: layout, keyframesOnly: keyframesOnly, largestKeyframeGap: SpriteLayout.largestGap(keyframes),
                               framesDecoded: decoded)
    }

    /// The layout, or the caller's mistake in words.
    static func layout(duration: Double, interval: Double, tileWidth: Int, aspect: Double, path: String) throws -> SpriteLayout {
        do {
            return try SpriteLayout(duration: duration, interval: interval, tileWidth: tileWidth, displayAspect: aspect)
        } catch {
            let reason: String
            switch error {
            case .duration(let d): reason = "duration \(d) s must be at least a millisecond"
            case .interval(let i): reason = "interval \(i) s must be at least \(SpriteLayout.shortestInterval) s"
            case .tileWidth(let w): reason = "tile width \(w) must be between \(SpriteLayout.tileWidths.lowerBound) and \(SpriteLayout.tileWidths.upperBound)"
            case .aspect(let a): reason = "the displayed aspect ratio \(a) is outside 1:20 to 20:1"
            case .grid(let c, let r): reason = "a sheet of \(c)×\(r) tiles"
            case .sheetSize(let w, let h): reason = "a sheet of \(w)×\(h) pixels is above \(SpriteLayout.largestSheetSide) a side"
            }
            throw ExportError.usage(reason: "scrub previews of \(path): \(reason)")
        }
    }

    /// The keyframe times of `stream` in seconds from the start: from the demuxer's index (MP4, Matroska: nothing
    /// read), else from the packets' flags (read to the end; `scanned` says so).
    static func keyframeTimes(_ demuxer: Demuxer, _ stream: UnsafeMutablePointer<AVStream>) throws -> (times: [Double], scanned: Bool) {
        let base = av_q2d(stream.pointee.time_base), start = demuxer.startTime
        var times: [Double] = []
        for i in 0..<avformat_index_get_entries_count(stream) {
            guard let e = avformat_index_get_entry(stream, i), (Int32(e.pointee.flags) & AVINDEX_KEYFRAME) != 0 else { continue }
            times.append(Double(e.pointee.timestamp) * base - start)
        }
        if !times.isEmpty { return (times, false) }
        let packet = Packet()
        while case .packet = try demuxer.read(into: packet) {
            let p = packet.pointer.pointee
            if p.stream_index == stream.pointee.index, (p.flags & AV_PKT_FLAG_KEY) != 0 { times.append(seconds(p, base: base, start: start)) }
            packet.unref()
        }
        return (times, true)
    }

    /// A packet's presentation time (its decode time when it has none), in seconds from the start.
    static func seconds(_ p: AVPacket, base: Double, start: Double) -> Double {
        Double(p.pts != AVCode.noPTS ? p.pts : p.dts == AVCode.noPTS ? 0 : p.dts) * base - start
    }

    /// Keyframes only: each key packet's time goes to the picker, and only the packets that some tile is nearest to
    /// are decoded (the decoder told to skip anything else). Returns the pictures decoded.
    static func decodeKeyframes(_ demuxer: Demuxer, _ stream: UnsafeMutablePointer<AVStream>, layout: SpriteLayout,
                                sheets: SpriteSheetWriter, path: String) throws -> Int {
        let decoder = try StreamDecoder(stream: stream, path: path)
        decoder.context.pointee.skip_frame = AVDISCARD_NONKEY
        // The MP4 demuxer then skips the other samples' bytes (no read of the whole file).
        stream.pointee.discard = AVDISCARD_NONKEY
        let base = av_q2d(stream.pointee.time_base), start = demuxer.startTime
        var picker = SpriteTilePicker(times: layout.tileTimes, rule: .nearest)
        var sent = SentKeyframes()
        let packet = Packet(), held = Packet(), frame = Frame()
        func use(_ tiles: Range<Int>) throws {
            guard !tiles.isEmpty, held.pointer.pointee.size > 0 else { return }
            sent.note(held.pointer.pointee.pts, tiles: tiles)
            try? decoder.send(held)
            try sent.drain(decoder, into: frame, sheets: sheets)
        }
        while !picker.isDone, case .packet = try demuxer.read(into: packet) {
            defer { packet.unref() }
            let p = packet.pointer.pointee
            guard p.stream_index == stream.pointee.index, (p.flags & AV_PKT_FLAG_KEY) != 0 else { continue }
            try use(picker.arrive(seconds(p, base: base, start: start)).held)
            held.unref()
            av_packet_move_ref(held.pointer, packet.pointer)
        }
        try use(picker.finish())
        try? decoder.send(nil)
        try sent.drain(decoder, into: frame, sheets: sheets)
        return sent.decoded
    }

    /// The keyframes sent to the decoder and the tiles each is for, matched to the pictures as they come out (by
    /// time; in order when the decoder changed it).
    struct SentKeyframes {
        var waiting: [(pts: Int64, tiles: Range<Int>)] = []
        var decoded = 0

        mutating func note(_ pts: Int64, tiles: Range<Int>) { waiting.append((pts, tiles)) }

        /// Takes every picture the decoder has ready and places it on the tiles it was sent for.
        mutating func drain(_ decoder: StreamDecoder, into frame: Frame, sheets: SpriteSheetWriter) throws {
            while case .ready = try decoder.receive(into: frame) {
                decoded += 1
                let pts = frame.pointer.pointee.pts
                if let i = waiting.firstIndex(where: { $0.pts == pts }) ?? (waiting.isEmpty ? nil : 0) {
                    try sheets.place(frame, tiles: waiting[i].tiles)
                    waiting.removeFirst(i + 1)
                }
                frame.unref()
            }
        }
    }

    /// Every frame: each tile gets the first frame at or after its time (half a frame of slack), the tiles after the
    /// last frame get it. Returns the pictures decoded.
    static func decodeFrames(_ demuxer: Demuxer, _ stream: UnsafeMutablePointer<AVStream>, layout: SpriteLayout,
                             sheets: SpriteSheetWriter, path: String) throws -> Int {
        let frames = try FrameReader(demuxer: demuxer, stream: stream, path: path, from: 0)
        let half = 0.5 / max(1, av_q2d(av_guess_frame_rate(nil, stream, nil)))
        var picker = SpriteTilePicker(times: layout.tileTimes, rule: .atOrAfter, slack: half)
        var last: Frame?, decoded = 0
        while !picker.isDone, let (frame, time) = try frames.next() {
            decoded += 1
            try sheets.place(frame, tiles: picker.arrive(time).current)
            last = frame
        }
        if let last { try sheets.place(last, tiles: picker.finish()) }
        return decoded
    }

    /// Writes `thumbnails.vtt` and `thumbnails.json` after checking the index against the sheets written.
    static func write(_ index: SpriteIndex, into folder: String, pictures: [String: (width: Int, height: Int)], path: String) throws {
        let problems = index.problems(pictures: pictures)
        guard problems.isEmpty else {
            throw ExportError.verificationFailed(path: folder, checks: "scrub previews of \(path): \(problems)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try Data(index.webVTT.utf8).write(to: URL(fileURLWithPath: folder).appendingPathComponent(TrickplayResult.vttName))
            try encoder.encode(index).write(to: URL(fileURLWithPath: folder).appendingPathComponent(TrickplayResult.indexName))
        } catch {
            throw ExportError.outputUnwritable(path: folder, reason: error.localizedDescription)
        }
    }
}
