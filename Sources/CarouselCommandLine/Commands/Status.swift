import CarouselProtocol

/// `carouselctl status [--json]`: the daemon's `STATUS` and one `STATE` (docs/PROTOCOL.md "Server messages").
enum StatusCommand {
    static let spec = CommandSpec(
        name: "status",
        summary: "Show the daemon's version, sensor, rates, clients and current state.",
        discussion: """
        Asks carouseld for 'status' and 'poll' and prints them for people, or with --json as one \
        object {"status": STATUS, "state": STATE} holding the two protocol objects unchanged.
        Exit status: 0 ok, 69 carouseld not running (the message names the socket), 77 no \
        permission on the socket.
        """,
        options: [
            OptionSpec("--json", help: "Print one JSON object for scripts."),
            OperatorSettings.socketOption,
            OperatorSettings.configOption,
        ],
        run: { args, io in
            let settings = try OperatorSettings.load(args, io: io)
            let client = try settings.connect(args)
            defer { client.close() }
            let status = try client.request(ControlRequest.status, cmd: "status", expecting: ["STATUS"])
            let statusLine = client.lastLine
            let state = try client.request(ControlRequest.poll, cmd: "poll", expecting: ["STATE"])
            if args.has("--json") {
                io.out("{\"status\":\(statusLine),\"state\":\(client.lastLine)}\n")
            } else {
                io.out(StatusText.render(greeting: client.greeting, status: status, state: state,
                                         socketPath: client.socketPath))
            }
            return .ok
        }
    )
}
