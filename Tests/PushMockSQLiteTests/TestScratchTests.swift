import Foundation
import PushMockTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The tests' files (SQLite stores with their journals, certificates, configuration files) go in
/// one folder per test process, so that a run leaves nothing behind in the temporary directory.
@Suite("The tests' scratch folder: one per test process, and the folders of ended processes are removed")
struct TestScratchTests {
    @Test("paths are new names in this process's folder, named after its process id")
    func ownFolder() throws {
        let first = TestScratch.path("store", extension: "sqlite")
        let second = TestScratch.path("store", extension: "sqlite")
        #expect(first != second)
        #expect((first as NSString).deletingLastPathComponent == TestScratch.folder)
        #expect((TestScratch.folder as NSString).lastPathComponent == "pushmock-tests.\(getpid())")
        #expect(first.hasSuffix(".sqlite") && (first as NSString).lastPathComponent.hasPrefix("store-"), "\(first)")
        #expect(!FileManager.default.fileExists(atPath: first))
        let directory = try TestScratch.directory("certs")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test("a folder whose process has ended is an orphan; this process's, a live one's and other names are not")
    func orphans() throws {
        let parent = try TestScratch.directory("parent")
        let ended = try ChildProcess.spawn(["/bin/sh", "-c", "exit 0"])
        let endedPid = ended.pid
        #expect(ended.wait() == 0)
        let live = try ChildProcess.spawn(["/bin/sh", "-c", "read line"], inputPipe: true)
        defer {
            live.closeInput()
            _ = live.wait()
        }
        for name in [
            "pushmock-tests.\(endedPid)", "pushmock-tests.\(getpid())", "pushmock-tests.\(live.pid)", "pushmock-tests.x1", "other.\(endedPid)",
        ] {
            try FileManager.default.createDirectory(atPath: "\(parent)/\(name)", withIntermediateDirectories: false)
        }
        #expect(TestScratch.orphans(in: parent) == ["\(parent)/pushmock-tests.\(endedPid)"])
    }
}
