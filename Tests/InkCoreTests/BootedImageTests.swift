// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import InkCore

@Suite struct BootedImageTests {
    /// What GRUB gives the kernel on the image (scripts/image/grub.cfg and slot.cfg), with a test's extras.
    let image = "BOOT_IMAGE=(hd0,gpt3)/vmlinuz console=tty1 panic=5 quiet ik.version=1.0.0+v2 rauc.slot=B "
        + "console=tty1 console=ttyS0 loglevel=6 ik.appliance.test=1 ik.update.confirm_after=2\n"

    @Test func theImageNamesItsSlotAndVersion() throws {
        let booted = try #require(try BootedImage(KernelCommandLine(image)))
        #expect(booted == BootedImage(slot: "B", version: "1.0.0+v2"))
        #expect(booted.description == "image 1.0.0+v2, slot B")
    }

    @Test func aMachineNotBootedFromTheImageHasNone() throws {
        #expect(try BootedImage(KernelCommandLine("BOOT_IMAGE=/boot/vmlinuz-6.1.0-31-amd64 root=UUID=4f2c ro quiet\n")) == nil)
        #expect(try BootedImage(KernelCommandLine("")) == nil)
        // A version without a slot is not a booted image either.
        #expect(try BootedImage(KernelCommandLine("ik.version=1.0.0")) == nil)
    }

    @Test func aSlotWithoutAVersionSaysSoRatherThanGuessing() throws {
        let booted = try #require(try BootedImage(KernelCommandLine("root=/dev/mmcblk0p2 rauc.slot=A")))
        #expect(booted.version == nil)
        #expect(booted.description == "image (version not on the kernel command line), slot A")
    }

    @Test func theLastValueWinsAndQuotesKeepSpaces() throws {
        let line = KernelCommandLine(#"rauc.slot=A dyndbg="file x.c +p" rauc.slot=B  "ik.version=2.0.1""#)
        #expect(line.words == ["rauc.slot=A", "dyndbg=file x.c +p", "rauc.slot=B", "ik.version=2.0.1"])
        #expect(line.value("dyndbg") == "file x.c +p")
        #expect(try BootedImage(line) == BootedImage(slot: "B", version: "2.0.1"))
        #expect(line.value("rauc") == nil, "a key is matched whole")
    }

    @Test func aNameNoImageWritesIsRefusedWithTheKey() {
        #expect(throws: BootedImageError(key: "rauc.slot", value: "")) { try BootedImage(KernelCommandLine("rauc.slot=")) }
        #expect(throws: BootedImageError(key: "ik.version", value: "1.0<script>")) {
            try BootedImage(KernelCommandLine("rauc.slot=A ik.version=1.0<script>"))
        }
        let error = BootedImageError(key: "rauc.slot", value: "a b")
        #expect(error.description.contains(#"rauc.slot="a b""#))
    }
}
