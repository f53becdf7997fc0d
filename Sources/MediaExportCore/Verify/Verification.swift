import Foundation

/// What the probe of a finished output said against its plan, before the output took its name: the
/// `completed` record's `verification`. A failed check fails the route (the fallback chain moves on); it is
/// never delivered as a success.
public struct Verification: Codable, Sendable, Equatable {
    /// True when every check passed (checks that could not apply are `skipped`, never `failed`).
    public var passed: Bool
    /// Every check made, in order.
    public var checks: [Check]
    /// Wall-clock seconds the verification took (reading the output back and comparing), to keep its cost in view.
    public var seconds: Double?

    /// One comparison of the output with the plan.
    public struct Check: Codable, Sendable, Equatable {
        /// What was checked, e.g. `stream #1 audio duration`.
        public var name: String
        /// What the plan says.
        public var expected: String
        /// What the probe of the output says.
        public var measured: String
        /// How the comparison came out.
        public var outcome: Outcome
        /// What a failed check found, as a value, for the checks that name one (nil otherwise, and when it passed).
        public var reason: Reason?

        /// Creates a check.
        public init(name: String, expected: String, measured: String, outcome: Outcome, reason: Reason? = nil) {
            self.name = name; self.expected = expected; self.measured = measured; self.outcome = outcome; self.reason = reason
        }
    }

    /// What a failed check found.
    public enum Reason: String, Codable, Sendable {
        /// Cover art's picture read back still holds metadata the level strips (EXIF, XMP, IPTC, comments, text).
        case pictureMetadataLeft
        /// Cover art's picture read back is missing, or cannot be read to see its metadata.
        case pictureUnreadable
    }

    /// The result of one check.
    public enum Outcome: String, Codable, Sendable {
        /// As planned.
        case passed
        /// Not as planned: the route fails.
        case failed
        /// Could not be measured for this output (e.g. no frame count in the container); said, not hidden.
        case skipped
    }

    /// Creates a verification from its checks; it passed when none failed.
    public init(checks: [Check]) {
        self.checks = checks
        passed = !checks.contains { $0.outcome == .failed }
    }

    /// The failed checks.
    public var failures: [Check] { checks.filter { $0.outcome == .failed } }

    /// One line for an error message: the failed checks, `name: expected X, measured Y`.
    public var failureSummary: String {
        failures.map { "\($0.name): expected \($0.expected), measured \($0.measured)" }.joined(separator: "; ")
    }
}
