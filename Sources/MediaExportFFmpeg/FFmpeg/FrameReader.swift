internal import CFFmpeg

/// Decoded pictures of one stream from a seek point on (demux → decode only): for thumbnails and quality
/// measurement, not exports.
final class FrameReader {
    private let demuxer: Demuxer
    private let decoder: StreamDecoder
    private let index: Int32
    private let timeBase: AVRational
    private let packet = Packet()
    private var draining = false

    init(demuxer: Demuxer, stream: UnsafeMutablePointer<AVStream>, path: String, from seconds: Double) throws {
        self.demuxer = demuxer
        index = stream.pointee.index
        timeBase = stream.pointee.time_base
        decoder = try StreamDecoder(stream: stream, path: path)
        if seconds > 0 { try demuxer.seek(toSeconds: seconds) }
    }

    /// The next frame and its time in seconds from the container's start.
    func next() throws -> (Frame, Double)? {
        let frame = Frame()
        while true {
            switch try decoder.receive(into: frame) {
            case .ready:
                let ts = frame.pointer.pointee.best_effort_timestamp
                return (frame, (ts == AVCode.noPTS ? 0 : Double(ts) * av_q2d(timeBase)) - demuxer.startTime)
            case .ended: return nil
            case .needsInput:
                if draining { return nil }
                switch try demuxer.read(into: packet) {
                case .endOfFile:
                    draining = true
                    try decoder.send(nil)
                case .packet:
                    if packet.pointer.pointee.stream_index == index { try? decoder.send(packet) }
                    packet.unref()
                }
            }
        }
    }
}
