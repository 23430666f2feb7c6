// SPDX-License-Identifier: Apache-2.0
import InkDocument

/// What the kiosk itself requires of every document it signs, whatever the host asks
/// (`[signature] min_review`, `document_lock`). The request's answer and status name what was
/// applied (`SignedPlace.review`, `.lock`).
public struct DocumentPolicy: Sendable, Equatable {
    /// The least reading before Sign: a host's `review` may raise it, never lower it.
    public var minReview: DocumentToSign.Review
    /// The device signature's lock, where the document can take it (`DocumentLock.applicable`).
    public var lock: DocumentLock

    public init(minReview: DocumentToSign.Review = .none, lock: DocumentLock = .none) {
        self.minReview = minReview; self.lock = lock
    }

    /// The review a request gets: the host's (every page when it names none), at least `minReview`.
    func review(asked: DocumentToSign.Review?) -> DocumentToSign.Review {
        (asked ?? StartBody.defaultReview).atLeast(minReview)
    }
}
