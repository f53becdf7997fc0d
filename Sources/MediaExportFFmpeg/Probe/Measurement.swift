internal import CFFmpeg
import Foundation
import MediaExportCore

/// Measures exported files: container facts, timing, and quality against the source.
package enum Measurer {
    /// Facts from the container and its packets (no decoding).
    package static func measure(output: String, source: String, route: String) throws -> MediaExportCore.Measurement {
        let info = try MediaProbe.probe(path: output)
        let sourceInfo = try? MediaProbe.probe(path: source, frameMetadata: false)  // only its creation time is read
        let video = info.streams.first { $0.type == "video" && !$0.isAttachedPicture }
        let audio = info.streams.first { $0.type == "audio" }
        let packets = try PacketScan(path: output)
        var m = MediaExportCore.Measurement(container: info.container, codecs: info.streams.map(\.codec), videoProfile: video?.profile,
                            width: video?.width, height: video?.height, pixelFormat: video?.pixelFormat,
                            frameCount: video.map { packets.count[$0.index] ?? 0 }, duration: info.duration ?? 0,
                            frameDuration: video?.frameRate.map { 1 / $0 }, audioChannels: audio?.channels, sampleRate: audio?.sampleRate,
                            rotation: video?.rotation ?? 0, creationTimeKept: nil, avStartOffset: nil,
                            timestampsIncreasing: packets.increasing, size: info.size, route: route)
        // What probe reports (an HDR output's HDR10 metadata included, read from its first frame when only the SEI has it).
        m.color = video?.color.map { MediaExportCore.Measurement.Color($0) }
        if let created = sourceInfo?.creationTime { m.creationTimeKept = info.creationTime == created }
        if let v = video, let a = audio, let vs = packets.firstTime[v.index], let `as` = packets.firstTime[a.index] {
            m.avStartOffset = (`as` - vs).rounded(toPlaces: 4)
        }
        return m
    }

    /// Packet bytes per stream hashed, for checking a stream copy against its source.
    package static func packetChecksums(_ path: String) throws -> [String] {
        try PacketScan(path: path, hash: true).checksums
    }
}

/// One pass over a file's packets: counts, first times, decode-order monotonicity, optional checksums.
struct PacketScan {
    var count: [Int: Int] = [:]
    var firstTime: [Int: Double] = [:]
    var increasing = true
    var checksums: [String] = []

    init(path: String, hash: Bool = false) throws {
        let demuxer = try Demuxer(path: path, cancel: nil)
        var lastDTS: [Int: Int64] = [:]
        let hashers = hash ? demuxer.streams.map { _ in SHA256Hasher() } : []
        let packet = Packet()
        while case .packet = try demuxer.read(into: packet) {
            let p = packet.pointer.pointee
            let index = Int(p.stream_index)
            count[index, default: 0] += 1
            let tb = demuxer.streams[index].pointee.time_base
            if firstTime[index] == nil, p.pts != AVCode.noPTS { firstTime[index] = Double(p.pts) * av_q2d(tb) }
            if p.dts != AVCode.noPTS {
                if let last = lastDTS[index], p.dts <= last { increasing = false }
                lastDTS[index] = p.dts
            }
            if hash, let data = p.data { hashers[index].update(UnsafeRawBufferPointer(start: data, count: Int(p.size))) }
            packet.unref()
        }
        checksums = hashers.map { $0.finish() }
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
