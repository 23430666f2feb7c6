// SPDX-License-Identifier: Apache-2.0
import Glibc
import InkCore
import Testing
@testable import InkUpdateAgent

struct PendingAndVersionTests {
    let record = PendingUpdate(actionID: "4", bundle: "v2.raucb", fromSlot: "A", fromVersion: "1.0.0", targetSlot: "B",
                               targetVersion: "1.0.0+v2", bootID: "boot-1", installedAt: 0)

    @Test func theSameBootMeansTheRebootIsStillToCome() {
        #expect(record.resolve(bootID: "boot-1", booted: BootedImage(slot: "A", version: "1.0.0"), confirmedSlot: nil,
                               gaveUpWaiting: false) == .notRebooted)
    }

    @Test func successOnlyOnceTheTargetSlotConfirmedItself() {
        let b = BootedImage(slot: "B", version: "1.0.0+v2")
        #expect(record.resolve(bootID: "boot-2", booted: b, confirmedSlot: nil, gaveUpWaiting: false) == .awaitingConfirmation)
        // A file left naming the other slot is not this boot's confirmation.
        #expect(record.resolve(bootID: "boot-2", booted: b, confirmedSlot: "A", gaveUpWaiting: false) == .awaitingConfirmation)
        guard case .success(let why) = record.resolve(bootID: "boot-2", booted: b, confirmedSlot: "B", gaveUpWaiting: false) else {
            Issue.record("not a success"); return
        }
        #expect(why.contains("1.0.0+v2 in slot B booted and confirmed"))
        guard case .failure(let late) = record.resolve(bootID: "boot-2", booted: b, confirmedSlot: nil, gaveUpWaiting: true) else {
            Issue.record("not a failure"); return
        }
        #expect(late.contains("did not confirm its boot in time"))
    }

    @Test func theOldSlotBootingIsAFailureNamingWhatRuns() {
        let outcome = record.resolve(bootID: "boot-3", booted: BootedImage(slot: "A", version: "1.0.0"), confirmedSlot: "A",
                                     gaveUpWaiting: false)
        #expect(outcome == .failure("1.0.0+v2 in slot B never confirmed its boot (it crashed, hung or was never ready): the boot "
                                    + "loader fell back to slot A, running 1.0.0"))
    }

    @Test func anotherVersionInTheTargetSlotOrNoImageIsAFailure() {
        guard case .failure(let why) = record.resolve(bootID: "boot-2", booted: BootedImage(slot: "B", version: "0.9"),
                                                      confirmedSlot: "B", gaveUpWaiting: false) else { Issue.record("accepted"); return }
        #expect(why.contains("booted with version 0.9, not the update's 1.0.0+v2"))
        guard case .failure(let none) = record.resolve(bootID: "boot-2", booted: nil, confirmedSlot: nil, gaveUpWaiting: false) else {
            Issue.record("accepted"); return
        }
        #expect(none.contains("names no slot"))
    }

    @Test func theOtherSlotIsTheImagesOther() {
        #expect(PendingUpdate.otherSlot(of: "A") == "B")
        #expect(PendingUpdate.otherSlot(of: "B") == "A")
        #expect(PendingUpdate.otherSlot(of: "rootfs.0") == nil)
    }

    @Test func versionsOrderAsSemVerWithBuildMetadataUnordered() {
        func older(_ a: String, _ b: String) -> Bool { SlotVersion(a) < SlotVersion(b) }
        #expect(older("1.0.0", "1.0.1"))
        #expect(older("1.9.0", "1.10.0"))
        #expect(older("1.0.0-rc.1", "1.0.0"))
        #expect(older("1.0.0~rc1", "1.0.0"))
        #expect(older("1.0.0-alpha", "1.0.0-beta"))
        #expect(older("1.0.0-2", "1.0.0-alpha"))
        #expect(!older("2.0.0", "1.99.99"))
        #expect(SlotVersion("1.0.0+v2") == SlotVersion("1.0.0"))
        #expect(!older("1.0.0+v2", "1.0.0") && !older("1.0.0", "1.0.0+v2"))
        #expect(SlotVersion("1.0") == SlotVersion("1.0.0"))
    }

    @Test func aDowngradeIsRefusedUnlessAllowed() {
        #expect(DowngradeRule.refusal(offered: "0.9.0", running: "1.0.0", allowDowngrade: false)
                == "refused: 0.9.0 is older than the running 1.0.0 (a downgrade; [update] allow_downgrade = true allows it)")
        #expect(DowngradeRule.refusal(offered: "0.9.0", running: "1.0.0", allowDowngrade: true) == nil)
        #expect(DowngradeRule.refusal(offered: "1.0.0+v2", running: "1.0.0", allowDowngrade: false) == nil)
        #expect(DowngradeRule.refusal(offered: "1.0.1", running: "1.0.0", allowDowngrade: false) == nil)
    }

    @Test func theIdentityFileIsParsedStrictly() throws {
        let id = try AgentIdentity.parse("# enrolled 2026-01-05\ncontroller_id = kiosk-0042\ntarget_token=abc123\n", path: "/id")
        #expect(id == AgentIdentity(controllerID: "kiosk-0042", targetToken: "abc123"))
        #expect(throws: AgentIdentity.Problem(description: "/id: no target_token")) { try AgentIdentity.parse("controller_id = k", path: "/id") }
        #expect(throws: AgentIdentity.Problem(description: "/id:1: unknown key \"token\" (known: controller_id, target_token)")) {
            try AgentIdentity.parse("token = x", path: "/id")
        }
        #expect(throws: AgentIdentity.Problem.self) { try AgentIdentity.parse("controller_id = a/b\ntarget_token = t", path: "/id") }
    }

    @Test func theIdentityFileIsRefusedUnless0600AndOurs() throws {
        let path = "/tmp/inkkiosk-identity-\(getpid())"
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        _ = "controller_id = k1\ntarget_token = t1\n".withCString { write(fd, $0, strlen($0)) }
        close(fd)
        chmod(path, 0o644)
        #expect(throws: AgentIdentity.Problem(description: "identity_file: \(path) has mode 644, not 600: it holds the device's token (chmod 600 \(path))")) {
            try AgentIdentity.read(path)
        }
        chmod(path, 0o600)
        #expect(try AgentIdentity.read(path) == AgentIdentity(controllerID: "k1", targetToken: "t1"))
        #expect(throws: AgentIdentity.Problem.self) { try AgentIdentity.read(path, uid: geteuid() + 1) }
        #expect(throws: AgentIdentity.Problem.self) { try AgentIdentity.read(path + ".missing") }
    }

    @Test func theUpdateCommandGivesItsStatusAndTheEndOfItsOutput() throws {
        let result = try UpdateCommand(path: "/bin/sh").run(["-c", "echo checking; echo 'signature verification failed' >&2; exit 1"])
        #expect(result.status == 1)
        #expect(result.reason == "checking | signature verification failed")
        #expect(try UpdateCommand(path: "/bin/sh").run(["-c", "exit 75"]).status == UpdateCommand.busyStatus)
        #expect(throws: SystemCallError.self) { try UpdateCommand(path: "/nonexistent/ik-update").run(["reboot"]) }
    }
}
