import CarouselDaemon
import CarouselService
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The help texts name the reference pages where they are installed, never the source tree's
/// docs/ (an installed system has none).
@Suite struct ReferencePagesTests {
    @Test func theDebianPackageNamesItsOwnFolder() {
        let pages = ReferencePages(executablePath: "/usr/bin/carouseld") { $0 == "/usr/share/doc/carouseld" }
        #expect(pages.directory == "/usr/share/doc/carouseld")
        #expect(pages.page("PROTOCOL.md") == "/usr/share/doc/carouseld/PROTOCOL.md.gz")
        #expect(pages.examples == "/usr/share/doc/carouseld/examples/")
    }

    /// `make install` with PREFIX=/usr/local puts the pages in /usr/local/share/doc/carouseld;
    /// the libexec helper finds the same folder.
    @Test func anotherPrefixNamesTheFolderBesideTheProgram() {
        let installed: (String) -> Bool = { $0 == "/usr/local/share/doc/carouseld" }
        #expect(ReferencePages(executablePath: "/usr/local/bin/carouselctl", isDirectory: installed).page("SENSORS.md")
                == "/usr/local/share/doc/carouseld/SENSORS.md.gz")
        #expect(ReferencePages(executablePath: "/usr/local/libexec/carouseld-kiosk-touch", isDirectory: installed).directory
                == "/usr/local/share/doc/carouseld")
    }

    /// A program in a build folder, or in a bin/ without the pages beside it (carousel-mqtt
    /// installed without carouseld, which it only recommends), names the package's folder.
    @Test func withoutPagesBesideTheProgramThePackagesFolder() {
        let everything: (String) -> Bool = { _ in true }
        #expect(ReferencePages(executablePath: "/home/u/carouseld/.build/release/carouseld", isDirectory: everything).directory
                == "/usr/share/doc/carouseld")
        #expect(ReferencePages(executablePath: "/opt/carousel/bin/carousel-mqtt") { _ in false }.directory
                == "/usr/share/doc/carouseld")
        #expect(ReferencePages(executablePath: "carouseld", isDirectory: everything).directory == "/usr/share/doc/carouseld")
    }

    /// The default check reads the file system: an installed tree in a temporary folder.
    @Test func findsARealFolder() throws {
        let root = TestTemp.path("reference-pages")
        for folder in ["", "/bin", "/share", "/share/doc", "/share/doc/carouseld"] {
            #expect(mkdir(root + folder, 0o755) == 0, "mkdir \(root + folder)")
        }
        defer { for folder in ["/share/doc/carouseld", "/share/doc", "/share", "/bin", ""] { rmdir(root + folder) } }
        #expect(ReferencePages(executablePath: root + "/bin/carouseld").directory == root + "/share/doc/carouseld")
        #expect(ReferencePages(executablePath: root + "/lib/carouseld").directory == "/usr/share/doc/carouseld")
    }

    /// carouseld(8) is made from this text; the man page's references are then rewritten to
    /// DOCDIR (the Makefile's MANREFS).
    @Test func carouseldHelpNamesInstalledPagesAndManPages() {
        let help = CarouseldCommandLine.helpText
        #expect(HelpReferences.problems(in: help) == [])
        #expect(help.contains("carouseld.conf(5) for every setting"))
        #expect(help.contains("/usr/share/doc/carouseld/PROTOCOL.md.gz for the protocol"))
        #expect(help.contains("/usr/share/doc/carouseld/SERVICE.md.gz"))
    }

    /// The check itself: it finds what the help texts used to name.
    @Test func theCheckFindsRepositoryPathsAndPagesThatAreNotInstalled() {
        #expect(HelpReferences.problems(in: "See docs/PROTOCOL.md and docs/examples/.") == [
            "names the repository path docs/PROTOCOL.md", "names the repository path docs/examples/",
        ])
        #expect(HelpReferences.problems(in: "(/usr/share/doc/carouseld/NOPE.md.gz; /usr/share/doc/carouseld/FUSION.md)") == [
            "names /usr/share/doc/carouseld/NOPE.md.gz, but there is no docs/NOPE.md to install there",
            "names /usr/share/doc/carouseld/FUSION.md, which make install-doc does not install",
        ])
        #expect(HelpReferences.problems(in: "See /usr/share/doc/carouseld/README.md.gz, /usr/share/doc/carouseld/examples/.") == [])
    }
}
