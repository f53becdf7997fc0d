import Foundation

/// A line plot of one series against time, as inline SVG: axes with their end values, the series as a polyline,
/// and one point marked.
struct SeriesPlot {
    var title: String
    var times: [Double]
    var values: [Double]
    var decimals: Int
    var mark: Int
    let width = 520.0, height = 200.0, left = 64.0, right = 16.0, top = 24.0, bottom = 36.0

    var svg: String {
        guard !values.isEmpty, values.count == times.count else { return "" }
        let (t0, t1) = Self.range(times), (v0, v1) = Self.range(values)
        func x(_ t: Double) -> String { format((left + (t - t0) / (t1 - t0) * (width - left - right)), 1) }
        func y(_ v: Double) -> String { format((height - bottom - (v - v0) / (v1 - v0) * (height - top - bottom)), 1) }
        let points = zip(times, values).map { "\(x($0)),\(y($1))" }.joined(separator: " ")
        let (xl, xr, yb, yt) = (format(left, 1), format(width - right, 1), format(height - bottom, 1), format(top, 1))
        var s = "<svg class=\"plot\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
        s += "viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(Markup.escape(title)) per frame\">\n"
        s += "<text x=\"\(xl)\" y=\"16\">\(Markup.escape(title)) per frame</text>\n"
        s += "<line class=\"axis\" x1=\"\(xl)\" y1=\"\(yb)\" x2=\"\(xr)\" y2=\"\(yb)\"/>\n"
        s += "<line class=\"axis\" x1=\"\(xl)\" y1=\"\(yt)\" x2=\"\(xl)\" y2=\"\(yb)\"/>\n"
        s += "<text x=\"\(format(left - 4, 1))\" y=\"\(format(top + 4, 1))\" text-anchor=\"end\">\(format(v1, decimals))</text>\n"
        s += "<text x=\"\(format(left - 4, 1))\" y=\"\(yb)\" text-anchor=\"end\">\(format(v0, decimals))</text>\n"
        s += "<text x=\"\(xl)\" y=\"\(format(height - bottom + 14, 1))\" text-anchor=\"middle\">\(format(t0, 2))</text>\n"
        s += "<text x=\"\(xr)\" y=\"\(format(height - bottom + 14, 1))\" text-anchor=\"end\">\(format(t1, 2))</text>\n"
        s += "<text x=\"\(format((left + width - right) / 2, 1))\" y=\"\(format(height - 6, 1))\" text-anchor=\"middle\">output time (s)</text>\n"
        s += "<polyline class=\"series\" points=\"\(points)\"/>\n"
        if values.indices.contains(mark) {
            s += "<circle class=\"mark\" cx=\"\(x(times[mark]))\" cy=\"\(y(values[mark]))\" r=\"4\"><title>worst frame: "
            s += "\(format(values[mark], decimals)) at \(format(times[mark], 3)) s</title></circle>\n"
        }
        return s + "</svg>\n"
    }

    /// The lowest and highest value, widened to a non-empty range.
    static func range(_ values: [Double]) -> (Double, Double) {
        guard let lo = values.min(), let hi = values.max() else { return (0, 1) }
        let pad = hi - lo > 1e-9 ? 0 : max(abs(hi) * 0.01, 0.001)
        return (lo - pad, hi + pad)
    }

    func format(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
}
