internal import CFFmpeg
import Foundation
import MediaExportCore

/// Decodes a sample of a source's data, as a dry run's `--check-data` asks: the first and last seconds and a few
/// points between, each from the main video's keyframe at or before it (`seek(toKeyframeOf:)`) for about a second,
/// the main video and main audio decoded. What it finds is a value (`DataSample`); the planner decides from it.
///
/// Damage is what the ffmpeg CLI would report: a packet the decoder rejects (any error but out of memory), a frame
/// it marks corrupt (`AV_FRAME_FLAG_CORRUPT`, `decode_error_flags`), the demuxer failing to read or seek, and the
/// data ending before a point's second was read (where it ends is kept, and judged against the header's length), and
/// a stream's presentation times jumping ahead by more than half a second (and ten frames of a video) where a demuxer
/// skipped unreadable data without an error (Matroska resyncs so); not for a video of variable rate, whose frames may
/// be far apart.
package enum DataCheck {
    /// How much is decoded: `points` places, `seconds` at each, at most `packets` packets and `wallClock` seconds a point.
    package struct Limits: Sendable {
        /// Places decoded: the first and last seconds and the rest evenly between.
        package var points = 5
        /// Seconds decoded at each place (after its keyframe).
        package var seconds = 1.0
        /// Packets read at most at each place.
        package var packets = 2000
        /// Wall-clock seconds at most at each place.
        package var wallClock = 2.0
        /// The defaults: 5 points of 1 s, 2 000 packets or 2 s each.
        package init() {}
    }

    /// Decodes the sample of `source` (its main video and audio); a file that cannot be read at all is one
    /// unreadable point.
    package static func sample(_ source: ProbedSource, limits: Limits = Limits()) -> DataSample {
        let began = Date()
        let info = source.info
        let declared = info.durationsEstimated ? nil : info.duration
        let streams = [info.mainVideo, info.mainAudio].compactMap { $0 }
            .filter { $0 < info.streams.count && info.streams[$0].decodable && !info.streams[$0].isAttachedPicture }
        guard let demuxer = try? source.takeDemuxer() else {
            return DataSample(points: [.init(at: 0, corrupt: 1, firstCorruptAt: 0, unreadable: true)], declaredDuration: declared,
                              seconds: Date().timeIntervalSince(began))
        }
        let video = info.mainVideo.flatMap { streams.contains($0) ? $0 : nil }
        var reader = PointReader(demuxer: demuxer, streams: streams, video: video, limits: limits)
        for i in streams where !info.streams[i].variableRate {
            reader.largestSteps[i] = max(0.5, info.streams[i].kind == .video ? 10 / max(1, info.streams[i].frameRate ?? 25) : 0)
        }
        let points = places(duration: info.duration ?? 0, limits: limits).map { reader.read(at: $0) }
        return DataSample(points: points, dataEnd: reader.endMet ? reader.furthest : nil, declaredDuration: declared,
                          seconds: Date().timeIntervalSince(began))
    }

    /// The places sampled: 0, the last `seconds` of `duration`, and evenly between (one place for a short file).
    static func places(duration: Double, limits: Limits) -> [Double] {
        let last = max(0, duration - limits.seconds)
        guard last > 0, limits.points > 1 else { return [0] }
        return (0..<limits.points).map { last * Double($0) / Double(limits.points - 1) }
    }
}

/// Reads and decodes one place after another from one demuxer, with fresh decoders at each place.
private struct PointReader {
    let demuxer: Demuxer
    let streams: [Int]
    let video: Int?
    let limits: DataCheck.Limits
    /// The furthest time a packet reached, seconds from the start.
    var furthest = 0.0
    /// True once reading met the end of the file before a place's second was read.
    var endMet = false
    /// By stream: the largest step between its presentation times that is no jump (none: jumps are not looked for).
    var largestSteps: [Int: Double] = [:]
    /// By stream: its latest presentation time at this place.
    private var latest: [Int: Double] = [:]
    /// By stream: the seconds its presentation times jumped at this place.
    private var jumped: [Int: Double] = [:]

    init(demuxer: Demuxer, streams: [Int], video: Int?, limits: DataCheck.Limits) {
        self.demuxer = demuxer; self.streams = streams; self.video = video; self.limits = limits
    }

