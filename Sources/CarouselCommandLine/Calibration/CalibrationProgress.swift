#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol

/// Progress of a timed capture on standard error: a bar redrawn in place on a terminal
/// (`isatty(2)`), or one plain line per second otherwise (journald, pipes, CI logs).
struct CalibrationProgress {
    let io: CommandIO
    let totalSeconds: Double
    let isTerminal: Bool
    let label: String
    private var lastWholeSecond = -1

    init(io: CommandIO, totalSeconds: Double, label: String, isTerminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.io = io
        self.totalSeconds = totalSeconds
        self.label = label
        self.isTerminal = isTerminal
    }

    mutating func update(elapsedSeconds: Double, samples: Int) {
        let elapsed = min(elapsedSeconds, totalSeconds)
        let whole = Int(elapsed)
        if isTerminal {
            let width = 30
            let fraction = totalSeconds > 0 ? elapsed / totalSeconds : 1
            let filled = Int((fraction * Double(width)).rounded(.down))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            io.err("\r\(label) [\(bar)] \(Int(fraction * 100))% \(oneDecimal(elapsed))/\(oneDecimal(totalSeconds)) s, \(samples) samples\u{1B}[K")
        } else if whole != lastWholeSecond {
            lastWholeSecond = whole
            io.err("\(label): \(whole)/\(oneDecimal(totalSeconds)) s, \(samples) samples\n")
        }
    }

    func finish() {
        if isTerminal { io.err("\n") }
    }

    private func oneDecimal(_ v: Double) -> String {
        let t = (v * 10).rounded() / 10
        return t == t.rounded() ? "\(Int(t)).0" : "\(t)"
    }
}
