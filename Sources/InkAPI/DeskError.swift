// SPDX-License-Identifier: Apache-2.0
/// What the desk refuses, each mapped to one HTTP status by the API.
public enum DeskError: Error, Equatable, CustomStringConvertible {
    /// A capture is already waiting; one signer, one screen.
    case busy(current: String)
    case unknown(id: String)
    /// The capture has reached a final state and cannot change any more.
    case finished(CaptureStatus)
    /// The request itself is wrong; the text says which field and why.
    case badRequest(String)
    /// The kiosk cannot keep its record (the outbox's disk): nothing was started or removed.
    case unavailable(String)

    public var description: String {
        switch self {
        case .busy(let current): "a signature is already waiting: \(current) (cancel it with DELETE /signatures/\(current))"
        case .unknown(let id): "no signature with id '\(id)' (finished ones are kept as long as the outbox keeps captures: [limits] outbox_keep, outbox_days)"
        case .finished(let status): "signature \(status.id) is already \(status.state.rawValue)"
        case .badRequest(let message): message
        case .unavailable(let message): message
        }
    }
}
