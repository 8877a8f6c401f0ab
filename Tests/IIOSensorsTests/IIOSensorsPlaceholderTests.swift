import Testing
@testable import IIOSensors

// Replaced by the module's real tests.
@Test func IIOSensorsModuleLinks() { #expect(Bool(true)) }
