internal import CFFmpeg
import MediaExportCore

/// Decoding that goes on past damage, as the ffmpeg CLI does: what is rejected as corrupt is reported to the
/// caller (the executor, the one place that counts it, or the data check) instead of failing the export.
extension StreamDecoder {
    /// What a tolerant receive produced.
    enum TolerantOutput {
        /// `frame` holds a decoded frame.
        case frame
        /// No frame until the next packet (or the decoder is drained).
        case noFrame
        /// The decoder reported corrupt data; treat it as "no frame until the next packet".
        case damaged
    }

    /// Sends a packet (or `nil` to start draining); true when it was rejected as corrupt (`AVCode.isDamage`):
    /// skipped, for the caller to count.
    func sendSkippingDamage(_ packet: Packet?) throws -> Bool {
        do { try send(packet) } catch let ExportError.ffmpeg(_, _, code, _) where AVCode.isDamage(code) {
            return true
        }
        return false
    }

    /// Receives the next frame into `frame`; corrupt data while decoding or draining is reported, not thrown.
    func receiveSkippingDamage(into frame: Frame) throws -> TolerantOutput {
        do {
            switch try receive(into: frame) {
            case .ready: return .frame
            case .needsInput, .ended: return .noFrame
            }
        } catch let ExportError.ffmpeg(_, _, code, _) where AVCode.isDamage(code) {
            return .damaged
        }
    }
}
