/// A file its writer may replace, known by its content: a batch's own earlier output, poster or report as the
/// batch recorded it. Any other file at that path is someone else's.
public struct OwnedFile: Codable, Sendable, Hashable {
    /// Its size in bytes.
    public var size: Int64
    /// The SHA-256 of its bytes, lowercase hex.
    public var sha256: String

    /// A file known by its size and SHA-256.
    public init(size: Int64, sha256: String) { self.size = size; self.sha256 = sha256 }
}
