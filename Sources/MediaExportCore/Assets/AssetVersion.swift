/// Which version of an asset to export (like `PHVideoRequestOptions.version`).
public enum AssetVersion: String, Codable, Sendable, CaseIterable {
    /// The user's edits applied: the rendered edit, else the original with the JSON sidecar applied, else the original.
    case current
    /// The untouched original resource.
    case original
}

/// The kinds of file an asset can have, after `PHAssetResourceType`.
public enum ResourceKind: String, Codable, Sendable, CaseIterable {
    /// The untouched video or audio (`IMG_1234.MOV`).
    case original
    /// The movie of a Live Photo: a video beside a still of the same name (`IMG_1234.MOV` beside `IMG_1234.HEIC`).
    case pairedVideo
    /// The still of a Live Photo (`IMG_1234.HEIC` / `.JPG`).
    case photo
    /// A rendered edit: Apple's `IMG_E1234.MOV`, or `IMG_1234_edited.mov`.
    case renderedEdit
    /// Our JSON edit sidecar: `IMG_1234.edit.json` (or `IMG_1234.MOV.edit.json`).
    case editSidecar
    /// Apple's adjustment data: `IMG_1234.AAE` (a plist; its edits are opaque here).
    case adjustmentData
}
