// SPDX-License-Identifier: Apache-2.0
/// Which of the kernel's two mode-setting interfaces puts frames on the screen. `auto` takes
/// atomic KMS where the driver offers it and accepts the first mode set in a test commit, and
/// legacy KMS elsewhere; `atomic` refuses to start without it (a board bring-up wants to know);
/// `legacy` never tries it (an escape hatch for a driver whose atomic path misbehaves).
public enum KMSInterface: String, CaseIterable, Sendable {
    case auto, atomic, legacy
}
