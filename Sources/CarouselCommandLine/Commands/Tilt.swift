import CarouselProtocol

/// `carouselctl tilt`: Estimate roll and pitch from a recording; CSV on stdout.
enum TiltCommand {
    static let spec = CommandSpec(
        name: "tilt",
        summary: "Estimate roll and pitch from a recording; CSV on stdout.",
        run: { _, _ in throw CommandError(.software, "tilt: not implemented yet") }
    )
}
