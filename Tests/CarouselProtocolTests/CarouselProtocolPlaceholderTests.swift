import Testing
@testable import CarouselProtocol

// Replaced by the module's real tests.
@Test func CarouselProtocolModuleLinks() { #expect(Bool(true)) }
