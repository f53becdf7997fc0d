/// ffmpeg and HandBrakeCLI options people type out of habit, and ours for each: a command line that does not parse
/// and holds one gets a pointer instead of ArgumentParser's bare "unknown option" (docs/ffmpeg-and-handbrake.md).
/// Only options that are not ours: `-y` and `-n` work as in ffmpeg, and our `-q` (quiet) is only taken for
/// HandBrake's quality when a number follows it.
struct HabitPointer {
    /// What a habit becomes: `takesValue` options are pointed at with their value (`-ss 2` → `--start 2`).
    struct Habit {
        var names: [String]
        var tool: String
        var ours: String
        var takesValue: Bool
        /// Appended to the value: HandBrakeCLI's rates are in kb/s (`--ab 160` → `--audio-bitrate 160k`).
        var unit = ""
    }

    static let table: [Habit] = [
        Habit(names: ["-ss"], tool: "ffmpeg", ours: "--start", takesValue: true),
        Habit(names: ["-t"], tool: "ffmpeg", ours: "--duration", takesValue: true),
        Habit(names: ["-to"], tool: "ffmpeg", ours: "--end", takesValue: true),
        Habit(names: ["-crf"], tool: "ffmpeg", ours: "--crf", takesValue: true),
        Habit(names: ["-b:a", "-ab"], tool: "ffmpeg", ours: "--audio-bitrate", takesValue: true),
        Habit(names: ["-b:v", "-vb"], tool: "ffmpeg", ours: "--video-bitrate", takesValue: true),
        Habit(names: ["-maxrate"], tool: "ffmpeg", ours: "--max-bitrate", takesValue: true),
        Habit(names: ["-preset"], tool: "ffmpeg", ours: "--encoder-preset", takesValue: true),
        Habit(names: ["--quality"], tool: "HandBrakeCLI", ours: "--crf", takesValue: true),
        Habit(names: ["--vb"], tool: "HandBrakeCLI", ours: "--video-bitrate", takesValue: true, unit: "k"),
        Habit(names: ["--ab"], tool: "HandBrakeCLI", ours: "--audio-bitrate", takesValue: true, unit: "k"),
        Habit(names: ["-vn"], tool: "ffmpeg", ours: "--preset m4a", takesValue: false),
        Habit(names: ["-Z", "--preset-import-file"], tool: "HandBrakeCLI", ours: "--preset", takesValue: true),
        Habit(names: ["-loglevel", "-v"], tool: "ffmpeg", ours: "--verbose", takesValue: false),
        Habit(names: ["--log"], tool: "habit", ours: "--verbose", takesValue: false),
    ]

    /// The codec options of ffmpeg: `copy` is our passthrough preset, any other codec is a preset's choice.
    static let codecOptions: Set<String> = ["-c", "-c:v", "-c:a", "-codec", "-codec:v", "-codec:a", "-vcodec", "-acodec"]

    /// The pointer for the first habit in `arguments` (one line, without the `mediaexport: ` prefix), or nil.
    static func pointer(in arguments: [String]) -> String? {
        for (k, arg) in arguments.enumerated() {
            if arg == "--" { return nil }
            let next = k + 1 < arguments.count ? arguments[k + 1] : nil
            if let text = pointer(for: arg, next: next) { return text }
        }
        return nil
    }

    private static func pointer(for arg: String, next: String?) -> String? {
        let head = "unknown option '\(arg)'"
        if arg == "-i" { return head + " (ffmpeg): the input is positional: mediaexport [options] IN OUT" }
        if arg == "-f" || arg == "--ext" { return head + ": batch takes --container \(next ?? "EXT"); export takes the container from OUT's extension" }
        if codecOptions.contains(arg) {
            return next == "copy" ? head + " (ffmpeg): use --preset passthrough (stream copy)"
                : head + " (ffmpeg): the preset chooses the codecs: use --preset NAME (mediaexport presets)"
        }
        if arg == "-q", let next, Double(next) != nil {
            return "'-q \(next)' (HandBrakeCLI quality): use --crf \(next) (our -q is --quiet)"
        }
        guard let habit = table.first(where: { $0.names.contains(arg) }) else { return nil }
        let value = habit.takesValue ? (next.map { " " + $0 + habit.unit } ?? " VALUE") : ""
        let ours = habit.ours == "--preset" ? "--preset NAME|FILE" : habit.ours + value
        return head + " (\(habit.tool)): use \(ours)"
    }
}
