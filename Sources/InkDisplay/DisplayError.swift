// SPDX-License-Identifier: Apache-2.0
/// Why the display could not start, when no system call failed (no card, no connected connector,
/// no such mode); a failed system call is a `SystemCallError` with its errno and device.
public enum DisplayError: Error, CustomStringConvertible, Equatable {
    /// udev_new() gave nothing (out of memory, or no udev at all).
    case noUdevContext
    /// The monitor for connector hot-plug events could not be made or started.
    case noUdevMonitor
    /// /dev/dri holds no card.
    case noCard(directory: String)
    /// Cards, but no connector on any of them reports a screen.
    case noConnectedConnector(cards: [String])
    /// The connector the config names is there, without a screen.
    case connectorNotConnected(connector: String, card: String)
    /// The config's mode is not among the connector's.
    case noSuchMode(connector: String, mode: String, available: [String])
    /// Every CRTC that could drive the connector is taken.
    case noCRTC(connector: String, card: String)
    /// `[display] kms = "atomic"`, and the card cannot do it (the reason says what is missing).
    case atomicUnavailable(card: String, reason: String)

    public var description: String {
        switch self {
        case .noUdevContext: "cannot create a udev context"
        case .noUdevMonitor: "cannot listen to udev (is udevd running?)"
        case .noCard(let directory): "no DRM card in \(directory) (is the GPU driver loaded?)"
        case .noConnectedConnector(let cards): "no connected connector on \(cards.joined(separator: ", "))"
        case .connectorNotConnected(let connector, let card): "connector \(connector) on \(card) is not connected"
        case .noSuchMode(let connector, let mode, let available): "\(connector) has no mode \(mode) (it has \(available.joined(separator: ", ")))"
        case .noCRTC(let connector, let card): "no CRTC can drive \(connector) on \(card)"
        case .atomicUnavailable(let card, let reason): "[display] kms = \"atomic\", but \(card) has no atomic KMS for it: \(reason)"
        }
    }
}
