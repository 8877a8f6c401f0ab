import Testing
@testable import MotionFusion

// Replaced by the module's real tests.
@Test func MotionFusionModuleLinks() { #expect(Bool(true)) }
