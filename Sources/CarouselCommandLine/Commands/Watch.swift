import CarouselProtocol

/// `carouselctl watch`: subscribe to STATE/INDEX/SENSOR (INTERFACES §2) and print them.
enum WatchCommand {
    static let spec = CommandSpec(
        name: "watch",
        summary: "Print the carousel state live as carouseld publishes it.",
        discussion: """
        Sends 'watch' and prints one line per STATE (seq, index/count, position in items, phase, \
        tilt roll/pitch in degrees, sensor status), INDEX changes and SENSOR status changes, until \
        interrupted (Ctrl-C) or, with --count N, after N states. With --json every message is \
        printed as the daemon sent it (NDJSON, one object per line), for scripts and 'jq'. \
        With --items each STATE line is followed by one indented line per visible item (index, \
        center x,y in points, scale, alpha, zIndex); --json prints them in full, with the \
        transform. The daemon sends nothing while the carousel and the device are still.
        Exit status: 0 ended by --count, 69 carouseld not running or it went away, 77 no \
        permission on the socket.
        """,
        options: [
            OptionSpec("--json", help: "Print the protocol's objects (NDJSON) instead of text lines."),
            OptionSpec("--items", help: "Ask for the visible items' attributes: one line per item under each state."),
            OptionSpec("--rate", value: "HZ", help: "Highest STATE rate wanted, Hz (default: the daemon's max_rate_hz)."),
            OptionSpec("--count", short: "-n", value: "N", help: "Exit after N STATE messages (default: run until interrupted)."),
            OperatorSettings.socketOption,
            OperatorSettings.configOption,
        ],
        run: { args, io in
            let rate = try args.double("--rate", in: 0.1...1000)
            let limit = try args.int("--count", in: 1...Int.max)
            let json = args.has("--json")
            let settings = try OperatorSettings.load(args, io: io)
            let client = try settings.connect(args)
            defer { client.close() }
            let reply = try client.request(ControlRequest.watch(items: args.has("--items"), maxRateHz: rate),
                                           cmd: "watch", expecting: ["WATCH"])
            if json {
                io.out(client.lastLine + "\n")
            } else if let hz = reply["max_rate_hz"]?.doubleValue {
                io.err("watching \(client.socketPath) at up to \(fmt(hz)) Hz (Ctrl-C to stop)\n")
            }
            var states = 0
            while true {
                let message: WireJSON
                do throws(CommandError) {
                    guard let m = try client.readMessage(timeoutSeconds: nil) else { continue }
                    message = m
                } catch {
                    throw CommandError(.unavailable, "\(client.socketPath): carouseld went away (\(error.message))")
                }
                let kind = message["class"]?.stringValue ?? ""
                if json {
                    io.out(client.lastLine + "\n")
                } else {
                    switch kind {
                    case "STATE":
                        io.out(StatusText.stateLine(message) + "\n")
                        for item in message["items"]?.arrayValue ?? [] { io.out("  " + StatusText.itemLine(item) + "\n") }
                    case "INDEX":
                        let previous = message["previous"]?.intValue.map(String.init) ?? "none"
                        io.out("index \(message["index"]?.intValue.map(String.init) ?? "?") (was \(previous))\n")
                    case "SENSOR":
                        var line = "sensor \(message["status"]?.stringValue ?? "?")"
                        if let name = message["name"]?.stringValue { line += " \(name)" }
                        if let text = message["message"]?.stringValue { line += ": \(text)" }
                        io.out(line + "\n")
                    case "ERROR":
                        throw DaemonClient.error(from: message, cmd: "watch", socketPath: client.socketPath)
                    default: break
                    }
                }
                if kind == "STATE" {
                    states += 1
                    if let limit, states >= limit { return .ok }
                }
            }
        }
    )
}
