// SPDX-License-Identifier: Apache-2.0
import InkCore

/// What the agent writes before it reboots into an update (on the data partition, synced, mode
/// 0600), and resolves after the reboot: the outcome is reported once the new slot has booted
/// and confirmed itself, never when the install returns.
public struct PendingUpdate: Codable, Equatable, Sendable {
    /// The server's action.
    public var actionID: String
    public var bundle: String
    /// What ran when the update was installed.
    public var fromSlot: String
    public var fromVersion: String?
    /// Where the update went, and the version it carries (the server's word; nil if it gave none).
    public var targetSlot: String
    public var targetVersion: String?
    /// The kernel's boot id at the install: the same id after a restart of the agent means no reboot yet.
    public var bootID: String
    /// Seconds since 1970 (UTC).
    public var installedAt: Int64

    public init(actionID: String, bundle: String, fromSlot: String, fromVersion: String?, targetSlot: String,
                targetVersion: String?, bootID: String, installedAt: Int64) {
        self.actionID = actionID; self.bundle = bundle; self.fromSlot = fromSlot; self.fromVersion = fromVersion
        self.targetSlot = targetSlot; self.targetVersion = targetVersion; self.bootID = bootID; self.installedAt = installedAt
    }

    /// The slot RAUC writes: the image's other one (A and B).
    public static func otherSlot(of slot: String) -> String? {
        switch slot {
        case "A": return "B"
        case "B": return "A"
        default: return nil
        }
    }

    public enum Outcome: Equatable, Sendable {
        /// Still the boot the update was installed in: the reboot is still to come.
        case notRebooted
        /// The target slot booted with its version, and has not confirmed itself yet.
        case awaitingConfirmation
        case success(String)
        case failure(String)
    }

    /// The record's outcome in this boot. `confirmedSlot`: what /run/inkkiosk/boot-confirmed names
    /// (nil while absent); `gaveUpWaiting`: the bounded wait for it is over.
    public func resolve(bootID: String, booted: BootedImage?, confirmedSlot: String?, gaveUpWaiting: Bool) -> Outcome {
        if bootID == self.bootID { return .notRebooted }
        let target = "\(targetVersion ?? "the update") in slot \(targetSlot)"
        guard let booted else {
            return .failure("after the reboot the kernel command line names no slot (rauc.slot=): the machine did not boot "
                            + "the image, so \(target) is not running")
        }
        guard booted.slot == targetSlot else {
            return .failure("\(target) never confirmed its boot (it crashed, hung or was never ready): the boot loader fell "
                            + "back to slot \(booted.slot), running \(booted.version ?? "an unknown version")")
        }
        if let targetVersion, booted.version != targetVersion {
            return .failure("slot \(targetSlot) booted with version \(booted.version ?? "(none on the kernel command line)"), "
                            + "not the update's \(targetVersion)")
        }
        if confirmedSlot == targetSlot {
            return .success("\(target) booted and confirmed its boot (the kiosk ready, the slot marked good)")
        }
        if gaveUpWaiting {
            return .failure("\(target) booted but did not confirm its boot in time (the kiosk not ready): it will roll "
                            + "back at the next boot")
        }
        return .awaitingConfirmation
    }
}
