internal import CFFmpeg
import MediaExportCore

extension VideoTranscodeStage {
    /// A keyframe where `video.keyframeInterval` asks for one (`pts`: output timeline, input time base); otherwise
    /// the encoder chooses (a source's own picture types are never passed on).
    func pictureType(pts: Int64) -> AVPictureType {
        guard keyframes?.isKeyframe(at: Double(pts) * av_q2d(inTimeBase)) == true else { return AV_PICTURE_TYPE_NONE }
        return AV_PICTURE_TYPE_I
    }
}
