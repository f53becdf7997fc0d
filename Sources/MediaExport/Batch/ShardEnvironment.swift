import Foundation

extension BatchOptions.Shard {
    /// Why `--shard auto` could not tell which shard this task is: one line naming the variables it looked at.
    public struct EnvironmentError: Error, Equatable, CustomStringConvertible {
        /// The message for people.
        public var description: String
    }

    /// The index variables `--shard auto` reads, in the order it reads them: Kubernetes Indexed Job, Slurm job
    /// array, AWS Batch array job.
    public static let indexVariables = ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX"]

    /// The shard a task of an engine's array is (`--shard auto`): its 0-based index from `JOB_COMPLETION_INDEX`,
    /// Slurm's `(SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP` (step 1 when unset) or
    /// `AWS_BATCH_JOB_ARRAY_INDEX`; the count from `count` (`--shard-count`), else `SLURM_ARRAY_TASK_COUNT`.
    /// No index, no count, two engines that disagree, a count that disagrees with Slurm's, or an index outside
    /// the count throw an `EnvironmentError`. A pure function of `env`, so it is tested without an engine.
    public static func fromEnvironment(_ env: [String: String], count: Int?) throws -> Self {
        let ranks = try indexVariables.compactMap { try rank(from: $0, in: env) }
        guard let first = ranks.first else {
            throw EnvironmentError(description: "--shard auto: no shard index in the environment (looked for "
                                   + indexVariables.joined(separator: ", ") + "); give --shard K/N instead")
        }
        if let other = ranks.first(where: { $0.index != first.index }) {
            throw EnvironmentError(description: "--shard auto: \(first.source) says shard \(first.index) but \(other.source) says \(other.index)")
        }
        let slurmCount = try number("SLURM_ARRAY_TASK_COUNT", in: env)
        if let count, let slurmCount, count != slurmCount {
            throw EnvironmentError(description: "--shard auto: --shard-count \(count) disagrees with SLURM_ARRAY_TASK_COUNT=\(slurmCount)")
        }
        guard let total = count ?? slurmCount, total > 0 else {
            throw EnvironmentError(description: "--shard auto: no shard count (give --shard-count N; looked for SLURM_ARRAY_TASK_COUNT)")
        }
        guard total <= maxCount else {
            throw EnvironmentError(description: "--shard auto: a shard count of \(total) is more than \(maxCount)")
        }
        guard first.index < total else {
            throw EnvironmentError(description: "--shard auto: \(first.source) gives shard \(first.index), not less than the count \(total)")
        }
        return Self(index: first.index, count: total)
    }

    /// The 0-based rank one engine's variable gives, or nil when the variable is not set.
    private static func rank(from variable: String, in env: [String: String]) throws -> (index: Int, source: String)? {
        guard let id = try number(variable, in: env) else { return nil }
        guard variable == "SLURM_ARRAY_TASK_ID" else { return (id, "\(variable)=\(id)") }
        guard let min = try number("SLURM_ARRAY_TASK_MIN", in: env) else {
            throw EnvironmentError(description: "--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN is not")
        }
        let step = try number("SLURM_ARRAY_TASK_STEP", in: env) ?? 1
        let source = "SLURM_ARRAY_TASK_ID=\(id) (MIN \(min), STEP \(step))"
        guard step > 0, id >= min, (id - min) % step == 0 else {
            throw EnvironmentError(description: "--shard auto: \(source) is not on the array's range (use --array=FIRST-LAST[:STEP])")
        }
        return ((id - min) / step, source)
    }

    /// A variable's value as a non-negative integer, nil when it is unset or empty.
    private static func number(_ variable: String, in env: [String: String]) throws -> Int? {
        guard let text = env[variable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw EnvironmentError(description: "--shard auto: \(variable)=\(text) is not a non-negative integer")
        }
        return value
    }
}
