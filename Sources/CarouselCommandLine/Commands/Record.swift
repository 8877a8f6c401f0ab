import CarouselProtocol

/// `carouselctl record`: Record sensor samples to a native CSV file.
enum RecordCommand {
    static let spec = CommandSpec(
        name: "record",
        summary: "Record sensor samples to a native CSV file.",
        run: { _, _ in throw CommandError(.software, "record: not implemented yet") }
    )
}
