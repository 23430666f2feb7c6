// SPDX-License-Identifier: Apache-2.0
import CLibInput
@testable import InkInput
import Logging
import Testing

/// libinput's own messages reach the log at their priority, and libinput is asked for no more
/// than the log's level lets through.
@Suite struct LibinputLogLevels {
    @Test func eachPriorityHasItsLevel() {
        #expect(LibinputSeat.level(ofLibinputPriority: Int32(LIBINPUT_LOG_PRIORITY_ERROR.rawValue)) == .error)
        #expect(LibinputSeat.level(ofLibinputPriority: Int32(LIBINPUT_LOG_PRIORITY_INFO.rawValue)) == .info)
        #expect(LibinputSeat.level(ofLibinputPriority: Int32(LIBINPUT_LOG_PRIORITY_DEBUG.rawValue)) == .debug)
    }

    @Test func libinputSendsWhatTheLevelShows() {
        #expect(LibinputSeat.libinputPriority(for: .debug) == LIBINPUT_LOG_PRIORITY_DEBUG)
        #expect(LibinputSeat.libinputPriority(for: .info) == LIBINPUT_LOG_PRIORITY_INFO)
        #expect(LibinputSeat.libinputPriority(for: .notice) == LIBINPUT_LOG_PRIORITY_INFO)
        #expect(LibinputSeat.libinputPriority(for: .warning) == LIBINPUT_LOG_PRIORITY_ERROR)
    }
}
