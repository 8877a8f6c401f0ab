import Glibc

// carousel-bench: performance figures of carouseld (docs/PERFORMANCE.md).
// Build in release mode: `swift build -c release`, then `.build/release/carousel-bench all`.

let usage = """
usage: carousel-bench engine|fusion|daemon|rates|core|all [--json] [--runs N] [--samples N] [--carouseld PATH]
       carousel-bench soak [--hours H] [--speed X] [--watchers N] [--carouseld PATH] [--json]
  engine   visible-attribute frame cost (10 vs 1,000,000 items), attributes/s per layout style,
           CPU of a 60 s session at 120 Hz
  fusion   samples/s through the default estimator + biquad (the target), and through its parts
           and the other estimators
  daemon   start-up to READY, idle wake-ups (before any client and after the last watcher),
           sample-to-STATE latency with 1 and 16 watchers, CPU with 256 watchers at 60 Hz, RSS;
           runs the carouseld built beside this binary under umockdev
  rates    CPU and wake-ups at 50, 100 and 200 Hz with no client, one wake-up per scan and
           one per 5 scans (umockdev; docs/PERFORMANCE.md K3)
  core     the daemon core's fan-out in-process (256 watchers, scripted clock, no sockets):
           deterministic, for instruction counts under valgrind --tool=callgrind
  all      engine, fusion and daemon
  soak     a simulated day at high speed: watchers coming and going, reloads, sensor swaps;
           RSS and descriptors at the start, every simulated hour and at the end
           (`carousel-bench soak --help` for its options)
  --json   one JSON object per line: name, unit, value (= median), runs, median, min, max, and
           target (text) and meets_target for figures with a target
  --runs N measured runs per figure (default 7; a warm-up precedes them)
  --samples N  fusion samples per run (default 2,000,000; lower it under valgrind)
  --carouseld PATH  the daemon binary to measure (default: carouseld next to this binary)
Environment: CAROUSEL_BENCH_DEBUG=1 prints every latency sample of the daemon benchmark.
SIGINT/SIGTERM stop the daemons it started, remove its temporary files and exit 130/143.
Figures, targets and how each is measured: docs/PERFORMANCE.md.

"""

func fail(_ message: String, status: Int32) -> Never {
    let text = "carousel-bench: \(message)\n"
    _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    exit(status)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "soak" {
    ChildRegistry.installSignalHandlers()
    exit(SoakBench.main(Array(arguments.dropFirst())))
}
var json = false
var runs = 7
var carouseldPath: String?
var fusionSamples = 2_000_000
var commands: [String] = []
while !arguments.isEmpty {
    let a = arguments.removeFirst()
    switch a {
    case "--json": json = true
    case "--runs":
        guard let v = arguments.first.flatMap({ Int($0) }), v >= 1, v <= 1000 else {
            fail("--runs needs an integer in 1...1000\n" + usage, status: 64)
        }
        arguments.removeFirst()
        runs = v
    case "--carouseld":
        guard let v = arguments.first else { fail("--carouseld needs a path\n" + usage, status: 64) }
        arguments.removeFirst()
        carouseldPath = v
    case "--samples":
        guard let v = arguments.first.flatMap({ Int($0) }), v >= 1 else {
            fail("--samples needs a positive integer\n" + usage, status: 64)
        }
        arguments.removeFirst()
        fusionSamples = v
    case "-h", "--help":
        print(usage, terminator: "")
        exit(0)
    case "engine", "fusion", "daemon", "rates", "core", "all": commands.append(a)
    default: fail("unknown argument '\(a)'\n" + usage, status: 64)
    }
}
guard !commands.isEmpty else { fail("missing benchmark name\n" + usage, status: 64) }

ChildRegistry.installSignalHandlers()
let reporter = Reporter(json: json)
var status: Int32 = 0
for command in commands {
    if command == "engine" || command == "all" { EngineBench(reporter: reporter, runs: runs).run() }
    if command == "core" { CoreFanOutBench(reporter: reporter, runs: runs).run() }
    if command == "fusion" || command == "all" { FusionBench(reporter: reporter, runs: runs, samplesPerRun: fusionSamples).run() }
    if command == "rates" {
        do {
            try DaemonBench(reporter: reporter, runs: runs, carouseldPath: carouseldPath).runRates()
        } catch {
            let text = "carousel-bench: rates: \(error)\n"
            _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            status = 69
        }
    }
    if command == "daemon" || command == "all" {
        do {
            try DaemonBench(reporter: reporter, runs: runs, carouseldPath: carouseldPath).run()
        } catch {
            let text = "carousel-bench: daemon: \(error)\n"
            _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            status = 69
        }
    }
}
exit(status)
