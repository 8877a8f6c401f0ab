import CarouselProtocol

/// `carouselctl watch`: Print the carousel state live until interrupted.
enum WatchCommand {
    static let spec = CommandSpec(
        name: "watch",
        summary: "Print the carousel state live until interrupted.",
        run: { _, _ in throw CommandError(.software, "watch: not implemented yet") }
    )
}
