import CarouselProtocol

/// `carouselctl scroll-to INDEX [--no-animation]`: the `scroll_to` request of docs/PROTOCOL.md "Requests".
enum ScrollToCommand {
    static let spec = CommandSpec(
        name: "scroll-to",
        summary: "Scroll the carousel so that item INDEX is centered.",
        discussion: """
        Sends 'scroll_to' to carouseld (a control command: root, the daemon's user or a member of \
        [server] control_group). The carousel animates to the item unless --no-animation is given; \
        in a cyclic carousel it takes the shortest way round. Prints nothing on success.
        Exit status: 0 done, 64 INDEX not an integer, 65 the daemon refused the index, 69 carouseld \
        not running, 77 not allowed.
        """,
        options: [
            OptionSpec("--no-animation", help: "Jump to the item instead of animating."),
            OperatorSettings.socketOption,
            OperatorSettings.configOption,
        ],
        positionals: [PositionalSpec("INDEX", help: "Item index (0-based).")],
        run: { args, io in
            let text = args.positionals[0]
            guard let index = Int(text) else {
                throw CommandError(.usage, "scroll-to: INDEX '\(text)' is not an integer")
            }
            return try ControlRequest.send(ControlRequest.scrollTo(index: index, animated: !args.has("--no-animation")),
                                           cmd: "scroll_to", args: args, io: io)
        }
    )
}
