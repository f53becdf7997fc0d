import Foundation

/// Where a byte copy goes when the resource's container is not the output's (a `.ts` copied for an `.mp4` output):
/// a copy keeps the resource's extension, so a folder of `.mp4` outputs would otherwise hold a `.ts`.
public enum CopyPlacement: Sendable, Equatable {
    /// Beside the other outputs: the requested name with the resource's extension (`clip.mp4` → `clip.ts`).
    case beside
    /// In a folder of this name beside the requested output (`ready/clip.mp4` → `ready/fallback/clip.ts`).
    case subfolder(String)
    /// Nowhere: the byte copy fails before writing anything.
    case refuse

    /// The path of a byte copy with extension `copyExtension` of an export asked at `output`; a copy of the output's
    /// own container goes to `output`. nil when the placement refuses it.
    public func path(output: String, copyExtension: String) -> String? {
        let base = PathName.deletingExtension(output)
        let named = copyExtension.isEmpty ? base : base + "." + copyExtension
        guard copyExtension.lowercased() != PathName.pathExtension(output).lowercased() else { return named }
        switch self {
        case .beside: return named
        case .subfolder(let folder): return PathName.replacingName(of: output, with: PathName.join(folder, PathName.lastComponent(named)))
        case .refuse: return nil
        }
    }
}
