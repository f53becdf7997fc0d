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
        Habit(names: ["-report"], tool: "ffmpeg", ours: "--log FILE", takesValue: false),
        Habit(names: ["-ac"], tool: "ffmpeg", ours: "--channels", takesValue: true),
        Habit(names: ["-r", "-framerate"], tool: "ffmpeg", ours: "--fps", takesValue: true),
        Habit(names: ["-R", "--rate"], tool: "HandBrakeCLI", ours: "--fps", takesValue: true),
        Habit(names: ["--pfr", "--vfr", "--cfr"], tool: "HandBrakeCLI", ours: "--fps N (a peak: slower sources keep their rate)", takesValue: false),
        Habit(names: ["-Y", "--maxHeight", "--height"], tool: "HandBrakeCLI", ours: "--max-height", takesValue: true),
        Habit(names: ["-X", "--maxWidth", "--width"], tool: "HandBrakeCLI", ours: "--max-width", takesValue: true),
        Habit(names: ["-6"], tool: "HandBrakeCLI", ours: "--mixdown", takesValue: true),
    ]

    /// What drops every audio stream, for `-an`: there is no option; a preset without an `audio` section does it.
    static let noAudio = "no option drops the audio: a preset without an \"audio\" section does (mediaexport presets show NAME > mine.json, "
        + "remove \"audio\", --preset ./mine.json); --audio first keeps one stream"

    /// Two passes come with an average bit rate; `--two-pass` alone has nothing to aim for.
    static let twoPass = "two passes come with a target: --max-size SIZE (always two passes), or a preset file with "
        + "video.bitrate and video.twoPass: true (mediaexport presets show NAME)"

    /// The codec options of ffmpeg: `copy` is our passthrough preset, any other codec is a preset's choice.
    static let codecOptions: Set<String> = ["-c", "-c:v", "-c:a", "-codec", "-codec:v", "-codec:a", "-vcodec", "-acodec"]

    /// Our options whose value may start with `-` (a loudness in LUFS).
    static let negativeValued: Set<String> = ["--loudness"]

    /// The pointer for the first habit in `arguments` (one line, without the `mediaexport: ` prefix), or nil.
    static func pointer(in arguments: [String]) -> String? {
        for (k, arg) in arguments.enumerated() {
            if arg == "--" { return nil }
            // A negative number given to an option that takes one (`--loudness -2`) is its value, not ffmpeg's `-2`.
            if k > 0, negativeValued.contains(arguments[k - 1]) { continue }
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
        if arg == "-an" { return head + " (ffmpeg): " + noAudio }
        if ["--two-pass", "-2", "-pass"].contains(arg) { return head + ": " + twoPass }
        if ["-vf", "-filter:v"].contains(arg) { return head + " (ffmpeg): " + scalePointer(next) }
        if arg == "--size", let next, next.contains(":") {
            let width = next.split(separator: ":").first.map(String.init) ?? "W"
            return "'--size \(next)' (ffmpeg's scale): use --size \(width) (a width alone: the height from the aspect ratio) or --size WxH"
        }
        if arg == "-q", let next, Double(next) != nil {
            return "'-q \(next)' (HandBrakeCLI quality): use --crf \(next) (our -q is --quiet)"
        }
        guard let habit = table.first(where: { $0.names.contains(arg) }) else { return nil }
        let value = habit.takesValue ? (next.map { " " + $0 + habit.unit } ?? " VALUE") : ""
        let ours = habit.ours == "--preset" ? "--preset NAME|FILE" : habit.ours + value
        return head + " (\(habit.tool)): use \(ours)"
    }

    /// `scale=-2:720` → `--max-height 720`, `scale=1280:-1` → `--max-width 1280`, `scale=1280:720` →
    /// `--max-dimensions 1280x720`; other filters are not taken.
    private static func scalePointer(_ filter: String?) -> String {
        let box = "use --max-height N, --max-width N or --max-dimensions WxH (the picture fitted, never upscaled)"
        guard let filter, filter.hasPrefix("scale="), !filter.contains(",") else { return "filters are not taken; for the size " + box }
        let sides = filter.dropFirst(6).split(separator: ":").prefix(2).map { Int($0.split(separator: "=").last ?? "") ?? 0 }
        guard sides.count == 2 else { return box }
        let (w, h) = (sides[0], sides[1])
        if w <= 0 && h > 0 { return "use --max-height \(h)" }
        if h <= 0 && w > 0 { return "use --max-width \(w)" }
        return w > 0 && h > 0 ? "use --max-dimensions \(w)x\(h)" : box
    }
}
