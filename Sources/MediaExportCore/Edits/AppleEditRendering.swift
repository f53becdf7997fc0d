import Foundation

/// What of an Apple adjustment record can be rendered from the original, decided once from its decoded adjustments:
/// the trim, the mute and slow motion can (as the sidecar's edits); everything else — filters and Smart*
/// adjustments, Cinematic `PortraitVideo`, stabilisation, loops, a crop or orientation (their conventions are not
/// verified on real files), a third-party editor's opaque data — cannot, and the record is then not rendered at
/// all: half an edit would be a version nobody made. Disabled adjustments and poster-frame choices change nothing.
package struct AppleEditRendering: Sendable, Equatable {
    /// The edits that render the record (nil when it cannot be rendered, or changes nothing).
    package var edits: EditSidecar?
    /// The identifiers rendered, in the record's order (`Trim`, `SlowMotion`, `Mute`).
    package var applied: [String]
    /// Why the record cannot be rendered: the identifiers (and reasons) that cannot; empty when it can.
    package var unrenderable: [String]

    /// True when every enabled adjustment can be rendered and there is at least one to render.
    package var isRenderable: Bool { unrenderable.isEmpty && edits != nil }

    /// Decides for a decoded record.
    package init(_ info: AdjustmentInfo) {
        edits = nil
        applied = []
        unrenderable = []
        if let undecodable = info.undecodable {
            unrenderable = [undecodable]
            return
        }
        var e = EditSidecar()
        for adjustment in info.adjustments where adjustment.enabled {
            let id = adjustment.identifier
            switch adjustment.settings {
            case .trim(let start, let end):
                guard start.isFinite, end.isFinite, start >= 0, end > start else {
                    unrenderable.append("\(id) (its range \(start)–\(end) s is empty)")
                    continue
                }
                // Two trims: the record's order narrows, as Photos applies them one after the other.
                if let t = e.trim {
                    e.trim = EditSidecar.Trim(start: max(t.start, start), end: min(t.end, end))
                } else {
                    e.trim = EditSidecar.Trim(start: start, end: end)
                }
                applied.append(id)
            case .slowMotion(let rate, let regions):
                let slow = SlowMotion(rate: rate, regions: regions)
                if rate == 1 || regions.isEmpty { continue }  // nothing slowed
                if let problem = slow.problem {
                    unrenderable.append("\(id) (\(problem))")
                } else if e.slowMotion != nil {
                    unrenderable.append("\(id) (a second slow-motion record)")
                } else {
                    e.slowMotion = slow.normalized
                    applied.append(id)
                }
            case .mute:
                e.mute = true
                applied.append(id)
            case .posterFrame:
                break  // which frame is the still: the movie is unchanged
            case .orientation(let o) where o == 1:
                break
            case .orientation:
                unrenderable.append("\(id) (orientation is not verified on real files)")
            case .crop:
                unrenderable.append("\(id) (crop conventions are not verified on real files)")
            case .other:
                unrenderable.append(id)
            case .unreadable(let reason):
                unrenderable.append("\(id) (\(reason))")
            }
        }
        if !unrenderable.isEmpty { applied = []; return }
        if info.adjustments.isEmpty { unrenderable = ["no adjustment in its data"]; return }
        if e.trim != nil && e.trim!.end <= e.trim!.start { unrenderable = ["Trim (the trims leave nothing)"]; applied = []; return }
        edits = e.isEmpty ? nil : e
    }
}
