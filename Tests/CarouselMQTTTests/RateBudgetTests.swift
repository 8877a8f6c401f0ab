import CarouselMQTT
import Testing

/// The token bucket that bounds command errors, so that a flood of bad commands does not
/// become as many error publications and log lines.
@Suite struct RateBudgetTests {
    @Test func aBurstThenTheRate() {
        var budget = RateBudget(ratePerSecond: 5, burst: 3)
        // Three at t = 0 (the full bucket), the fourth refused.
        var first: [Bool] = []
        for _ in 0..<4 { first.append(budget.admit(now: 0)) }
        #expect(first == [true, true, true, false])
        // 5 a second: one token every 0.2 s; at 0.19 s none yet, at 0.2 s one.
        let at190ms = budget.admit(now: 190_000_000)
        let at200ms = budget.admit(now: 200_000_000)
        let again200ms = budget.admit(now: 200_000_000)
        #expect(!at190ms && at200ms && !again200ms)
        let refused = budget.takeRefused()
        #expect(refused == 3)
        #expect(budget.refused == 0)
        // After 10 s idle the bucket holds 3 again, not 50.
        var later: [Bool] = []
        for _ in 0..<4 { later.append(budget.admit(now: 10_200_000_000)) }
        #expect(later == [true, true, true, false])
    }

    @Test func aFloodCostsTheBurstPlusTheRate() {
        var budget = RateBudget(ratePerSecond: 5, burst: 20)
        // 2,000 errors over 2 s (one a millisecond): 20 + 5 · 2 = 30 admitted, the first at t = 0.
        var admitted = 0
        for i in 0..<2000 where budget.admit(now: Int64(i) * 1_000_000) { admitted += 1 }
        #expect(admitted == 29 || admitted == 30)
        #expect(budget.refused == 2000 - admitted)
    }
}
