import Foundation

extension ExportEvent {
    /// What the `completed` record says of a metadata level other than `all` (`--metadata`): the level and the keys
    /// it dropped — names only, never values.
    public struct MetadataReport: Codable, Sendable, Equatable {
        /// `sharing` or `none`.
        public var level: MetadataLevel
        /// The dropped keys: the container's sorted, then each stream's as `stream #N: key` (N: the input's stream index).
        public var dropped: [String]

        /// Creates the report.
        public init(level: MetadataLevel, dropped: [String]) { self.level = level; self.dropped = dropped }
    }
}
