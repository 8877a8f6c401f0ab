import Testing
import CarouselTestSupport
@testable import CarouselCommandLine

/// docs/CLI.md stays in step with the command table: every subcommand has a section, every
/// option of the commands this reference details is documented, and the exit-status table
/// lists every status of docs/CLI.md "EXIT STATUS".
@Suite struct ClientDocsTests {
    let text = readTextFile(TestPaths.packageRoot + "/docs/CLI.md") ?? ""

    @Test func everySubcommandHasASection() {
        #expect(!text.isEmpty)
        for spec in Carouselctl.commands {
            #expect(text.contains("\n### \(spec.name)\n"), "docs/CLI.md lacks a section for \(spec.name)")
        }
    }

    @Test(arguments: ["status", "watch", "scroll-to", "set-count", "recenter", "reload", "calibrate",
                      "calibration show", "calibration reset", "sensors"])
    func everyOptionIsDocumented(command: String) throws {
        let spec = try #require(Carouselctl.commands.first { $0.name == command })
        for option in spec.options {
            #expect(text.contains(option.name), "docs/CLI.md lacks \(option.name) of \(command)")
        }
    }

    @Test func exitStatusTableAndFaultVariable() {
        for status in [0, 1, 64, 65, 66, 69, 74, 77, 78] {
            #expect(text.contains("| \(status) |"), "exit status \(status) missing")
        }
        for point in AtomicFileWriter.FaultPoint.allCases {
            #expect(text.contains("`\(point.rawValue)`"))
        }
        #expect(text.contains(AtomicFileWriter.faultEnvironmentVariable))
        // The thresholds quoted in the docs are the ones the code uses.
        let still = StillCalibration()
        #expect(still.accelStdLimit == 0.2 && text.contains("| 0.2 m/s² |"))
        #expect(still.gyroStdLimit == 0.05 && text.contains("| 0.05 rad/s |"))
        #expect(still.gyroMeanLimit == 0.2 && text.contains("| 0.2 rad/s |"))
    }
}
