import CarouselProtocol

/// `carouselctl scroll-to`: Scroll the carousel to an item.
enum ScrollToCommand {
    static let spec = CommandSpec(
        name: "scroll-to",
        summary: "Scroll the carousel to an item.",
        run: { _, _ in throw CommandError(.software, "scroll-to: not implemented yet") }
    )
}
