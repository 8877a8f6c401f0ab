import Testing
@testable import CarouselCommandLine

@Suite struct TiltFormattingTests {
    @Test func fixedDecimals() {
        #expect(DecimalFormatting.fixed(-1.23456, decimals: 3) == "-1.235")
        #expect(DecimalFormatting.fixed(179.9999996, decimals: 6) == "180.000000")
        #expect(DecimalFormatting.fixed(-0.0000004, decimals: 6) == "0.000000")  // never "-0"
        #expect(DecimalFormatting.fixed(0.05, decimals: 6) == "0.050000")
        #expect(DecimalFormatting.fixed(.nan, decimals: 6) == "")
    }

    @Test func exactSeconds() {
        #expect(DecimalFormatting.seconds(nanoseconds: 0) == "0")
        #expect(DecimalFormatting.seconds(nanoseconds: 10_078_907) == "0.010078907")
        #expect(DecimalFormatting.seconds(nanoseconds: 2_500_000_000) == "2.5")
        #expect(DecimalFormatting.seconds(nanoseconds: -3_000_001) == "-0.003000001")
    }
}
