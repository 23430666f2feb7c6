// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkDocument
import InkDocumentSigning
import InkStorage

/// The device's identity (`[signature] sign_with`) signs a document's update: the capture's
/// writer knows only `DocumentSealer`, so that storage does not link libcrypto.
extension DeviceSigner: DocumentSealer {
    public func placeholder(signingTime: Date, lock: DocumentLock) -> InkSigning.SignatureValue {
        signatureValue(signingTime: signingTime, lock: lock, reason: "Signed on the signature pad")
    }
}
