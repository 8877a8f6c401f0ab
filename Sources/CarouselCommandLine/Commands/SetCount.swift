import CarouselProtocol

/// `carouselctl set-count N`: the `set_count` request of docs/PROTOCOL.md "Requests".
enum SetCountCommand {
    static let spec = CommandSpec(
        name: "set-count",
        summary: "Set the number of items in the carousel.",
        discussion: """
        Sends 'set_count' to carouseld (a control command). The centered item keeps its identity \
        where it still exists; 0 items is a valid, empty carousel. Prints nothing on success.
        Exit status: 0 done, 64 N not a non-negative integer, 65 the daemon refused it, 69 carouseld \
        not running, 77 not allowed.
        """,
        options: [OperatorSettings.socketOption, OperatorSettings.configOption],
        positionals: [PositionalSpec("N", help: "Number of items (≥ 0).")],
        run: { args, io in
            let text = args.positionals[0]
            guard let count = Int(text), count >= 0 else {
                throw CommandError(.usage, "set-count: N '\(text)' is not a non-negative integer")
            }
            return try ControlRequest.send(ControlRequest.setCount(count), cmd: "set_count", args: args, io: io)
        }
    )
}
