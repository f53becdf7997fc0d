import Foundation
import Testing

/// The shell completions as scripts/install.sh writes them (the generated script through
/// scripts/default-subcommand-completion.py): the default subcommand, `export`, completes without its name —
/// `mediaexport --preset hi<TAB>` gives `highest`, `mediaexport landsc<TAB>` gives `landscape.mov` — in each shell
/// the way a user's prompt runs it. (The installed .deb's scripts: scripts/test-deb.sh.)
@Suite struct CompletionTests {
    static let zsh = "/usr/bin/zsh", fish = "/usr/bin/fish"

    /// The completion script for `shell` in a fresh folder (zsh's as `_mediaexport`, for $fpath).
    static func script(_ shell: String) throws -> (dir: URL, file: String) {
        let dir = TestSupport.tempDir("completion-\(shell)")
        let file = dir.appendingPathComponent(shell == "zsh" ? "_mediaexport" : "mediaexport.\(shell)").path
        let patcher = TestSupport.repoRoot.appendingPathComponent("scripts/default-subcommand-completion.py").path
        let r = try TestSupport.run("/bin/bash", ["-c", "set -o pipefail; \"$0\" --generate-completion-script \(shell) | python3 \"$1\" \(shell) >\"$2\"",
                                                  TestSupport.binary, patcher, file],
                                    environment: ["XDG_CONFIG_HOME": "/nonexistent"])
        #expect(r.status == 0, "the patcher did not recognise the generated \(shell) script: \(r.stderr)")
        return (dir, file)
    }

    /// Runs `command` in bash from Fixtures/, with the script's path as $1; its stdout, trimmed.
    static func fromFixtures(_ command: String, _ file: String) throws -> String {
        let r = try TestSupport.run("/bin/bash", ["-c", "cd \"$1\" && \(command)", "_", TestSupport.fixtures.path, file])
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func bashCompletesTheDefaultSubcommand() throws {
        let (dir, file) = try Self.script("bash")
        defer { TestSupport.cleanup(dir) }
        // As bash runs it (complete -F _mediaexport: COMP_WORDS, then command, current word, previous word).
        func complete(_ words: String) throws -> String {
            try Self.fromFixtures("""
                source "$2"; set -- \(words); COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; \
                COMP_POINT=${#COMP_LINE}; _mediaexport "$1" "${@: -1}" "${@: -2:1}" 2>/dev/null; echo "${COMPREPLY[*]}"
                """, file)
        }
        #expect(try complete("mediaexport --preset hi") == "highest")
        #expect(try complete("mediaexport landsc") == "landscape.mov")
        #expect(try complete("mediaexport export --preset hi") == "highest")
        #expect(try complete("mediaexport th") == "thumbnail")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: zsh), "needs zsh (scripts/install-deps.sh installs it)"))
    func zshCompletesTheDefaultSubcommand() throws {
        let (dir, file) = try Self.script("zsh")
        defer { TestSupport.cleanup(dir) }
        let loads = try TestSupport.run(Self.zsh, ["-f", "-c", "autoload -U compinit; compinit -u -D; source \"$1\"", "_", file])
        #expect(loads.status == 0 && loads.stderr.isEmpty, "\(loads.stderr)")
        let driver = TestSupport.repoRoot.appendingPathComponent("scripts/complete-zsh.zsh").path
        // A real interactive zsh on a pseudo-terminal: the line as one TAB leaves it.
        func complete(_ line: String) throws -> String {
            try Self.fromFixtures("\(Self.zsh) \"\(driver)\" \"$(dirname \"$2\")\" '\(line)'", file)
        }
        #expect(try complete("mediaexport --preset hi") == "mediaexport --preset highest")
        #expect(try complete("mediaexport -p hevc-hi") == "mediaexport -p hevc-highest")
        #expect(try complete("mediaexport landsc") == "mediaexport landscape.mov")
        #expect(try complete("mediaexport --preset highest landsc") == "mediaexport --preset highest landscape.mov")
        #expect(try complete("mediaexport export --preset hi") == "mediaexport export --preset highest")
        #expect(try complete("mediaexport th") == "mediaexport thumbnail")
        #expect(try complete("mediaexport presets sh") == "mediaexport presets show")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: fish), "needs fish (scripts/install-deps.sh installs it)"))
    func fishCompletesTheDefaultSubcommand() throws {
        let (dir, file) = try Self.script("fish")
        defer { TestSupport.cleanup(dir) }
        // fish's own completion, non-interactively: the candidates (before a tab, their descriptions), one a line.
        func complete(_ line: String) throws -> [String] {
            let out = try Self.fromFixtures("\(Self.fish) --no-config -c 'source $argv[1]; complete -C \"$argv[2]\"' \"$2\" '\(line)'", file)
            return out.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(try complete("mediaexport --preset hi") == ["highest"])
        #expect(try complete("mediaexport landsc") == ["landscape.mov"])
        #expect(try complete("mediaexport --preset highest landsc") == ["landscape.mov"])
        #expect(try complete("mediaexport export --preset hi") == ["highest"])
        #expect(try complete("mediaexport th") == ["thumbnail"])
        // The first word typed: the subcommands' names and the files beside each other, as in bash.
        let first = try complete("mediaexport ")
        #expect(first.contains("batch") && first.contains("landscape.mov"), "\(first)")
    }
}
