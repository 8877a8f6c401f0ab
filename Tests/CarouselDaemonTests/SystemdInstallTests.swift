import CarouselTestSupport
import Testing
@testable import CarouselDaemon

/// `make install` / `make uninstall` into a DESTDIR, with the binaries already built
/// (NO_BUILD=1 BUILDDIR=<test products>) so the test does not start a release build.
@Suite(.serialized) struct SystemdInstallTests {
    static func make(_ target: String, destdir: String) -> ServiceTestSupport.ProcessResult {
        ServiceTestSupport.run(["make", "-s", target, "DESTDIR=\(destdir)", "PREFIX=/usr", "NO_BUILD=1",
                                "BUILDDIR=\(TestPaths.productsDirectory)"], in: TestPaths.packageRoot)
    }

    @Test func installPutsEverythingInPlaceAndKeepsTheConfig() throws {
        let destdir = ServiceTestSupport.temporaryDirectory()
        let result = Self.make("install", destdir: destdir)
        #expect(result.status == 0, "make install: \(result.standardError)")
        let files: [(String, UInt32)] = [
            ("/usr/bin/carouseld", 0o755), ("/usr/bin/carouselctl", 0o755),
            ("/usr/lib/systemd/system/carouseld.service", 0o644), ("/usr/lib/systemd/system/carouseld.socket", 0o644),
            ("/usr/lib/udev/rules.d/60-carouseld.rules", 0o644), ("/usr/lib/sysusers.d/carouseld.conf", 0o644),
            ("/etc/carouseld/carouseld.conf", 0o644),
        ]
        for (path, mode) in files {
            let actual: UInt32? = ServiceTestSupport.mode(destdir + path).map { UInt32($0) }
            #expect(actual == mode, "\(path)")
        }
        let service = try #require(readTextFile(destdir + "/usr/lib/systemd/system/carouseld.service"))
        #expect(service.contains("\nExecStart=/usr/bin/carouseld --config /etc/carouseld/carouseld.conf\n"))
        #expect(!service.contains("/usr/local"))
        #expect(readTextFile(destdir + "/etc/carouseld/carouseld.conf") == readTextFile(TestPaths.packageRoot + "/configs/carouseld.conf"))

        // The installed binary is the built one and runs.
        let version = ServiceTestSupport.run([destdir + "/usr/bin/carouseld", "--version"])
        #expect(version.status == 0)

        // A second install never overwrites the operator's configuration.
        #expect(ServiceTestSupport.writeFile(destdir + "/etc/carouseld/carouseld.conf", "[tilt]\nmax_deg = 40\n"))
        let again = Self.make("install", destdir: destdir)
        #expect(again.status == 0)
        #expect(again.standardOutput.contains("keeping existing \(destdir)/etc/carouseld/carouseld.conf"))
        #expect(readTextFile(destdir + "/etc/carouseld/carouseld.conf") == "[tilt]\nmax_deg = 40\n")

        let removed = Self.make("uninstall", destdir: destdir)
        #expect(removed.status == 0, "make uninstall: \(removed.standardError)")
        for (path, _) in files where path != "/etc/carouseld/carouseld.conf" {
            #expect(!ServiceTestSupport.fileExists(destdir + path), "\(path) left behind")
        }
        #expect(ServiceTestSupport.fileExists(destdir + "/etc/carouseld/carouseld.conf"))
    }
}
