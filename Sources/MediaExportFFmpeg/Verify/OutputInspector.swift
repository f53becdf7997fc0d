internal import CFFmpeg
import Foundation
import MediaExportCore

/// Reads a finished output back for the verifier: one open (no decoding). MP4/MOV give everything from their
/// index (sample counts, decode times, durations) without touching the media data; other containers are read
/// packet by packet (the file was just written, so it comes from the page cache).
package enum OutputInspector {
    /// The facts of the file at `path` (a temporary file read through `/proc/self/fd`, or a plain path).
    /// `scanPackets: false` reads the header only (a byte copy's streams: the bytes are checked by their hash).
    /// `decodeFirstFrames: false` reads the header alone, and a video's pixel format that the header does not say
    /// (H.264 and HEVC carry theirs in the bitstream's sequence header) from the codec's parser over the stream's
    /// first packet: no decoding. Decoding a first frame of each stream (`avformat_find_stream_info`) cost a
    /// passthrough's check 5-16 % of its time, and a 1080p transcode's as much as a frame of its source.
    package static func facts(path: String, cancel: CancelToken?, scanPackets: Bool = true, decodeFirstFrames: Bool = true) throws -> OutputFacts {
        let demuxer = try Demuxer(path: path, cancel: cancel, streamInfo: decodeFirstFrames)
        let ctx = demuxer.context
        let formatName = String(cString: ctx.pointee.iformat.pointee.name)
        let read = demuxer.streams.map(StreamFacts.init)
        var streams = read.map(describe)
        var unparsed = Set(streams.indices.filter {
            !decodeFirstFrames && scanPackets && streams[$0].kind == .video && streams[$0].pixelFormat == nil && !streams[$0].isAttachedPicture
        })
        let quickTime = formatName.hasPrefix("mov,")
        var needsScan = false
        for (i, stream) in demuxer.streams.enumerated() {
            let entries = Int(avformat_index_get_entries_count(stream))
            if !scanPackets {
                continue
            } else if quickTime && entries > 0 {
                let index = StreamIndex.read(stream, entries: entries)
                streams[i].timestampsIncreasing = index.increasing
                if streams[i].frameCount == nil { streams[i].frameCount = entries }
                streams[i].shownFrames = entries - index.hidden
            } else if quickTime {
                streams[i].frameCount = 0
                streams[i].timestampsIncreasing = true
            } else {
                needsScan = true
            }
        }
        if needsScan && scanPackets {
            var parsed: [Int: String] = [:]
            try scan(demuxer, read, into: &streams) { i, packet in
                if unparsed.remove(i) != nil { parsed[i] = parsedPixelFormat(demuxer.streams[i], packet) }
            }
            for (i, format) in parsed { streams[i].pixelFormat = format }
        } else if !unparsed.isEmpty {
            // The index said the rest: read only as far as each such stream's first packet (the file was just written).
            let packet = Packet()
            var budget = 1024
            while !unparsed.isEmpty, budget > 0, case .packet = try demuxer.read(into: packet) {
                budget -= 1
                let i = Int(packet.pointer.pointee.stream_index)
                if unparsed.remove(i) != nil { streams[i].pixelFormat = parsedPixelFormat(demuxer.streams[i], packet.pointer) }
                packet.unref()
            }
        }
        var facts = OutputFacts(formatName: formatName, streams: streams, tags: demuxer.metadata,
                                faststart: quickTime ? moovFirst(path) : nil, size: demuxer.fileSize, duration: demuxer.duration)
        if quickTime { leaveOutMuxerTracks(&facts, read) }
        facts.chapters = (0..<Int(ctx.pointee.nb_chapters)).compactMap { ctx.pointee.chapters[$0].map { Demuxer.dictionary($0.pointee.metadata) } }
        return facts
    }

    /// MP4/MOV/M4A chapters come with a QuickTime chapter track: the mov demuxer reads it into the chapters and
    /// discards it (a data stream, `bin_data`). A timecode track (`tmcd`) is made by the muxer of the video's
    /// `timecode` tag: counted for the timecode check. Neither is a stream of the plan's.
    static func leaveOutMuxerTracks(_ facts: inout OutputFacts, _ read: [StreamFacts]) {
        facts.timecodeTracks = read.filter(\.isTimecodeTrack).count
        facts.streams = zip(read, facts.streams).filter { !$0.0.discarded && !$0.0.isTimecodeTrack }.map(\.1)
    }

    static func describe(_ f: StreamFacts) -> OutputFacts.Stream {
        var s = OutputFacts.Stream(kind: f.kind, codec: f.codec)
        s.language = f.language
        s.tags = f.tags
        s.timecode = f.timecode
        s.duration = f.duration
        s.frameCount = f.frameCount
        s.isAttachedPicture = f.isAttachedPicture
        s.picture = f.picture
        s.width = f.width; s.height = f.height
        s.pixelFormat = f.pixelFormat
        s.color = f.color
        s.displayMatrix = f.displayMatrix
        s.frameDuration = f.kind == .video ? f.frameRate.map { 1 / $0 } : nil
        s.channels = f.channels
        s.sampleRate = f.sampleRate
        return s
    }

    /// The pixel format the sequence header in `packet` declares, from the codec's parser (H.264, HEVC: the
    /// chroma format and bit depth of the SPS the picture refers to, with the stream's extradata); nil when the
    /// parser does not say (the verification then reads the file again, decoding).
    static func parsedPixelFormat(_ stream: UnsafeMutablePointer<AVStream>, _ packet: UnsafeMutablePointer<AVPacket>) -> String? {
        let par = stream.pointee.codecpar
        guard let parser = av_parser_init(Int32(bitPattern: par!.pointee.codec_id.rawValue)) else { return nil }
        defer { av_parser_close(parser) }
        var context = avcodec_alloc_context3(nil)
        defer { avcodec_free_context(&context) }
        guard let context, avcodec_parameters_to_context(context, par) >= 0 else { return nil }
        parser.pointee.flags |= PARSER_FLAG_COMPLETE_FRAMES
        var data: UnsafeMutablePointer<UInt8>? = nil
        var size: Int32 = 0
        let p = packet.pointee
        _ = av_parser_parse2(parser, context, &data, &size, p.data, p.size, p.pts, p.dts, p.pos)
        let format = parser.pointee.format
        return format >= 0 ? pixelFormatName(AVPixelFormat(rawValue: format)) : nil
    }

    /// Counts packets per stream, checks their decode times increase, and measures durations a header lacks.
    /// `firstPacket` sees each stream's first packet.
    static func scan(_ demuxer: Demuxer, _ read: [StreamFacts], into streams: inout [OutputFacts.Stream],
                     firstPacket: (Int, UnsafeMutablePointer<AVPacket>) -> Void = { _, _ in }) throws {
        let n = streams.count
        var count = [Int](repeating: 0, count: n)
        var hidden = [Int](repeating: 0, count: n)
        var lastDTS = [Int64](repeating: Int64.min, count: n)
        var increasing = [Bool](repeating: true, count: n)
        var first = [Int64?](repeating: nil, count: n)
        var end = [Int64?](repeating: nil, count: n)
        let packet = Packet()
        while case .packet = try demuxer.read(into: packet) {
            let p = packet.pointer.pointee
            let i = Int(p.stream_index)
            defer { packet.unref() }
            guard i >= 0 && i < n else { continue }
            if count[i] == 0 { firstPacket(i, packet.pointer) }
            count[i] += 1
            if (p.flags & AV_PKT_FLAG_DISCARD) != 0 { hidden[i] += 1 }
            if p.dts != AVCode.noPTS {
                if p.dts <= lastDTS[i] { increasing[i] = false }
                lastDTS[i] = p.dts
            }
            if p.pts != AVCode.noPTS {
                first[i] = min(first[i] ?? p.pts, p.pts)
                end[i] = max(end[i] ?? Int64.min, p.pts + max(0, p.duration))
            }
        }
        for i in 0..<n {
            streams[i].frameCount = count[i]
            streams[i].shownFrames = count[i] - hidden[i]
            streams[i].timestampsIncreasing = increasing[i]
            let base = av_q2d(demuxer.streams[i].pointee.time_base)
            if streams[i].duration == nil, let f = first[i], let e = end[i] {
                streams[i].duration = Double(e - f) * base
            } else if read[i].headerDuration == nil, let tagged = streams[i].duration {
                // Matroska's `DURATION` tag is where the stream ends, from the file's 0: a stream that starts later (a
                // video after its audio, an edit list's empty start) lasts that much less. Its blocks are stored
                // after the track's codec delay (Opus' pre-skip, which the demuxer takes off their times and the
                // decoder drops): the tag ends that much after the audio heard.
                let start = max(0, first[i].map { Double($0) * base } ?? 0)
                streams[i].duration = max(0, tagged - read[i].preSkip - start)
            }
        }
    }

    /// Reads the top-level atoms: true when `moov` comes before `mdat`; nil when neither is found.
    static func moovFirst(_ path: String) -> Bool? {
        let fd = open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var offset: off_t = 0
        var header = [UInt8](repeating: 0, count: 16)
        for _ in 0..<64 {
            guard pread(fd, &header, 16, offset) >= 8 else { return nil }
            var size = header[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let type = String(decoding: header[4..<8], as: UTF8.self)
            if type == "moov" { return true }
            if type == "mdat" { return false }
            if size == 1 { size = header[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            guard size >= 8, size < UInt64(Int64.max) else { return nil }
            offset += off_t(size)
        }
        return nil
    }
}
