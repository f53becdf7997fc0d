internal import CFFmpeg
import Foundation
import MediaExportCore

/// Every packet of a file, digested one by one: for telling which packets of a stream copy differ from its source.
package enum PacketDigests {
    /// Per stream, each packet's presentation time (seconds; nil without one) and a digest of its bytes, in file
    /// order. The digests are valid within this process only (Swift's seeded `Hasher`): compare two files, never store.
    package static func read(_ path: String) throws -> [[(time: Double?, digest: Int)]] {
        let demuxer = try Demuxer(path: path, cancel: nil)
        var streams = Array(repeating: [(time: Double?, digest: Int)](), count: demuxer.streams.count)
        let packet = Packet()
        while case .packet = try demuxer.read(into: packet) {
            let p = packet.pointer.pointee
            let index = Int(p.stream_index)
            var hasher = Hasher()
            if let data = p.data { hasher.combine(bytes: UnsafeRawBufferPointer(start: data, count: Int(p.size))) }
            hasher.combine(p.size)
            let time = p.pts == AVCode.noPTS ? nil : Double(p.pts) * av_q2d(demuxer.streams[index].pointee.time_base)
            if streams.indices.contains(index) { streams[index].append((time, hasher.finalize())) }
            packet.unref()
        }
        return streams
    }
}
