// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import InkDisplay

/// Which planes atomic KMS shows the kiosk on, from the planes a card lists.
@Suite struct Planes {
    let xrgb: UInt32 = 0x3432_5258, argb: UInt32 = 0x3432_5241   // DRM_FORMAT_XRGB8888, ARGB8888

    func choose(_ planes: [PlaneInfo], crtc: UInt32 = 40, index: Int = 1) -> (primary: UInt32?, cursor: UInt32?) {
        let c = PlaneChoice.choose(from: planes, crtc: crtc, crtcIndex: index, frameFormat: xrgb, cursorFormat: argb)
        return (c.primary?.id, c.cursor?.id)
    }

    @Test func theCRTCsOwnPrimaryAndCursorPlanesAreTaken() {
        let planes = [
            PlaneInfo(id: 31, kind: .primary, possibleCRTCs: 0b01, crtc: 39, formats: [xrgb]),   // the other CRTC's
            PlaneInfo(id: 32, kind: .cursor, possibleCRTCs: 0b01, crtc: 0, formats: [argb]),
            PlaneInfo(id: 33, kind: .overlay, possibleCRTCs: 0b11, crtc: 0, formats: [xrgb, argb]),
            PlaneInfo(id: 34, kind: .primary, possibleCRTCs: 0b10, crtc: 0, formats: [xrgb]),
            PlaneInfo(id: 35, kind: .cursor, possibleCRTCs: 0b10, crtc: 0, formats: [argb]),
        ]
        let chosen = choose(planes)
        #expect(chosen.primary == 34 && chosen.cursor == 35)
    }

    @Test func aPlaneAlreadyOnTheCRTCIsPreferredAndOneOnAnotherNeverTaken() {
        let planes = [
            PlaneInfo(id: 50, kind: .primary, possibleCRTCs: 0b11, crtc: 39, formats: [xrgb]),   // busy on CRTC 39
            PlaneInfo(id: 51, kind: .primary, possibleCRTCs: 0b11, crtc: 0, formats: [xrgb]),
            PlaneInfo(id: 52, kind: .primary, possibleCRTCs: 0b11, crtc: 40, formats: [xrgb]),  // the console's, on ours
        ]
        #expect(choose(planes).primary == 52)
        #expect(choose(Array(planes.prefix(2))).primary == 51)
        #expect(choose(Array(planes.prefix(1))).primary == nil)
    }

    @Test func planesWithoutTheFormatAreNotUsed() {
        let planes = [
            PlaneInfo(id: 60, kind: .primary, possibleCRTCs: 0b10, crtc: 0, formats: [0x3631_4752]),   // RGB565 only
            PlaneInfo(id: 61, kind: .cursor, possibleCRTCs: 0b10, crtc: 0, formats: [xrgb]),            // no alpha
        ]
        let chosen = choose(planes)
        #expect(chosen.primary == nil && chosen.cursor == nil)
    }

    @Test func noCursorPlaneMeansTheOverlayDrawsThePreview() {
        // bochs: one primary plane and nothing else.
        let chosen = choose([PlaneInfo(id: 31, kind: .primary, possibleCRTCs: 0b1, crtc: 36, formats: [xrgb])], crtc: 36, index: 0)
        #expect(chosen.primary == 31 && chosen.cursor == nil)
    }

    @Test func aCRTCIndexBeyondTheMaskMatchesNothing() {
        let chosen = choose([PlaneInfo(id: 70, kind: .primary, possibleCRTCs: .max, crtc: 0, formats: [xrgb])], index: 40)
        #expect(chosen.primary == nil)
    }
}
