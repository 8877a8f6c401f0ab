/// Placeholder until the daemon runs (see docs/PERFORMANCE.md).
struct DaemonBench {
    var reporter: Reporter
    var runs: Int
    var carouseldPath: String?
    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "the daemon benchmark needs a running carouseld (not built yet)" }
    }
    func run() throws { throw Unavailable() }
}