    /// Decodes from the keyframe at or before `place` to `limits.seconds` after it.
    mutating func read(at place: Double) -> DataSample.Point {
        var point = DataSample.Point(at: place)
        let start: Double
        do { start = try seek(to: place) } catch {
            (point.corrupt, point.firstCorruptAt, point.unreadable) = (1, place, true)
            return point
        }
        point.at = start
        (latest, jumped) = ([:], [:])
        let decoders = Dictionary(uniqueKeysWithValues: streams.compactMap { i in
            (try? StreamDecoder(stream: demuxer.streams[i], path: demuxer.path)).map { (Int32(i), $0) }
        })
        let packet = Packet(), frame = Frame(), deadline = Date().addingTimeInterval(limits.wallClock)
        let bases = demuxer.streams.map { av_q2d($0.pointee.time_base) }
        for _ in 0..<limits.packets {
            guard Date() < deadline else { break }
            let read: Demuxer.ReadResult
            do { read = try demuxer.read(into: packet) } catch {
                point.unreadable = true
                note(1, at: furthest, in: &point)
                break
            }
            guard case .packet = read else { endMet = true; break }
            defer { packet.unref() }
            let p = packet.pointer.pointee, index = Int(p.stream_index)
            guard index < bases.count, let decoder = decoders[p.stream_index] else { continue }
            let stamp = p.pts != AVCode.noPTS ? p.pts : p.dts
            let time = stamp == AVCode.noPTS ? furthest : Double(stamp) * bases[index] - demuxer.startTime
            // A jump past the place's second is a jump too.
            if stamp != AVCode.noPTS { noteStep(index, to: time, in: &point) }
            if time > place + limits.seconds { break }
            guard time >= start - 0.001 else { continue }  // audio before the keyframe: its frame may be cut by the seek
            furthest = max(furthest, time + Double(max(0, p.duration)) * bases[index])
            note(Self.decode(packet, with: decoder, into: frame), at: time, in: &point)
        }
        for decoder in decoders.values { note(Self.decode(nil, with: decoder, into: frame), at: furthest, in: &point) }
        return point
    }

    /// Seeks to the main video's keyframe at or before `place` (else to `place`); where reading starts.
    private func seek(to place: Double) throws -> Double {
        if let video, let key = try demuxer.seek(toKeyframeOf: Int32(video), atOrBefore: place) { return key }
        try demuxer.seek(toSecondsOrStart: place)
        return place
    }

    /// Counts a jump of a stream's presentation times (past its latest so far: B-frames come before the frames they
    /// follow, a few frames back) up to `time` as data missing; the point's `missing` is the stream's that lost most.
    private mutating func noteStep(_ stream: Int, to time: Double, in point: inout DataSample.Point) {
        defer { latest[stream] = max(latest[stream] ?? time, time) }
        guard let largest = largestSteps[stream], let last = latest[stream], time - last > largest else { return }
        jumped[stream, default: 0] += time - last
        point.missing = max(point.missing, jumped[stream] ?? 0)
        point.missingAt = min(point.missingAt ?? last, last)
    }

    /// Counts `corrupt` packets or frames at `time` in `point`.
    private func note(_ corrupt: Int, at time: Double, in point: inout DataSample.Point) {
        guard corrupt > 0 else { return }
        point.corrupt += corrupt
        if point.firstCorruptAt == nil { point.firstCorruptAt = time }
    }

    /// Sends `packet` (nil: drains) and receives every frame it gives: the packets rejected and frames marked
    /// corrupt, by the pipeline's own tolerant decoding (`sendSkippingDamage`, `receiveSkippingDamage`). Out of
    /// memory is no damage of the file's: not counted.
    private static func decode(_ packet: Packet?, with decoder: StreamDecoder, into frame: Frame) -> Int {
        var corrupt = (try? decoder.sendSkippingDamage(packet)) == true ? 1 : 0
        receiving: while let output = try? decoder.receiveSkippingDamage(into: frame) {
            switch output {
            case .frame:
                if frame.isCorrupt { corrupt += 1 }
                frame.unref()
            case .damaged:
                corrupt += 1
                break receiving
            case .noFrame:
                break receiving
            }
        }
        return corrupt
    }
}
