import CarouselProtocol

/// `carouselctl set-count`: Set the number of items.
enum SetCountCommand {
    static let spec = CommandSpec(
        name: "set-count",
        summary: "Set the number of items.",
        run: { _, _ in throw CommandError(.software, "set-count: not implemented yet") }
    )
}
