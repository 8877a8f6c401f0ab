/// The release of carouseld and carouselctl, reported by `--version` and in the protocol's
/// `VERSION` greeting.
public let carouseldRelease = "0.1.0"
