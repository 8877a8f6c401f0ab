import CarouselTestSupport
import Testing
@testable import CarouselCommandLine

/// carouselctl's help names the reference pages where the package installs them, never the
/// source tree's docs/ (an installed system has none).
@Suite struct HelpReferencesTests {
    @Test(arguments: Carouselctl.commands.map(\.name))
    func subcommandHelpNamesOnlyInstalledPages(command: String) throws {
        let spec = try #require(Carouselctl.commands.first { $0.name == command })
        #expect(HelpReferences.problems(in: helpText(for: spec)) == [])
    }

    @Test func overviewNamesOnlyInstalledPages() {
        #expect(HelpReferences.problems(in: overviewText(commands: Carouselctl.commands)) == [])
    }

    /// The pages the three commands that cite one name, in their installed form.
    @Test func sensorsTiltAndSimulateNameTheirPages() throws {
        let expected = [
            "sensors": ["/usr/share/doc/carouseld/SENSORS.md.gz"],
            "tilt": ["/usr/share/doc/carouseld/FUSION.md.gz", "/usr/share/doc/carouseld/ORIENTATION.md.gz"],
            "simulate": ["/usr/share/doc/carouseld/ENGINE.md.gz", "/usr/share/doc/carouseld/examples/"],
        ]
        for (name, pages) in expected {
            let spec = try #require(Carouselctl.commands.first { $0.name == name })
            let help = helpText(for: spec)
            for page in pages { #expect(help.contains(page), "carouselctl \(name) --help does not name \(page)") }
        }
    }
}
