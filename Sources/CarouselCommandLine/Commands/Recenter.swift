import CarouselProtocol

/// `carouselctl recenter`: Make the current attitude the neutral tilt.
enum RecenterCommand {
    static let spec = CommandSpec(
        name: "recenter",
        summary: "Make the current attitude the neutral tilt.",
        run: { _, _ in throw CommandError(.software, "recenter: not implemented yet") }
    )
}
