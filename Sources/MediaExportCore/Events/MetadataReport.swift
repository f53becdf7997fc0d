import Foundation

extension ExportEvent {
    /// What the `completed` record says of a metadata level other than `all` (`--metadata`): the level and the keys
    /// it dropped — names only, never values.
    public struct MetadataReport: Codable, Sendable, Equatable {
        /// `sharing` or `none`.
        public var level: MetadataLevel
        /// The dropped keys: the container's sorted, then each stream's as `stream #N: key` (N: the input's stream index),
        /// the streams dropped whole as `stream #N`, then each chapter's as `chapter #K: key` (K: the output's, from 1).
        public var dropped: [String]

        /// Creates the report.
        public init(level: MetadataLevel, dropped: [String]) { self.level = level; self.dropped = dropped }
    }
}
