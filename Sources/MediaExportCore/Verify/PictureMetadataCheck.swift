/// The check that a cover stripped of its metadata (`StreamDecision.Action.coverArt(stripsMetadata:)`) holds none in
/// the output: its picture read back (`OutputFacts.Stream.picture`) is a JPEG or PNG with no EXIF, XMP, IPTC,
/// comment, text or trailing segment left. A failure names what was found as a value (`Verification.Reason`).
extension OutputVerifier {
    static func pictureMetadataCheck(label: String, decision: StreamDecision, out: OutputFacts.Stream) -> [Verification.Check] {
        guard case .coverArt(stripsMetadata: true) = decision.action else { return [] }
        let name = "\(label) cover art metadata", expected = "no EXIF, XMP, IPTC or text"
        switch out.picture {
        case .readable(_, let removes) where removes.isEmpty:
            return [check(name, expected, "none", true)]
        case .readable(_, let removes):
            return [.init(name: name, expected: expected, measured: PictureMetadata.describe(removes), outcome: .failed, reason: .pictureMetadataLeft)]
        case .unreadable(let fault):
            return [.init(name: name, expected: expected, measured: "unreadable (\(fault.rawValue))", outcome: .failed, reason: .pictureUnreadable)]
        case nil:
            return [.init(name: name, expected: expected, measured: "no picture", outcome: .failed, reason: .pictureUnreadable)]
        }
    }
}
