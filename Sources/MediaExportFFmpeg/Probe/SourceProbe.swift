internal import CFFmpeg
import Foundation
import MediaExportCore

/// One probe of a source per export: the opened demuxer and the `SourceInfo` the planner reads. The executor's
/// first route reads from this same demuxer; a later route (a fallback) gets a fresh one (`takeDemuxer()`), since
/// a failed route leaves the first somewhere in the middle of the file.
package final class ProbedSource {
    /// What the planner needs to know.
    package private(set) var info: SourceInfo
    private let path: String
    private let cancel: CancelToken?
    private var unused: Demuxer?

    /// Opens `path` (through the guarded opener: see `Demuxer`) and describes it.
    package init(path: String, cancel: CancelToken?) throws {
        self.path = path
        self.cancel = cancel
        let demuxer = try Demuxer(path: path, cancel: cancel)
        info = SourceProbe.info(demuxer)
        unused = demuxer
        // HDR10 metadata an HEVC stream sends only in SEI: the tone mapping's peak and the Main10 output need it.
        if let v = info.mainVideo, var color = info.streams[v].color, color.isHDR {
            ColorProbe.addFirstFrameMetadata(to: &color, path: path, streamIndex: v)
            info.streams[v].color = color
        }
        if info.streams.contains(where: { $0.kind == .subtitle }) { sampleSubtitleText() }
    }

    /// Cues read from each subtitle stream: the text `PrivateStream` looks for positions in.
    static let sampledCues = 8
    /// Packets read at most for them (the other streams' are skipped unread where the demuxer can).
    static let sampledPackets = 1024

    /// Reads the first cues of every subtitle stream (their packets' bytes as text: SubRip, ASS and WebVTT carry their
    /// text as it is, `mov_text` behind a two-byte length) into `SourceStream.textSample`: a drone's telemetry track
    /// says where it flew from its first cue. A read that fails leaves what it read.
    private func sampleSubtitleText() {
        guard let demuxer = try? takeDemuxer() else { return }
        defer { unused = nil }
        let subtitles = Set(info.streams.filter { $0.kind == .subtitle }.map(\.index))
        for (i, stream) in demuxer.streams.enumerated() where !subtitles.contains(i) { stream.pointee.discard = AVDISCARD_ALL }
        var text: [Int: [UInt8]] = [:], cues: [Int: Int] = [:]
        let packet = Packet()
        for _ in 0..<Self.sampledPackets {
            guard subtitles.contains(where: { cues[$0, default: 0] < Self.sampledCues }),
                  case .packet? = try? demuxer.read(into: packet) else { break }
            let p = packet.pointer.pointee, i = Int(p.stream_index)
            if subtitles.contains(i), cues[i, default: 0] < Self.sampledCues, let data = p.data, p.size > 0 {
                cues[i, default: 0] += 1
                text[i, default: []] += UnsafeBufferPointer(start: data, count: Int(min(p.size, 4096)))
            }
            packet.unref()
        }
        for i in subtitles { info.streams[i].textSample = String(decoding: text[i] ?? [], as: UTF8.self) }
    }

    /// Looks up the main video's keyframe at or before `cut` (seconds from the source's start) and records it in
    /// `info.cutKeyframe`, for a stream copy that starts there. Keeps an earlier answer for the same cut.
    package func lookUpKeyframe(at cut: Double) throws {
        if info.cutKeyframe?.requested == cut { return }
        let demuxer = try takeDemuxer()
        defer { unused = nil }
        // By presentation time (an index holds decode times, which B-frames shift): the seek the copy makes.
        let index = av_find_best_stream(demuxer.context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        let keyframe = try index >= 0 ? max(0, demuxer.seek(toKeyframeOf: index, atOrBefore: cut) ?? cut) : cut
        info.cutKeyframe = KeyframeLookup(requested: cut, keyframe: keyframe)
    }

    /// Reads every packet (no decoding) and records where the streams' data ends (`info.dataEnd`) and the largest
    /// stretch of bytes no packet came from (`info.unreadable`): what a byte copy of a file that "already fits" would
    /// otherwise deliver without looking.
    package func measureDataEnd() throws {
        let demuxer = try takeDemuxer()
        let packet = Packet()
        var end = 0.0
        var coverage = ByteCoverage(audioOf: info)
        let bases = demuxer.streams.map { av_q2d($0.pointee.time_base) }
        while case .packet = try demuxer.read(into: packet) {
            let p = packet.pointer.pointee
            if p.pts != AVCode.noPTS, Int(p.stream_index) < bases.count {
                let base = bases[Int(p.stream_index)], start = Double(p.pts) * base - demuxer.startTime
                let packetEnd = Double(p.pts + max(0, p.duration)) * base - demuxer.startTime
                end = max(end, packetEnd)
                coverage.note(stream: Int(p.stream_index), offset: p.pos, size: Int(p.size), start: start, end: packetEnd)
            }
            packet.unref()
        }
        info.dataEnd = end
        info.unreadable = coverage.largestHole
    }

    /// The probe's demuxer the first time, a fresh one after that.
    func takeDemuxer() throws -> Demuxer {
        if let d = unused { unused = nil; return d }
        return try Demuxer(path: path, cancel: cancel)
    }
}

/// Builds `SourceInfo` from an open demuxer (no decoding).
enum SourceProbe {
    static func info(_ demuxer: Demuxer) -> SourceInfo {
        let ctx = demuxer.context
        // The best stream FFmpeg can decode, else the best at all: an iPhone's spatial audio track (APAC, which FFmpeg 5.1
        // has no decoder for) is never the main audio while its AAC track is there (it would block the transcode).
        func best(_ type: AVMediaType) -> Int? {
            var decoder: UnsafePointer<AVCodec>? = nil
            let decodable = av_find_best_stream(ctx, type, -1, -1, &decoder, 0)
            if decodable >= 0 { return Int(decodable) }
            let i = av_find_best_stream(ctx, type, -1, -1, nil, 0)
            return i >= 0 ? Int(i) : nil
        }
        var info = SourceInfo(path: demuxer.path, formatName: String(cString: ctx.pointee.iformat.pointee.name), duration: demuxer.duration,
                              startTime: demuxer.startTime, size: demuxer.fileSize, streams: demuxer.streams.map(stream),
                              mainVideo: best(AVMEDIA_TYPE_VIDEO), mainAudio: best(AVMEDIA_TYPE_AUDIO))
        let tags = demuxer.metadata
        info.creationTime = tags["creation_time"] ?? tags["com.apple.quicktime.creationdate"]
        info.tags = tags
        info.chapters = demuxer.chapters
        info.durationsEstimated = demuxer.durationsEstimated
        if info.declaresFrameCounts {
            declareFrameLengths(&info, demuxer.streams)
            noteEmptyChunks(&info, demuxer.streams)
        }
        if info.formatName.hasPrefix("mov,") { countShownFrames(&info, demuxer.streams) }
        return info
    }

    /// An MP4/MOV whose edit list hides samples (a stream-copy cut's lead-in, encoder priming) shows fewer frames
    /// than it stores (`nb_frames`): a video's frame count is what players show, as its duration and start are. The
    /// index also tells, from every frame's time, whether the video keeps a constant rate (`SourceStream.variableRate`),
    /// and each video or audio stream's hidden lead-in (`SourceStream.hiddenLeadIn`), which a copy into a container
    /// without edit lists shows.
    static func countShownFrames(_ info: inout SourceInfo, _ streams: [UnsafeMutablePointer<AVStream>]) {
        for (i, stream) in streams.enumerated() where info.streams[i].kind == .video || info.streams[i].kind == .audio {
            let entries = Int(avformat_index_get_entries_count(stream))
            guard entries > 0 else { continue }
            let index = StreamIndex.read(stream, entries: entries)
            if index.hidden > 0 { info.streams[i].hiddenLeadIn = .init(samples: index.hidden, seconds: index.leadIn) }
            guard info.streams[i].kind == .video, info.streams[i].frameCount != nil else { continue }
            if index.hidden > 0 { info.streams[i].frameCount = entries - index.hidden }
            info.streams[i].variableRate = entries > 2 && !index.constantRate
        }
    }

    /// An AVI's index leaves out its empty chunks (frames its writer dropped on purpose, shown as the frame before):
    /// their slots are gaps in the index's timestamps. A video with more of them than `FrameHoles`' rule allows a
    /// stream of constant rate is of variable rate (`SourceStream.variableRate`): a range of it holds the frames its
    /// index has there, not its length at the header's rate (opencv-tree.avi: 68 frames in 444 slots, 5 in 1–3 s).
    static func noteEmptyChunks(_ info: inout SourceInfo, _ streams: [UnsafeMutablePointer<AVStream>]) {
        for (i, stream) in streams.enumerated() where info.streams[i].kind == .video && !info.streams[i].isAttachedPicture {
            let entries = Int(avformat_index_get_entries_count(stream))
            guard entries > 2 else { continue }
            info.streams[i].variableRate = !StreamIndex.read(stream, entries: entries).constantRate
        }
    }

    /// A header that declares its video's frame count (AVI) declares its length too: the frames at the stream's rate,
    /// a frame a tick of its time base. FFmpeg takes the duration from the index instead, which a file cut short has
    /// lost; the header's length is what a truncation is judged against.
    static func declareFrameLengths(_ info: inout SourceInfo, _ streams: [UnsafeMutablePointer<AVStream>]) {
        for (i, stream) in streams.enumerated() where info.streams[i].kind == .video && !info.streams[i].isAttachedPicture {
            guard let count = info.streams[i].frameCount else { continue }
            let declared = Double(count) * av_q2d(stream.pointee.time_base)
            guard declared > (info.streams[i].duration ?? 0) else { continue }
            info.streams[i].duration = declared
            info.streams[i].durationIsOwn = true
            info.duration = max(info.duration ?? 0, declared)
        }
    }

    static func stream(_ stream: UnsafeMutablePointer<AVStream>) -> SourceStream {
        let f = StreamFacts(stream)
        let known = f.codecID != AV_CODEC_ID_NONE
        var s = SourceStream(index: f.index, kind: f.kind, codec: f.codec, codecKnown: known,
                             decodable: known && avcodec_find_decoder(f.codecID) != nil, isAttachedPicture: f.isAttachedPicture,
                             fitsIn: known ? Set(Container.allCases.filter { $0.canHold(f.codecID) }) : [], bitRate: f.bitRate,
                             language: f.language, width: f.width, height: f.height, sampleAspect: f.sampleAspect,
                             rotation: f.clockwise, pixelFormat: f.pixelFormat, channels: f.channels, sampleRate: f.sampleRate)
        // Cover art is one picture without a timeline (libavformat gives it the file's duration): none, and so nothing
        // the executor would have to measure by reading every stream's packets.
        s.duration = f.isAttachedPicture ? nil : f.duration
        s.durationIsOwn = s.duration != nil || f.isAttachedPicture
        s.frameCount = f.frameCount
        s.isChapterTrack = f.isChapterTrack
        s.tags = f.tags
        s.picture = f.picture
        s.timecode = f.timecode
        s.isTimecodeTrack = f.isTimecodeTrack
        s.codecTag = f.codecTag
        // A timecode track's own rate (timescale / frame duration) is the one its frame number counts at.
        if f.kind == .video || f.isTimecodeTrack { s.frameRate = f.frameRate }
        if f.kind == .video { s.baseFrameRate = f.baseFrameRate }
        s.reorderDepth = f.reorderDepth
        s.displayMatrix = f.displayMatrix
        s.color = f.color
        s.preSkip = f.preSkip
        return s
    }
}
