import Testing
@testable import CarouselDaemon

// Replaced by the module's real tests.
@Test func CarouselDaemonModuleLinks() { #expect(Bool(true)) }
