// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import InkCore

/// `--size WIDTHxHEIGHT`, for the kiosk's commands and the benchmarks alike.
extension PixelSize: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}
