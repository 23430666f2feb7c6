// SPDX-License-Identifier: Apache-2.0
import Glibc
import InkLog
import Logging
import Synchronization
import Testing

/// What the handler writes, one `write` (one sink call) per message.
private final class Written: Sendable {
    let texts = Mutex<[String]>([])
    var all: [String] { texts.withLock { $0 } }

    func logger(journal: Bool, level: Logger.Level, label: String = "inkkiosk.display") -> Logger {
        Logger(label: label) { label in
            KioskLogHandler(label: label, journal: journal, level: level) { text in self.texts.withLock { $0.append(text) } }
        }
    }
}

@Suite struct KioskLogLines {
    @Test func theJournalGetsEachLevelsPriority() {
        let written = Written()
        let log = written.logger(journal: true, level: .trace)
        log.critical("the screen is gone")
        log.error("cannot save ink")
        log.warning("a worksheet folder is missing")
        log.notice("a screen is back")
        log.info("first frame on screen")
        log.debug("page 2 shown")
        log.trace("a sample")
        #expect(written.all == [
            "<2>inkkiosk: the screen is gone\n",
            "<3>inkkiosk: cannot save ink\n",
            "<4>inkkiosk: a worksheet folder is missing\n",
            "<5>inkkiosk: a screen is back\n",
            "<6>inkkiosk: first frame on screen\n",
            "<7>inkkiosk: page 2 shown\n",
            "<7>inkkiosk: a sample\n",
        ])
    }

    @Test func elsewhereTheLevelIsWrittenOut() {
        let written = Written()
        let log = written.logger(journal: false, level: .info)
        log.warning("cannot notify the service manager")
        log.info("first frame on screen")
        #expect(written.all == ["warning: inkkiosk: cannot notify the service manager\n", "info: inkkiosk: first frame on screen\n"])
    }

    @Test func belowTheLevelNothingIsWritten() {
        let written = Written()
        let log = written.logger(journal: true, level: .warning)
        log.info("first frame on screen")
        log.notice("a screen is back")
        log.debug("page 2 shown")
        log.error("cannot save ink")
        log.warning("a worksheet folder is missing")
        #expect(written.all == ["<3>inkkiosk: cannot save ink\n", "<4>inkkiosk: a worksheet folder is missing\n"])
    }

    /// Without a level of its own a handler follows the process's, as the config sets it.
    @Test func theProcesssLevelIsFollowedWhenItChanges() {
        let written = Written()
        let log = Logger(label: "inkkiosk") { label in
            KioskLogHandler(label: label, journal: false) { text in written.texts.withLock { $0.append(text) } }
        }
        let before = KioskLogging.level
        defer { KioskLogging.level = before }
        KioskLogging.level = .error
        log.warning("dropped")
        KioskLogging.level = .debug
        log.debug("kept")
        #expect(written.all == ["debug: inkkiosk: kept\n"])
    }

    /// A message of several lines is several lines, each with the prefix, in one write: no line
    /// of it reaches the journal without its priority, and no other thread's line lands between.
    @Test func aMessageOfSeveralLinesKeepsItsPrefixOnEachInOneWrite() {
        let written = Written()
        let log = written.logger(journal: true, level: .info)
        log.warning("the configuration has problems:\nk.toml:2: log.level: bad\r\nk.toml:3: x")
        #expect(written.all == ["<4>inkkiosk: the configuration has problems:\n<4>inkkiosk: k.toml:2: log.level: bad\n<4>inkkiosk: k.toml:3: x\n"])
    }

    @Test func metadataFollowsTheMessage() {
        let written = Written()
        var log = written.logger(journal: false, level: .info)
        log[metadataKey: "device"] = "/dev/dri/card0"
        log.error("mode set failed", metadata: ["errno": "13"])
        #expect(written.all == ["error: inkkiosk: mode set failed (device=/dev/dri/card0, errno=13)\n"])
    }
}

@Suite struct JournalStreams {
    @Test func theVariableIsDeviceColonInode() {
        let parsed = JournalStream.parse("64769:1234")
        #expect(parsed?.device == 64769 && parsed?.inode == 1234)
        #expect(JournalStream.parse("64769") == nil)
        #expect(JournalStream.parse("a:1") == nil)
        #expect(JournalStream.parse("1:2:3") == nil)
    }

    /// Only stderr's own device and inode count: a child whose stderr went elsewhere inherits
    /// the variable but must not write priorities into a file.
    @Test func stderrIsTheJournalOnlyWhenItsDeviceAndInodeMatch() {
        var info = stat()
        #expect(fstat(2, &info) == 0)
        #expect(JournalStream.isStandardError("\(info.st_dev):\(info.st_ino)"))
        #expect(!JournalStream.isStandardError("\(info.st_dev):\(info.st_ino &+ 1)"))
        #expect(!JournalStream.isStandardError(nil))
        #expect(!JournalStream.isStandardError(""))
    }
}
